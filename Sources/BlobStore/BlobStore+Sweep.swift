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
        /// Parts of the store that could not be read, and removals or restores that failed, each
        /// said in words: nothing that depends on them was decided, the figures count only what
        /// was done, and the sweep is not a success.
        public var failures: [String] = []

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
        // 1. Referenced again (a restored database, a re-import): back from the trash. Only files
        //    are trashed blobs: anything else there is left as it is, and said. The trash is held
        //    by a descriptor opened without following a link, and every later step on it goes
        //    through that descriptor: a link swapped in its place mid-run leads nowhere.
        var trashed: [(digest: BlobDigest, info: stat)] = []
        var trashAfter = TrashSummary()
        // Nothing goes into, or is deleted from, a trash that could not be listed (a link put in
        // its place leads outside the store).
        var trashUsable = true
        let trash = open(trashPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        defer { if trash >= 0 { close(trash) } }
        do {
            guard trash >= 0 else { throw BlobStoreError.io(path: trashPath, operation: "opendir", errno: errno) }
            try forEachEntry(in: trashPath, descriptor: trash) { path, _ in
                let name = path[path.index(after: path.lastIndex(of: "/")!)...]
                var info = stat()
                guard let digest = BlobDigest(exactHex: String(name)), fstatat(trash, String(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    report.warnings.append("\(path) is not a file (a folder or a link), so it is not a trashed photo: left as it is")
                    return
                }
                trashAfter.count += 1
                trashAfter.bytes += Int64(info.st_size)
                guard keep.contains(digest) else {
                    trashed.append((digest, info))
                    return
                }
                do {
                    if !dryRun, try !restoreFromTrash(digest, from: trash) {
                        report.failures.append("\(digest.hex) is in use again but was gone from the trash when it was to be put back")
                        return
                    }
                    report.restoredBlobs += 1
                    trashAfter.count -= 1
                    trashAfter.bytes -= Int64(info.st_size)
                } catch let error as BlobStoreError {
                    report.failures.append("\(digest.hex) is in use again but could not be put back from the trash (\(error.localizedDescription))")
                }
            }
        } catch let error as BlobStoreError {
            report.failures.append(Self.unreadable(error, what: "the trash"))
            trashUsable = false
        }
        do {
            try forEachEntry(in: tmpPath) { path, _ in
                var info = stat()
                guard lstat(path, &info) == 0, mtime(info) < cutoff else { return }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    report.warnings.append("\(path) is not a file, so it is not a partial write: left as it is")
                    return
                }
                if !dryRun && unlink(path) != 0 {
                    report.failures.append("the partial write \(path) could not be removed (\(String(cString: strerror(errno))))")
                    return
                }
                report.tempFilesRemoved += 1
            }
        } catch let error as BlobStoreError {
            report.failures.append(Self.unreadable(error, what: "the folder of writes in progress"))
        }
        // 2. Orphans to the trash: only from folders that could be read (a folder that cannot is
        //    a failure, and nothing in it is decided).
        var candidates: [(digest: BlobDigest, size: Int64)] = []
        var unreachable = Set<String>()
        do {
            try forEachBlobEntry(unreadable: { folder, code in
                report.failures.append(Self.unreadable(.io(path: folder, operation: "opendir", errno: code), what: "a folder of photos"))
            }) { digest, directory, name in
                // Referenced blobs are never even stat'ed: the common case costs one set lookup.
                guard let digest, !keep.contains(digest) else { return }  // stray files are reported by verify, never removed
                var info = stat()
                guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    // Listed but not reachable (a fan-out folder its owner cannot enter): said, not skipped in silence.
                    if errno != ENOENT, case let path = "\(blobsPath)/\(digest.prefix)", unreachable.insert(path).inserted {
                        report.failures.append(Self.unreadable(.io(path: path, operation: "opendir", errno: errno), what: "a folder of photos"))
                    }
                    return
                }
                guard mtime(info) < cutoff else {
                    report.keptYoung += 1
                    return
                }
                candidates.append((digest, Int64(info.st_size)))
            }
        } catch let error as BlobStoreError {
            report.failures.append(Self.unreadable(error, what: "the folder of photos"))
        }
        var moved: [BlobDigest] = []
        // An unused blob whose digest the trash holds already (an import killed after storing
        // photos that were in the trash) replaces the trashed copy: the trash does not grow, and
        // what was just moved is not deleted in the same run (it waits out its own grace period).
        let trashedSizes = Dictionary(trashed.map { ($0.digest, Int64($0.info.st_size)) }, uniquingKeysWith: { a, _ in a })
        for candidate in candidates where trashUsable {
            do {
                if !dryRun { try moveToTrash(candidate.digest, into: trash) }
            } catch let error as BlobStoreError {
                report.failures.append("\(candidate.digest.hex) is not used but could not be moved to the trash (\(error.localizedDescription))")
                continue
            }
            moved.append(candidate.digest)
            report.orphanBlobs += 1
            report.orphanBytes += candidate.size
            if let replaced = trashedSizes[candidate.digest] {
                trashAfter.bytes -= replaced
            } else {
                trashAfter.count += 1
            }
            trashAfter.bytes += candidate.size
        }
        let justMoved = Set(moved)
        report.orphans = moved.sorted()
        // 3. Past the trash's grace period: gone for good. Counted only once gone. A time of removal
        //    before any store of this kind existed (a machine that booted with its clock in 1970,
        //    a clock set back) says nothing: the blob's time is set to now instead, and it waits
        //    the whole grace period from here.
        let trashCutoff = now - trashGracePeriod
        for (digest, info) in trashed where trashUsable && !justMoved.contains(digest) {
            if mtime(info) < Self.earliestPlausibleTime && !pruneNow {
                if !dryRun { utimensat(trash, digest.hex, nil, AT_SYMLINK_NOFOLLOW) }
                report.warnings.append("\(digest.hex) was put in the trash at a time when the clock was wrong (\(Date(timeIntervalSince1970: mtime(info)))); "
                                       + "it is kept \(Int(trashGracePeriod / 86400)) days from now")
                continue
            }
            guard pruneNow || mtime(info) < trashCutoff else { continue }
            if !dryRun && unlinkat(trash, digest.hex, 0) != 0 && errno != ENOENT {
                report.failures.append("\(trashPath(for: digest)) could not be deleted from the trash (\(String(cString: strerror(errno))))")
                continue
            }
            report.prunedBlobs += 1
            report.bytesFreed += Int64(info.st_size)
            trashAfter.count -= 1
            trashAfter.bytes -= Int64(info.st_size)
        }
        // A dry run's trash is what the real run would leave, worked out from what it would do;
        // a real run counts what is there now.
        report.trash = dryRun || !trashUsable ? trashAfter : ((try? trashSummary(descriptor: trash)) ?? trashAfter)
        return report
    }

    /// A folder the sweep or verification could not read, in words: what it is, why, and that
    /// nothing in it was decided.
    static func unreadable(_ error: BlobStoreError, what: String, so: String = "nothing in it was looked at, moved or removed") -> String {
        guard case .io(let path, _, let code) = error else { return "\(what) could not be read (\(error.localizedDescription)); \(so)" }
        if code == ELOOP || code == ENOTDIR {
            return "\(what) \(path) is a symbolic link or not a folder, and is not followed: \(so); "
                + "put the folder itself back in its place (the store makes it a folder) and run the same command again"
        }
        return "\(what) \(path) cannot be read (\(String(cString: strerror(code)))): \(so); "
            + "make it readable by you again (chmod u+rwx \(path)) and run the same command again"
    }

    /// Every entry of the blob tree: its digest when its name and folder make a valid blob name,
    /// nil for a stray entry. A fan-out folder that cannot be read is given to `unreadable` and
    /// the walk goes on; the top folder that cannot be read throws.
    func forEachBlob(unreadable: (BlobStoreError) -> Void = { _ in }, _ body: (BlobDigest?, String) throws -> Void) throws {
        try forEachEntry(in: blobsPath) { folder, type in
            let name = folder[folder.index(after: folder.lastIndex(of: "/")!)...]
            guard type == DT_DIR || type == DT_UNKNOWN && isDirectory(folder) else {
                try body(nil, folder)
                return
            }
            do {
                try forEachEntry(in: folder) { path, _ in
                    let file = path[path.index(after: path.lastIndex(of: "/")!)...]
                    let digest = file.hasPrefix(name) ? BlobDigest(exactHex: file) : nil
                    try body(digest, path)
                }
            } catch let error as BlobStoreError where error.isListing {
                unreadable(error)
            }
        }
    }

    /// Every file of the blob tree, as (digest or nil for a stray name, its folder's fd, its name),
    /// reading names without building paths or calling stat: the sweep's inner loop.
    /// A fan-out folder that cannot be opened or read to its end is given to `unreadable` (its
    /// path and errno) and the walk goes on; the top folder that cannot be opened throws.
    func forEachBlobEntry(unreadable: (String, Int32) -> Void = { _, _ in },
                          _ body: (BlobDigest?, Int32, UnsafePointer<CChar>) throws -> Void) throws {
        guard let top = Self.openFolder(blobsPath) else { throw BlobStoreError.io(path: blobsPath, operation: "opendir", errno: errno) }
        defer { closedir(top) }
        while let entry = readdir(top) {
            let folderName = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard folderName.utf8.count == 2, BlobDigest(exactHex: folderName + String(repeating: "0", count: 62)) != nil else { continue }
            // A link in place of a fan-out folder is not followed (ELOOP: named as unreadable).
            let fd = openat(dirfd(top), folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                // A stray file of two hex digits is verify's to report; a link, or anything that
                // could not be opened, is said.
                let code = errno
                var entry = stat()
                let link = fstatat(dirfd(top), folderName, &entry, AT_SYMLINK_NOFOLLOW) == 0 && (entry.st_mode & S_IFMT) == S_IFLNK
                if code != ENOTDIR || link { unreadable("\(blobsPath)/\(folderName)", link ? ELOOP : code) }
                continue
            }
            guard let folder = fdopendir(fd) else {
                unreadable("\(blobsPath)/\(folderName)", errno)
                close(fd)
                continue
            }
            defer { closedir(folder) }
            let prefix = Array(folderName.utf8)
            while true {
                errno = 0
                guard let file = readdir(folder) else {
                    // NULL is the end, or (errno set) a folder that could not be read to its end.
                    if errno != 0 { unreadable("\(blobsPath)/\(folderName)", errno) }
                    break
                }
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

    /// Every entry directly in `directory`, with its `d_type` (no stat). A folder that cannot be
    /// opened, or read to its end, throws `.io` with the operation "opendir" or "readdir".
    func forEachEntry(in directory: String, descriptor: Int32? = nil, _ body: (String, UInt8) throws -> Void) throws {
        // Through a descriptor held by the caller when given: the folder it opened, whatever is at the path now.
        let opened: OpaquePointer?
        if let descriptor {
            let fd = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            opened = fd >= 0 ? fdopendir(fd) : nil
            if fd >= 0 && opened == nil { close(fd) }
        } else {
            opened = Self.openFolder(directory)
        }
        guard let dir = opened else { throw BlobStoreError.io(path: directory, operation: "opendir", errno: errno) }
        defer { closedir(dir) }
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw BlobStoreError.io(path: directory, operation: "readdir", errno: errno) }
                break
            }
            let type = entry.pointee.d_type
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            try body("\(directory)/\(name)", type)
        }
    }

    /// Opens a folder of the store for listing, never through a symbolic link: a link in place of
    /// `sha256`, `trash` or `tmp` (which the store makes as folders) leads outside the store, and
    /// nothing there is the store's to move or delete. nil with errno set (ELOOP for a link).
    static func openFolder(_ path: String) -> OpaquePointer? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else {
            let code = errno
            close(fd)
            errno = code
            return nil
        }
        return dir
    }

    func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    func mtime(_ info: stat) -> TimeInterval {
        TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
    }

    /// 2026-01-01T00:00:00Z: no store of this kind trashed anything before it.
    static let earliestPlausibleTime: TimeInterval = 1_767_225_600
}
