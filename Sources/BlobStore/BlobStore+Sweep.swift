import Foundation

// Removal and garbage collection: nothing is deleted on first sight (design note 5 at the top of
// BlobStore.swift).

extension BlobStore {
    /// What a sweep did (or, in a dry run, would do).
    public struct SweepReport: Equatable, Sendable, Codable {
        /// Unreferenced blobs moved into the trash.
        public var orphanBlobs = 0
        /// Their bytes.
        public var orphanBytes: Int64 = 0
        /// Their digests.
        public var orphans: [BlobDigest] = []
        /// Trashed blobs deleted for good (past the trash grace period, or all with `pruneNow`).
        public var prunedBlobs = 0
        /// Bytes given back to the file system: the pruned blobs'.
        public var bytesFreed: Int64 = 0
        /// Referenced blobs found in the trash and put back.
        public var restoredBlobs = 0
        /// Temporary files of interrupted writes removed (in an S3 bucket: multipart uploads begun
        /// over a day before and never finished, aborted).
        public var tempFilesRemoved = 0
        /// Nothing was moved or deleted: the report says what would have been.
        public var dryRun = false
        /// Unreferenced blobs kept because they are younger than the grace period.
        public var keptYoung = 0
        /// What the trash holds after the sweep.
        public var trash = TrashSummary()
        /// Clean-up steps that could not be done (the rest of the sweep was), each said in words.
        public var warnings: [String] = []

        /// An empty report.
        public init(dryRun: Bool = false) { self.dryRun = dryRun }
    }

    /// Moves one blob to the trash (after the rows referencing it were deleted and committed).
    public func remove(_ digest: BlobDigest) throws { try moveToTrash(digest) }

    /// Moves to the trash those of `candidates` that `isReferenced` says nothing refers to any
    /// more, under the exclusive lock (so no writer commits a new reference in between). Returns
    /// how many went.
    @discardableResult
    public func remove(_ candidates: Set<BlobDigest>, lockTimeout: TimeInterval = 600,
                       isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
        try refuseIfReadOnly()
        return try trashUnreferenced(candidates, lockPath: lockPath, lockTimeout: lockTimeout, isReferenced: isReferenced, moveToTrash: moveToTrash)
    }

    /// Garbage collection in three steps, under the store's exclusive lock: every referenced blob
    /// found in the trash is put back; every blob not in the referenced set and older than
    /// `gracePeriod` is moved to the trash (as are temp files older than it deleted); every
    /// trashed blob older than `trashGracePeriod` (all of them with `pruneNow`) is deleted.
    ///
    /// `referenced` is called while the lock is held exclusive, so no writer is between a put and
    /// the commit of its reference: compute the set inside it, from the database. It must throw
    /// rather than return a set it is not sure of: everything outside the set goes to the trash.
    public func sweep(
        gracePeriod: TimeInterval = 3600, trashGracePeriod: TimeInterval = 7 * 86400, pruneNow: Bool = false,
        dryRun: Bool = false, lockTimeout: TimeInterval = 600,
        referenced: () throws -> Set<BlobDigest>
    ) throws -> SweepReport {
        try refuseIfReadOnly()
        let lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
        defer { lock.unlock() }
        let keep = try referenced()
        let now = Date().timeIntervalSince1970
        let cutoff = now - gracePeriod
        var report = SweepReport(dryRun: dryRun)
        try Privacy.makeFolder(trashPath)
        // 1. Referenced again (a restored database, a re-import): back from the trash.
        var trashed: [(digest: BlobDigest, info: stat)] = []
        try forEachEntry(in: trashPath) { path, _ in
            let name = path[path.index(after: path.lastIndex(of: "/")!)...]
            var info = stat()
            guard let digest = BlobDigest(exactHex: String(name)), lstat(path, &info) == 0 else { return }
            if keep.contains(digest) {
                report.restoredBlobs += 1
                if !dryRun { try restoreFromTrash(digest) }
            } else {
                trashed.append((digest, info))
            }
        }
        try forEachEntry(in: tmpPath) { path, _ in
            var info = stat()
            guard lstat(path, &info) == 0, mtime(info) < cutoff else { return }
            report.tempFilesRemoved += 1
            if !dryRun { unlink(path) }
        }
        // 2. Orphans to the trash.
        var moved: [BlobDigest] = []
        try forEachBlobEntry { digest, directory, name in
            // Referenced blobs are never even stat'ed: the common case costs one set lookup.
            guard let digest, !keep.contains(digest) else { return }  // stray files are reported by verify, never removed
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
            guard mtime(info) < cutoff else {
                report.keptYoung += 1
                return
            }
            report.orphanBlobs += 1
            report.orphanBytes += Int64(info.st_size)
            moved.append(digest)
        }
        if !dryRun { for digest in moved { try moveToTrash(digest) } }
        report.orphans = moved.sorted()
        // 3. Past the trash's grace period: gone for good.
        let trashCutoff = now - trashGracePeriod
        for (digest, info) in trashed {
            guard pruneNow || mtime(info) < trashCutoff else { continue }
            report.prunedBlobs += 1
            report.bytesFreed += Int64(info.st_size)
            if !dryRun { unlink(trashPath(for: digest)) }
        }
        report.trash = try trashSummary()
        return report
    }

    /// Every entry of the blob tree: its digest when its name and folder make a valid blob name,
    /// nil for a stray entry.
    func forEachBlob(_ body: (BlobDigest?, String) throws -> Void) throws {
        try forEachEntry(in: blobsPath) { folder, type in
            let name = folder[folder.index(after: folder.lastIndex(of: "/")!)...]
            guard type == DT_DIR || type == DT_UNKNOWN && isDirectory(folder) else {
                try body(nil, folder)
                return
            }
            try forEachEntry(in: folder) { path, _ in
                let file = path[path.index(after: path.lastIndex(of: "/")!)...]
                let digest = file.hasPrefix(name) ? BlobDigest(exactHex: file) : nil
                try body(digest, path)
            }
        }
    }

    /// Every file of the blob tree, as (digest or nil for a stray name, its folder's fd, its name),
    /// reading names without building paths or calling stat: the sweep's inner loop.
    func forEachBlobEntry(_ body: (BlobDigest?, Int32, UnsafePointer<CChar>) throws -> Void) throws {
        guard let top = opendir(blobsPath) else { throw BlobStoreError.io(path: blobsPath, operation: "opendir", errno: errno) }
        defer { closedir(top) }
        while let entry = readdir(top) {
            let folderName = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard folderName.utf8.count == 2, BlobDigest(exactHex: folderName + String(repeating: "0", count: 62)) != nil else { continue }
            let fd = openat(dirfd(top), folderName, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            guard let folder = fdopendir(fd) else { close(fd); continue }
            defer { closedir(folder) }
            let prefix = Array(folderName.utf8)
            while let file = readdir(folder) {
                try withUnsafeBytes(of: file.pointee.d_name) { raw in
                    let name = raw.bindMemory(to: CChar.self).baseAddress!
                    let length = strlen(name)
                    if length <= 2 && (name[0] == 46) { return }  // "." and ".."
                    let bytes = UnsafeRawBufferPointer(start: name, count: length)
                    var digest: BlobDigest?
                    if length == 64 && bytes[0] == prefix[0] && bytes[1] == prefix[1] {
                        digest = BlobDigest(exactHex: String(decoding: bytes, as: UTF8.self))
                    }
                    try body(digest, fd, name)
                }
            }
        }
    }

    /// Every entry directly in `directory`, with its `d_type` (no stat).
    func forEachEntry(in directory: String, _ body: (String, UInt8) throws -> Void) throws {
        guard let dir = opendir(directory) else { throw BlobStoreError.io(path: directory, operation: "opendir", errno: errno) }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let type = entry.pointee.d_type
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            try body("\(directory)/\(name)", type)
        }
    }

    func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    func mtime(_ info: stat) -> TimeInterval {
        TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
    }
}
