import Foundation

// Verification: re-hash every blob and report what is missing, corrupt, stray or left over.

extension BlobStore {
    /// What `verify` found.
    public struct VerifyReport: Equatable, Sendable, Codable {
        /// Blobs re-hashed.
        public var checked = 0
        /// The bytes re-hashed.
        public var bytesChecked: Int64 = 0
        /// Expected digests with no blob.
        public var missing: [BlobDigest] = []
        /// Blobs whose content does not hash to their name.
        public var corrupt: [BlobDigest] = []
        /// Files in the blob tree whose name is not a blob name (or is in the wrong folder).
        public var stray: [String] = []
        /// Writes in progress or abandoned, in tmp/.
        public var temporary: [String] = []
        /// Blobs present but not in the expected set (only when one was given).
        public var unexpected: [BlobDigest] = []
        /// Those of `missing` that the trash still holds (a sweep puts them back).
        public var inTrash: [BlobDigest] = []
        /// What the trash holds.
        public var trash = BlobStore.TrashSummary()
        /// Folders that could not be read, each said in words: what they hold was not checked
        /// (and an expected blob in one is not counted missing).
        public var unreadable: [String] = []

        /// Nothing missing, nothing corrupt, nothing left unread.
        public var isHealthy: Bool { missing.isEmpty && corrupt.isEmpty && unreadable.isEmpty }

        /// An empty report.
        public init() {}
    }

    /// Re-hashes blobs and reports problems; `expected` is the set of digests that must be present.
    public func verify(expected: Set<BlobDigest>?, only: Set<BlobDigest>? = nil, jobs: Int = 1, quick: Bool = false,
                       progress: ((Int, Int, Int64) -> Void)? = nil) throws -> VerifyReport {
        try verify(expected: expected.map { set in { set } }, only: only, jobs: jobs, quick: quick, progress: progress)
    }

    /// Re-hashes blobs and reports problems.
    ///
    /// - Parameters:
    ///   - expected: the digests that must be present (say, every referenced one), or nil to just
    ///     check what is there. Called with the store's lock held shared, as is the listing of the
    ///     tree: no removal (which takes it exclusive) falls between the two, so a blob removed
    ///     after its last reference went is not reported missing.
    ///   - only: limit re-hashing to these digests (the rest of the tree is still listed).
    ///   - jobs: blobs re-hashed at once, each on its own thread.
    ///   - quick: list only (every expected blob present, nothing stray); nothing is re-hashed
    ///     and `checked` stays 0.
    ///   - progress: called after each blob with (blobs done, blobs to check, bytes done), one
    ///     call at a time whatever `jobs` is.
    public func verify(expected: (() throws -> Set<BlobDigest>)? = nil, only: Set<BlobDigest>? = nil, jobs: Int = 1, quick: Bool = false,
                       progress: ((Int, Int, Int64) -> Void)? = nil) throws -> VerifyReport {
        var report = VerifyReport()
        var present = Set<BlobDigest>()
        var listed: [BlobDigest] = []
        var wanted: Set<BlobDigest>?
        var unreadFolders = Set<String>()
        do {
            let lock = isReadOnly ? nil : try FileLock(path: lockPath, mode: .shared)
            defer { lock?.unlock() }
            wanted = try expected?()
            func unread(_ error: BlobStoreError, _ what: String) {
                report.unreadable.append(Self.unreadable(error, what: what, so: "what it holds could not be checked"))
                if case .io(let path, _, _) = error { unreadFolders.insert(path) }
            }
            do {
                if access(tmpPath, F_OK) == 0 { try forEachEntry(in: tmpPath) { path, _ in report.temporary.append(path) } }
            } catch let error as BlobStoreError where error.isListing { unread(error, "the folder of writes in progress") }
            do {
                if access(blobsPath, F_OK) == 0 {
                    try forEachBlob(unreadable: { unread($0, "a folder of photos") }) { digest, path in
                        guard let digest else {
                            report.stray.append(path)
                            return
                        }
                        present.insert(digest)
                        listed.append(digest)
                    }
                }
            } catch let error as BlobStoreError where error.isListing { unread(error, "the folder of photos") }
            do {
                report.trash = try trashSummary()
            } catch let error as BlobStoreError where error.isListing { unread(error, "the trash") }
        }
        if let wanted {
            // What is in a folder that could not be read is unknown, not missing.
            let unknown = unreadFolders.contains(blobsPath) ? wanted
                : wanted.filter { unreadFolders.contains(directory(for: $0)) }
            report.missing = wanted.subtracting(present).subtracting(unknown).sorted()
            report.unexpected = present.subtracting(wanted).sorted()
            report.inTrash = report.missing.filter(trashContains)
        }
        report.stray.sort()
        report.temporary.sort()
        if quick {
            // Nothing is read, but an emptied file is seen from its size (only the empty value's
            // own blob may be empty).
            for digest in listed where digest != BlobStore.emptyDigest {
                var info = stat()
                if stat(path(for: digest), &info) == 0 && info.st_size == 0 { report.corrupt.append(digest) }
            }
            report.corrupt.sort()
            return report
        }
        let toCheck = only.map { set in listed.filter { set.contains($0) } } ?? listed
        let results = NSLock()
        try concurrentForEach(toCheck.count, jobs: jobs) { i in
            let digest = toCheck[i]
            var size: Int64 = 0
            var corrupt = false
            var unreadable: String?
            do {
                try read(digest, verify: true) { size += Int64($0.count) }
            } catch BlobStoreError.corrupt {
                corrupt = true
            } catch BlobStoreError.missing {
                return  // removed since the listing: by then nothing referenced it
            } catch let error as BlobStoreError {
                // Listed but not readable (a folder its owner cannot enter, a file of mode 0): said, not a stop.
                unreadable = "\(path(for: digest)) cannot be read (\(error.localizedDescription)): it was not checked"
            }
            results.lock()
            defer { results.unlock() }
            if let unreadable {
                report.unreadable.append(unreadable)
                return
            }
            if corrupt { report.corrupt.append(digest) }
            report.checked += 1
            report.bytesChecked += size
            progress?(report.checked, toCheck.count, report.bytesChecked)
        }
        report.corrupt.sort()
        return report
    }
}
