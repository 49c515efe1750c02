import Foundation

// Verification: re-hash every blob and report what is missing, corrupt, stray or left over.

extension BlobStore {
    public struct VerifyReport: Equatable, Sendable, Codable {
        /// Blobs re-hashed.
        public var checked = 0
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

        public var isHealthy: Bool { missing.isEmpty && corrupt.isEmpty }

        public init() {}
    }

    /// Re-hashes blobs and reports problems.
    ///
    /// - Parameters:
    ///   - expected: the digests that must be present (say, every referenced one); nil to just check what is there.
    ///   - only: limit re-hashing to these digests (the rest of the tree is still listed).
    ///   - progress: called after each blob with (blobs done, bytes done).
    public func verify(expected: Set<BlobDigest>? = nil, only: Set<BlobDigest>? = nil,
                       progress: ((Int, Int64) -> Void)? = nil) throws -> VerifyReport {
        var report = VerifyReport()
        var present = Set<BlobDigest>()
        try forEachEntry(in: tmpPath) { path, _ in report.temporary.append(path) }
        try forEachBlob { digest, path in
            guard let digest else {
                report.stray.append(path)
                return
            }
            present.insert(digest)
            if let only, !only.contains(digest) { return }
            var size: Int64 = 0
            do {
                try read(digest, verify: true) { size += Int64($0.count) }
            } catch BlobStoreError.corrupt {
                report.corrupt.append(digest)
            }
            report.checked += 1
            report.bytesChecked += size
            progress?(report.checked, report.bytesChecked)
        }
        if let expected {
            report.missing = expected.subtracting(present).sorted()
            report.unexpected = present.subtracting(expected).sorted()
        }
        report.corrupt.sort()
        report.stray.sort()
        report.temporary.sort()
        return report
    }
}
