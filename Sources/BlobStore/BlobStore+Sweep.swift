import Foundation

// Removal and garbage collection. The rules are in the design notes at the top of BlobStore.swift.

extension BlobStore {
    /// What a sweep removed (or, in a dry run, would remove).
    public struct SweepReport: Equatable, Sendable, Codable {
        public var orphanBlobs = 0
        public var bytesFreed: Int64 = 0
        public var tempFilesRemoved = 0
        public var dryRun = false
        /// Unreferenced blobs kept because they are younger than the grace period.
        public var keptYoung = 0

        public init(orphanBlobs: Int = 0, bytesFreed: Int64 = 0, tempFilesRemoved: Int = 0, dryRun: Bool = false, keptYoung: Int = 0) {
            self.orphanBlobs = orphanBlobs
            self.bytesFreed = bytesFreed
            self.tempFilesRemoved = tempFilesRemoved
            self.dryRun = dryRun
            self.keptYoung = keptYoung
        }
    }

    /// Removes one blob (after the rows referencing it were deleted and committed).
    public func remove(_ digest: BlobDigest) throws {
        let path = self.path(for: digest)
        if unlink(path) != 0 && errno != ENOENT { throw BlobStoreError.io(path: path, operation: "unlink", errno: errno) }
    }

    /// Removes those of `candidates` that `isReferenced` says nothing refers to any more, under the
    /// exclusive lock (so no writer commits a new reference in between). Returns how many went.
    @discardableResult
    public func remove(_ candidates: Set<BlobDigest>, lockTimeout: TimeInterval = 600,
                       isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
        let lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
        defer { lock.unlock() }
        var removed = 0
        for digest in candidates.sorted() where try !isReferenced(digest) {
            try remove(digest)
            removed += 1
        }
        return removed
    }

    /// Removes every blob not in the referenced set and older than `gracePeriod`, and every temp
    /// file older than it.
    ///
    /// `referenced` is called while the store's lock is held exclusive, so no writer is between a
    /// put and the commit of its reference: compute the set inside it, from the database.
    public func sweep(
        gracePeriod: TimeInterval = 3600, dryRun: Bool = false, lockTimeout: TimeInterval = 600,
        referenced: () throws -> Set<BlobDigest>
    ) throws -> SweepReport {
        let lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
        defer { lock.unlock() }
        let keep = try referenced()
        let cutoff = Date().timeIntervalSince1970 - gracePeriod
        var report = SweepReport(dryRun: dryRun)
        try forEachEntry(in: tmpPath) { path, _ in
            var info = stat()
            guard lstat(path, &info) == 0, mtime(info) < cutoff else { return }
            report.tempFilesRemoved += 1
            if !dryRun { unlink(path) }
        }
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
            report.bytesFreed += Int64(info.st_size)
            if !dryRun { unlinkat(directory, name, 0) }
        }
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
            guard fd >= 0, let folder = fdopendir(fd) else { continue }
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
