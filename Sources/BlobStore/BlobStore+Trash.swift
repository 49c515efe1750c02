import Foundation

// The trash: removed blobs wait in ROOT/trash/<hex> for a grace period before a sweep deletes
// them (design note 5). A trashed blob's mtime is its time of removal.

extension BlobStore {
    /// What the trash holds.
    public struct TrashSummary: Equatable, Sendable, Codable {
        /// Blobs in the trash.
        public var count = 0
        /// Their bytes.
        public var bytes: Int64 = 0
    }

    /// Moves a blob into the trash (after the rows referencing it were deleted and committed).
    /// Its mtime becomes the time of removal before the move, so a crash in between leaves it in
    /// place, a young orphan. Moving a blob that is not there does nothing.
    public func moveToTrash(_ digest: BlobDigest) throws {
        try refuseIfReadOnly()
        let path = self.path(for: digest)
        guard utimensat(AT_FDCWD, path, nil, 0) == 0 else {
            if errno == ENOENT { return }
            throw BlobStoreError.io(path: path, operation: "touch", errno: errno)
        }
        try Privacy.makeFolder(trashPath)
        // Only into the store's own folder: a link put in its place leads outside the store.
        var trash = stat()
        guard lstat(trashPath, &trash) == 0, (trash.st_mode & S_IFMT) == S_IFDIR else {
            throw BlobStoreError.io(path: trashPath, operation: "move to trash (not a folder)", errno: ELOOP)
        }
        if rename(path, trashPath(for: digest)) != 0 && errno != ENOENT {
            throw BlobStoreError.io(path: path, operation: "move to trash", errno: errno)
        }
    }

    /// Takes a blob back from the trash. Returns false when the trash does not hold it.
    @discardableResult
    public func restoreFromTrash(_ digest: BlobDigest) throws -> Bool {
        try refuseIfReadOnly()
        let trashed = trashPath(for: digest)
        guard access(trashed, F_OK) == 0 else { return false }
        let directory = self.directory(for: digest)
        try Privacy.makeFolder(directory)
        // link, not rename: a blob written meanwhile under the final name is never replaced.
        if link(trashed, path(for: digest)) != 0 && errno != EEXIST {
            if errno == ENOENT { return false }
            throw BlobStoreError.io(path: path(for: digest), operation: "restore from trash", errno: errno)
        }
        try BlobStore.sync(path: directory)
        unlink(trashed)
        return true
    }

    /// Whether the trash holds this blob.
    public func trashContains(_ digest: BlobDigest) -> Bool { access(trashPath(for: digest), F_OK) == 0 }

    /// Counts what the trash holds.
    public func trashSummary() throws -> TrashSummary {
        var summary = TrashSummary()
        guard access(trashPath, F_OK) == 0 else { return summary }
        try forEachEntry(in: trashPath) { path, _ in
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
            summary.count += 1
            summary.bytes += Int64(info.st_size)
        }
        return summary
    }

    func refuseIfReadOnly() throws {
        if isReadOnly { throw BlobStoreError.io(path: root.path, operation: "write (opened read-only)", errno: EROFS) }
    }
}
