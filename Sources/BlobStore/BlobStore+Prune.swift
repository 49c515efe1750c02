import Foundation

extension BlobStore {
    /// Deletes, for good, at most `limit` trashed blobs put in the trash more than `age` seconds
    /// ago that `isReferenced` says nothing refers to (one referenced again is left for a sweep to
    /// put back); returns how many went. What OpenSwiftData does by itself after a container opens
    /// (`ModelConfiguration.trashGracePeriod`), so that space comes back without a sweep.
    ///
    /// Under the exclusive lock, waited for up to `lockTimeout` seconds (a writer or a sweep at
    /// work longer: nothing is done, and 0 returned), so no save commits a new reference in between. A trash
    /// time before any store existed (a clock that was wrong) is not trusted: that blob stays.
    public func pruneTrash(olderThan age: TimeInterval, limit: Int, lockTimeout: TimeInterval,
                           isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
        guard !isReadOnly, limit > 0 else { return 0 }
        let lock: FileLock
        do {
            lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
        } catch BlobStoreError.lockTimeout {
            return 0
        }
        defer { lock.unlock() }
        let trash = open(trashPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard trash >= 0 else {
            if errno == ENOENT { return 0 }
            throw BlobStoreError.io(path: trashPath, operation: "opendir", errno: errno)
        }
        defer { close(trash) }
        let cutoff = Date().timeIntervalSince1970 - age
        var old: [BlobDigest] = []
        try forEachEntry(in: trashPath, descriptor: trash) { path, _ in
            guard old.count < limit else { return }
            let name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
            var info = stat()
            guard let digest = BlobDigest(exactHex: name), fstatat(trash, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                  (info.st_mode & S_IFMT) == S_IFREG, mtime(info) >= Self.earliestPlausibleTime, mtime(info) < cutoff else { return }
            old.append(digest)
        }
        var pruned = 0
        for digest in old where try !isReferenced(digest) {
            if unlinkat(trash, digest.hex, 0) == 0 { pruned += 1 }
        }
        return pruned
    }

    /// `pruneTrash(olderThan:limit:lockTimeout:isReferenced:)` waiting up to two seconds for the lock
    /// (`BlobBackend`'s).
    public func pruneTrash(olderThan age: TimeInterval, limit: Int, isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
        try pruneTrash(olderThan: age, limit: limit, lockTimeout: 2, isReferenced: isReferenced)
    }
}
