import BlobStore
import Foundation

/// A store's identity and its blob folder's owner: how a container opening a store tells an
/// emptied, replaced or foreign store from its own (moved unchanged from `ModelContainer.swift`).
extension ModelContainer {
    /// Compares the store's identity with its blob folder's owner, recording both when neither
    /// has one yet (and when the folder has none: a store made before identities). The owner is
    /// read first: the store's identity is committed before the owner is written, so a process
    /// that sees the owner also sees the identity. A folder with no owner and no blob, under a
    /// store whose rows reference blobs (`referencesBlobs`), is gone, not new: it is not claimed.
    static func checkIdentity(_ record: StoreRecord, _ blobs: (any BlobBackend)?, wasEmpty: Bool, writable: Bool,
                              referencesBlobs: () throws -> Bool) throws -> ModelError? {
        guard let blobs else {
            if writable { _ = try record.ensureIdentifier() }
            return nil
        }
        let owner = try blobs.owner()
        let identity = try record.identifier()
        let store = record.connection.path, folder = blobs.locationDescription
        switch (identity, owner) {
        case let (identity?, owner?):
            return identity == owner ? nil
                : .storeIdentityMismatch(store: store, blobFolder: folder, reason: "the store is \(identity) but the folder belongs to \(owner)")
        case (nil, _?):
            return .storeIdentityMismatch(store: store, blobFolder: folder, reason: wasEmpty
                ? "the store was empty or missing when it was opened, but the folder belongs to a store that had rows"
                : "the store has no identity, but the folder belongs to another store")
        case (let identity?, nil):
            // Blobs only in the trash are still the store's: gc puts the referenced ones back.
            if try !blobs.hasBlobs(), try !blobs.hasTrashedBlobs(), try referencesBlobs() { return .blobStoreMissing(store: store, blobFolder: folder) }
            if writable { return try claim(blobs, for: identity, store: store) }
            return nil
        case (nil, nil):
            let holdsBlobs = try blobs.hasBlobs()
            if wasEmpty, holdsBlobs {
                return .storeIdentityMismatch(store: store, blobFolder: folder, reason: "the store was empty or missing when it was opened, but the folder holds files")
            }
            if !holdsBlobs, try !blobs.hasTrashedBlobs(), try referencesBlobs() { return .blobStoreMissing(store: store, blobFolder: folder) }
            if writable { return try claim(blobs, for: try record.ensureIdentifier(), store: store) }
            return nil
        }
    }

    /// Records `identity` as the owner of a folder that had none; another store that claimed it
    /// at the same moment and won makes this one a mismatch.
    private static func claim(_ blobs: any BlobBackend, for identity: String, store: String) throws -> ModelError? {
        do {
            try blobs.setOwner(identity)
            return nil
        } catch BlobStoreError.ownedByAnother(let place, let owner) {
            return .storeIdentityMismatch(store: store, blobFolder: place, reason: "the store is \(identity) but the folder was claimed by \(owner) at the same moment")
        }
    }

    /// The identity recorded in the store file at `url`, read without changing anything; nil when
    /// there is no file, it cannot be read, or it records none. (An OpenSwiftData addition: a
    /// caller that made a store and failed after its container claimed the blob folder uses it
    /// to give the claim back, `BlobBackend.releaseOwner`.)
    public static func storeIdentifier(at url: URL) -> String? {
        guard FileManager.default.fileExists(atPath: url.path),
              let connection = try? Connection(path: url.path, readOnly: true) else { return nil }
        return try? StoreRecord(connection: connection).identifier()
    }
}
