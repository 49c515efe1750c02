import BlobStore
import Foundation

/// Where a container keeps `@Attribute(.externalStorage)` values: a BlobStore next to the store
/// file (`.NAME_SUPPORT/`, as SwiftData keeps `.default_SUPPORT`), the configuration's
/// `blobBackend` (an S3 bucket, say) when it names one, or memory for in-memory stores.
final class ExternalStorage: @unchecked Sendable {
    let backend: (any BlobBackend)?
    private var memory: [BlobDigest: Data] = [:]
    private let lock = NSLock()

    init(storeURL: URL?, readOnly: Bool = false, backend: (any BlobBackend)? = nil) throws {
        if let backend {
            self.backend = backend
        } else if let storeURL {
            let name = storeURL.deletingPathExtension().lastPathComponent
            self.backend = try BlobStore(root: storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT"), readOnly: readOnly)
        } else {
            self.backend = nil
        }
    }

    /// The local blob folder, when that is where the values are.
    var blobs: BlobStore? { backend as? BlobStore }

    /// A write session: puts are durable at `commit()`, and the write lock is held until `finish()`.
    final class Writer {
        let storage: ExternalStorage
        let writer: (any BlobWriter)?
        var memory: [BlobDigest: Data] = [:]

        init(_ storage: ExternalStorage) throws {
            self.storage = storage
            writer = try storage.backend?.makeWriter()
        }

        func put(_ data: Data, digest known: BlobDigest? = nil) throws -> BlobDigest {
            if let writer { return try writer.put(data, digest: known) }
            let digest = known ?? SHA256.digest(data)
            memory[digest] = data
            return digest
        }

        /// Makes every put durable (before the SQLite commit that references them).
        func commit() throws {
            try writer?.commit()
            if let repaired = writer?.repaired, !repaired.isEmpty {
                storage.lock.lock()
                storage.repaired += repaired
                storage.lock.unlock()
            }
            if !memory.isEmpty {
                storage.lock.lock()
                storage.memory.merge(memory) { a, _ in a }
                storage.lock.unlock()
            }
        }

        /// Releases the write lock (after the SQLite commit).
        func finish() { writer?.finish() }
    }

    /// Stored blobs found damaged by a save that wrote the same bytes, and rewritten from them.
    private(set) var repaired: [BlobDigest] = []

    /// How many external values were read (tests check that fetches read none).
    private(set) var readCount = 0

    func read(_ digest: BlobDigest) throws -> Data {
        lock.lock()
        readCount += 1
        lock.unlock()
        if let backend { return try backend.readVerified(digest) }
        lock.lock()
        defer { lock.unlock() }
        guard let data = memory[digest] else { throw BlobStoreError.missing(digest) }
        return data
    }

    /// Removes the digests no row references any more. Runs under the store's exclusive lock so
    /// that no writer commits a new reference to one of them in between; skipped (left to garbage
    /// collection) if the lock is not free within a few seconds.
    func removeUnreferenced(_ candidates: Set<BlobDigest>, isReferenced: (BlobDigest) throws -> Bool) {
        guard !candidates.isEmpty else { return }
        if let backend {
            _ = try? backend.remove(candidates, lockTimeout: 5) { try isReferenced($0) }
        } else {
            lock.lock()
            defer { lock.unlock() }
            for digest in candidates where !((try? isReferenced(digest)) ?? true) { memory[digest] = nil }
        }
    }
}

/// An external-storage value not loaded yet: the digest its row holds.
struct ExternalFault {
    let digest: BlobDigest
}
