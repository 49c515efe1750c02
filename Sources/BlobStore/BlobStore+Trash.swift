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

        package init(count: Int = 0, bytes: Int64 = 0) { (self.count, self.bytes) = (count, bytes) }
    }

    /// Moves a blob into the trash (after the rows referencing it were deleted and committed).
    /// Its mtime becomes the time of removal before the move, so a crash in between leaves it in
    /// place, a young orphan. Moving a blob that is not there does nothing.
    ///
    /// Every step goes through descriptors of the blob's folder and the trash, each opened without
    /// following a link: a link put in place of either, even while this runs, leads nowhere.
    public func moveToTrash(_ digest: BlobDigest) throws {
        try refuseIfReadOnly()
        guard let trash = try Self.openFolder(trashPath, creating: true) else { return }
        defer { close(trash) }
        try moveToTrash(digest, into: trash)
    }

    /// Moves a blob into the trash held by `trash` (a sweep holds it for the whole run).
    func moveToTrash(_ digest: BlobDigest, into trash: Int32) throws {
        guard let folder = try openBlobFolder(digest, creating: false) else { return }  // not there: nothing to move
        defer { close(folder) }
        let name = digest.hex
        guard utimensat(folder, name, nil, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return }
            throw BlobStoreError.io(path: path(for: digest), operation: "touch", errno: errno)
        }
        if renameat(folder, name, trash, name) != 0 && errno != ENOENT {
            throw BlobStoreError.io(path: path(for: digest), operation: "move to trash", errno: errno)
        }
    }

    /// Takes a blob back from the trash. Returns false when the trash does not hold it.
    @discardableResult
    public func restoreFromTrash(_ digest: BlobDigest) throws -> Bool {
        try refuseIfReadOnly()
        guard let trash = try Self.openFolder(trashPath, creating: false) else { return false }
        defer { close(trash) }
        return try restoreFromTrash(digest, from: trash)
    }

    /// Takes a blob back from the trash held by `trash`; false when the trash does not hold it.
    func restoreFromTrash(_ digest: BlobDigest, from trash: Int32) throws -> Bool {
        let name = digest.hex
        guard let folder = try openBlobFolder(digest, creating: true) else { return false }
        defer { close(folder) }
        // link, not rename: a blob written meanwhile under the final name is never replaced.
        if linkat(trash, name, folder, name, 0) != 0 && errno != EEXIST {
            if errno == ENOENT { return false }
            throw BlobStoreError.io(path: path(for: digest), operation: "restore from trash", errno: errno)
        }
        try check(fsync(folder), "fsync", directory(for: digest))
        unlinkat(trash, name, 0)
        return true
    }

    /// A descriptor of the fan-out folder a blob goes in, reached from a descriptor of `sha256`,
    /// each opened without following a link: a link put in place of either leads nowhere (ELOOP).
    /// Made first when `creating` (0700, whatever the umask); nil when it does not exist.
    func openBlobFolder(_ digest: BlobDigest, creating: Bool) throws -> Int32? {
        guard let top = try Self.openFolder(blobsPath, creating: creating) else { return nil }
        defer { close(top) }
        if creating && mkdirat(top, String(digest.prefix), Privacy.folderMode) == 0 {
            // By name in the folder held: a umask of 0777 leaves it 000, which its owner could not open to fchmod.
            _ = fchmodat(top, String(digest.prefix), Privacy.folderMode, 0)
        }
        let fd = openat(top, String(digest.prefix), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw BlobStoreError.io(path: directory(for: digest), operation: Self.openOperation(errno), errno: errno)
        }
        return fd
    }

    /// A descriptor of one of the store's folders, opened without following a link (a link in its
    /// place is ELOOP: `.io`); made first when `creating`. nil when it does not exist.
    static func openFolder(_ path: String, creating: Bool) throws -> Int32? {
        if creating { try Privacy.makeFolder(path) }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw BlobStoreError.io(path: path, operation: openOperation(errno), errno: errno)
        }
        return fd
    }

    /// What failed, for a folder that could not be opened: a link or a file in its place is said as such.
    static func openOperation(_ code: Int32) -> String { code == ELOOP || code == ENOTDIR ? "open (a link, or not a folder)" : "opendir" }

    /// Whether the trash holds this blob.
    public func trashContains(_ digest: BlobDigest) -> Bool { access(trashPath(for: digest), F_OK) == 0 }

    /// Counts what the trash holds.
    public func trashSummary() throws -> TrashSummary {
        guard access(trashPath, F_OK) == 0 else { return TrashSummary() }
        return try trashSummary(descriptor: nil)
    }

    /// Counts what the trash holds, through `descriptor` when given (the trash a sweep holds).
    func trashSummary(descriptor: Int32?) throws -> TrashSummary {
        var summary = TrashSummary()
        try forEachEntry(in: trashPath, descriptor: descriptor) { path, _ in
            var info = stat()
            let name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
            guard fstatat(descriptor ?? AT_FDCWD, descriptor == nil ? path : name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                  (info.st_mode & S_IFMT) == S_IFREG else { return }
            summary.count += 1
            summary.bytes += Int64(info.st_size)
        }
        return summary
    }

    func refuseIfReadOnly() throws {
        if isReadOnly { throw BlobStoreError.io(path: root.path, operation: "write (opened read-only)", errno: EROFS) }
    }
}
