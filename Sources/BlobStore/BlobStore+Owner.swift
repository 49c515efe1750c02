import Foundation

// The store's owner (design note 8): the identity of the database whose rows decide what in
// this folder is referenced, in ROOT/owner. A sweep or verify with another identity, or none
// beside blobs, must refuse: the database is empty, replaced or foreign.

extension BlobStore {
    /// The identity recorded in ROOT/owner, nil when there is none.
    public func owner() throws -> String? {
        let fd = open(ownerPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw BlobStoreError.io(path: ownerPath, operation: "read", errno: errno)
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(fd, &bytes, bytes.count)
        guard n >= 0 else { throw BlobStoreError.io(path: ownerPath, operation: "read", errno: errno) }
        let text = String(decoding: bytes[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Records `identity` as the owner, durably (temp file, fsync, linked into place, directory
    /// fsync), unless an owner is recorded already: then it must be `identity`, or this throws
    /// `BlobStoreError.ownedByAnother` (two stores claiming one empty folder at once: one wins).
    public func setOwner(_ identity: String) throws {
        try refuseIfReadOnly()
        let claimed = try BlobStore.writeDurably(Data((identity + "\n").utf8), to: ownerPath,
                                                 temporary: "\(tmpPath)/owner.\(UUID().uuidString).part", replacing: false)
        guard !claimed else { return }
        guard let owner = try owner() else {
            // A record that is there but empty (damaged) names nobody: replaced, as before claims.
            try BlobStore.writeDurably(Data((identity + "\n").utf8), to: ownerPath, temporary: "\(tmpPath)/owner.\(UUID().uuidString).part")
            return
        }
        if owner != identity { throw BlobStoreError.ownedByAnother(place: root.path, owner: owner) }
    }

    /// Removes ROOT/owner if it names `identity` and the tree holds no blob (durably: the folder
    /// is fsync'ed). Returns whether it went.
    @discardableResult
    public func releaseOwner(_ identity: String) throws -> Bool {
        try refuseIfReadOnly()
        guard try owner() == identity, try !hasBlobs() else { return false }
        if unlink(ownerPath) != 0 && errno != ENOENT { throw BlobStoreError.io(path: ownerPath, operation: "remove", errno: errno) }
        try BlobStore.sync(path: root.path)
        return true
    }

    /// Whether the blob tree holds at least one blob (stops at the first).
    public func hasBlobs() throws -> Bool {
        guard access(blobsPath, F_OK) == 0 else { return false }
        var found = false
        struct Found: Error {}
        do {
            try forEachBlobEntry { digest, _, _ in
                if digest != nil {
                    found = true
                    throw Found()
                }
            }
        } catch is Found {}
        return found
    }

    /// Whether the trash holds at least one blob.
    public func hasTrashedBlobs() throws -> Bool {
        guard access(trashPath, F_OK) == 0 else { return false }
        var found = false
        struct Found: Error {}
        do {
            try forEachEntry(in: trashPath) { path, _ in
                if BlobDigest(exactHex: String(path[path.index(after: path.lastIndex(of: "/")!)...])) != nil {
                    found = true
                    throw Found()
                }
            }
        } catch is Found {}
        return found
    }
}
