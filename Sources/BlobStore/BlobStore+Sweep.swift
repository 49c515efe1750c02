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
    }

    /// Removes one blob (after the rows referencing it were deleted and committed).
    public func remove(_ digest: BlobDigest) throws {
        let path = self.path(for: digest)
        if unlink(path) != 0 && errno != ENOENT { throw BlobStoreError.io(path: path, operation: "unlink", errno: errno) }
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
        try forEachFile(in: tmpPath) { path, info in
            guard mtime(info) < cutoff else { return }
            report.tempFilesRemoved += 1
            if !dryRun { unlink(path) }
        }
        try forEachBlob { digest, path, info in
            guard let digest, !keep.contains(digest) else { return }
            guard mtime(info) < cutoff else {
                report.keptYoung += 1
                return
            }
            report.orphanBlobs += 1
            report.bytesFreed += Int64(info.st_size)
            if !dryRun { unlink(path) }
        }
        return report
    }

    /// Every file in the blob tree: its digest when its name and folder are a valid blob name, nil for a stray file.
    func forEachBlob(_ body: (BlobDigest?, String, stat) throws -> Void) throws {
        guard let top = opendir(blobsPath) else { throw BlobStoreError.io(path: blobsPath, operation: "opendir", errno: errno) }
        defer { closedir(top) }
        while let entry = readdir(top) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let folder = "\(blobsPath)/\(name)"
            var info = stat()
            guard lstat(folder, &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                try body(nil, folder, info)
                continue
            }
            try forEachFile(in: folder) { path, fileInfo in
                let file = String(path[path.index(after: path.lastIndex(of: "/")!)...])
                let digest = BlobDigest(hex: file).flatMap { $0.hex == file && $0.prefix == name ? $0 : nil }
                try body(digest, path, fileInfo)
            }
        }
    }

    /// Every regular file (or other non-directory entry) directly in `directory`.
    func forEachFile(in directory: String, _ body: (String, stat) throws -> Void) throws {
        guard let dir = opendir(directory) else { throw BlobStoreError.io(path: directory, operation: "opendir", errno: errno) }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let path = "\(directory)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            try body(path, info)
        }
    }

    func mtime(_ info: stat) -> TimeInterval {
        TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
    }
}
