import BlobStore
import Foundation
import OpenSwiftData

/// `gc`'s report, as printed with `--json`.
public struct GCReport: Codable, Equatable {
    public var orphanBlobs: Int
    public var bytesFreed: Int64
    public var tempFilesRemoved: Int
    public var dryRun: Bool
}

/// `verify`'s report, as printed with `--json`.
public struct VerifyReport: Codable, Equatable {
    public var ok: Bool
    public var blobsChecked: Int
    public var missing: [String]
    public var corrupt: [String]
    public var orphans: Int
    public var database: String
}

extension Library {
    /// Deletes a memory: its rows first (one transaction, its images by cascade), then every blob
    /// no longer referenced.
    public func delete(_ memory: Memory) throws {
        context.delete(memory)
        try context.save()
    }

    /// Removes orphan blobs and abandoned temp files. Safe while another process imports: the
    /// blob store's lock keeps a sweep out of any put-to-commit window.
    public func collectGarbage(dryRun: Bool, gracePeriod: TimeInterval = 0) throws -> GCReport {
        let report = try container.collectGarbage(gracePeriod: gracePeriod, dryRun: dryRun)
        return GCReport(orphanBlobs: report.orphanBlobs, bytesFreed: report.bytesFreed, tempFilesRemoved: report.tempFilesRemoved, dryRun: dryRun)
    }

    /// SQLite's integrity check, and every referenced blob present with the right hash.
    public func verify(progress: ((Int, Int64) -> Void)? = nil) throws -> VerifyReport {
        let integrity: String
        do {
            integrity = try context.query("PRAGMA integrity_check").compactMap { $0.first?.stringValue }.joined(separator: "; ")
        } catch {
            integrity = "\(error)"
        }
        let blobs = try container.verifyExternalStorage(progress: progress)
        return VerifyReport(ok: integrity == "ok" && blobs.isHealthy, blobsChecked: blobs.checked,
                            missing: blobs.missing.map(\.hex), corrupt: blobs.corrupt.map(\.hex),
                            orphans: blobs.unexpected.count, database: integrity)
    }
}
