import BlobStore
import BlobStoreS3
import Foundation
import OpenSwiftData

/// `gc`'s report, as printed with `--json`.
public struct GCReport: Codable, Equatable {
    /// Unused stored files moved to the trash.
    public var orphanBlobs: Int
    /// Their bytes.
    public var orphanBytes: Int64
    /// Their SHA-256s.
    public var orphans: [String]
    /// Trashed files deleted for good (past the grace period, or all with `--prune-now`).
    public var prunedBlobs: Int
    /// Bytes given back to the disk (the pruned files').
    public var bytesFreed: Int64
    /// Files in use again (a restored store) taken back from the trash.
    public var restoredBlobs: Int
    /// Partial writes removed: files left in the temporary folder by interrupted writes; in an
    /// S3 bucket, unfinished multipart uploads over a day old, aborted.
    public var tempFilesRemoved: Int
    /// What the trash holds afterwards.
    public var trashBlobs: Int
    /// Its bytes.
    public var trashBytes: Int64
    /// `--dry-run`: what would be done, nothing done.
    public var dryRun: Bool
    /// Clean-up steps that could not be done (the rest was), each said in words.
    public var warnings: [String] = []
    /// Folders that could not be read, and moves or deletions that failed, each said in words:
    /// nothing depending on them was decided, the figures count only what was done, and `gc`
    /// exits 1.
    public var failures: [String] = []
}

/// `verify`'s report, as printed with `--json`.
public struct VerifyReport: Codable, Equatable {
    /// Healthy: the database whole, nothing missing or corrupt, no problem below.
    public var ok: Bool
    /// Stored files re-hashed (0 with `--quick`).
    public var blobsChecked: Int
    /// Stored files a row needs that are not there (SHA-256s).
    public var missing: [String]
    /// Stored files whose bytes no longer hash to their name (or, with `--quick`, emptied ones).
    public var corrupt: [String]
    /// Of `missing`, those the trash still holds (`memories gc` puts them back).
    public var inTrash: [String]
    /// Stored files no row uses (`gc` moves them to the trash).
    public var orphans: Int
    /// Files in the trash.
    public var trashBlobs: Int
    /// Their bytes.
    public var trashBytes: Int64
    /// SQLite's `integrity_check` (or `quick_check`) answer: "ok" when whole.
    public var database: String
    /// Other reasons the library is not healthy, in words.
    public var problems: [String]
    /// Whether this was `verify --quick`: SQLite's quick_check and every referenced file present,
    /// nothing re-hashed (`blobsChecked` is 0).
    public var quick: Bool
}

extension Library {
    /// Deletes a memory: its rows first (one transaction, its images by cascade), then every blob
    /// no longer referenced.
    public func delete(_ memory: Memory) throws {
        context.delete(memory)
        try context.save()
    }

    /// Moves unused stored files to the trash (and back, those in use again), deletes trashed
    /// files older than `trashGracePeriod` (all with `pruneNow`), and removes abandoned temp files.
    /// Refuses, removing nothing, when the store is damaged, foreign or newer (see
    /// `ModelContainer.referencedBlobDigests`). Safe while another process imports: the blob
    /// store's lock keeps a sweep out of any put-to-commit window.
    public func collectGarbage(dryRun: Bool, pruneNow: Bool = false, trashGracePeriod: TimeInterval = 7 * 86400) throws -> GCReport {
        let report = try container.collectGarbage(gracePeriod: 0, trashGracePeriod: trashGracePeriod, pruneNow: pruneNow, dryRun: dryRun)
        return GCReport(orphanBlobs: report.orphanBlobs, orphanBytes: report.orphanBytes, orphans: report.orphans.map(\.hex), prunedBlobs: report.prunedBlobs,
                        bytesFreed: report.bytesFreed, restoredBlobs: report.restoredBlobs, tempFilesRemoved: report.tempFilesRemoved,
                        trashBlobs: report.trash.count, trashBytes: report.trash.bytes, dryRun: dryRun, warnings: report.warnings,
                        failures: report.failures)
    }

    /// SQLite's integrity check, and every referenced blob present with the right hash. A store
    /// with no record at all beside a folder that holds photos is not healthy either.
    ///
    /// - Parameters:
    ///   - jobs: files re-hashed at once (default: the core count, or 8 for a bucket, where the
    ///     network is the wait).
    ///   - quick: SQLite's `quick_check` instead of `integrity_check`, and every referenced file
    ///     present, by listing; nothing is read or re-hashed.
    ///   - progress: told after each file re-hashed: files done, files in all, bytes so far.
    public func verify(jobs: Int? = nil, quick: Bool = false,
                       progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> VerifyReport {
        let integrity: String
        do {
            integrity = try context.query(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").compactMap { $0.first?.stringValue }.joined(separator: "; ")
        } catch {
            integrity = "\(error)"
        }
        let threads = jobs ?? (container.blobBackend is S3BlobStore ? 8 : ProcessInfo.processInfo.activeProcessorCount)
        let blobs = try container.verifyExternalStorage(jobs: threads, quick: quick, progress: progress)
        var problems: [String] = blobs.unreadable
        if let place = photoStoreMissing {
            problems.append("the photo store \(place) is gone (moved, deleted, or not mounted), so every photo is missing: restore it from a "
                            + "backup (or mount it), or run `memories repair FOLDER…` with the folders the photos came from")
        }
        // No record at all beside stored files: a store that lost its rows (restored from a backup
        // made before its photos). A killed first import, or deleting every memory, leaves files
        // no photo names too, but also its record of the files imported (`SourceIndex`): those
        // are unreferenced files, for gc.
        let rows = try context.fetchCount(FetchDescriptor<MemoryImage>()) + context.fetchCount(FetchDescriptor<Memory>())
        let imported = try SourceIndex.hasRows(in: context)
        if rows == 0 && !blobs.unexpected.isEmpty && !imported {
            problems.append("the store has no photos but its folder holds \(blobs.unexpected.count) stored files: if photos are missing from "
                            + "`memories list`, restore library.store from a backup; if not, `memories gc` moves the files to the trash")
        }
        // Every photo's original is the blob its SHA-256 column names (export refuses it otherwise).
        let homeless = try context.query(LibrarySQL.photosInNoMemory).compactMap { $0.first?.stringValue }
        if !homeless.isEmpty {
            problems.append("\(homeless.count) photo\(homeless.count == 1 ? "" : "s") belong\(homeless.count == 1 ? "s" : "") to no memory, so no command shows "
                            + "\(homeless.count == 1 ? "it" : "them") (\(homeless.prefix(5).joined(separator: ", "))\(homeless.count > 5 ? ", …" : "")): their stored files are "
                            + "kept; importing the folders they came from puts them back in a memory")
        }
        for row in try context.query(LibrarySQL.photosWithoutTheirOriginal) {
            problems.append("\(row[0].stringValue ?? "?") in '\(row[1].stringValue ?? "?")' has no stored original, or not the one its SHA-256 names: "
                            + "export refuses it; `memories remove` it and import the photo again")
        }
        if !blobs.inTrash.isEmpty {
            problems.append("\(blobs.inTrash.count) missing photos are in the trash: `memories gc` puts them back")
        }
        // Rows with a key below 1 (another program wrote them): OpenSwiftData refuses to read them,
        // so the memories and photos they are would be missing from every command.
        for (model, table) in [("memories", LibrarySQL.memory), ("photos", LibrarySQL.image)] {
            let count = try context.query(LibrarySQL.rowsWithoutAKey(in: table)).first?.first?.int64Value ?? 0
            if count > 0 {
                problems.append("rows of \(model) with a key below 1 (written by another program) cannot be read: \(count) in table "
                                + "\(table.trimmingCharacters(in: ["\""])); "
                                + "give them positive keys (`_pk`), or restore library.store from a backup")
            }
        }
        return VerifyReport(ok: integrity == "ok" && blobs.isHealthy && problems.isEmpty, blobsChecked: blobs.checked,
                            missing: blobs.missing.map(\.hex), corrupt: blobs.corrupt.map(\.hex), inTrash: blobs.inTrash.map(\.hex),
                            orphans: blobs.unexpected.count, trashBlobs: blobs.trash.count, trashBytes: blobs.trash.bytes,
                            database: integrity, problems: problems, quick: quick)
    }
}

extension Library {
    /// A stored file for people: its SHA-256 and the photos (file name and memory) it is the
    /// original or the thumbnail of.
    public func describeBlob(_ hex: String) throws -> String {
        let images = try context.fetch(FetchDescriptor<MemoryImage>(predicate: #Predicate { $0.sha256 == hex }))
        if !images.isEmpty {
            return "\(hex) (the photo \(images.map { "\($0.filename) in '\($0.memory?.title ?? "?")'" }.joined(separator: ", ")))"
        }
        let thumbnails = try thumbnailOwners(hex)
        if !thumbnails.isEmpty { return "\(hex) (the thumbnail of \(thumbnails.map(\.description).joined(separator: ", ")))" }
        return "\(hex) (a file no photo uses)"
    }

    /// The photos whose thumbnail is the stored file `hex`: (row key, "file in 'memory'").
    func thumbnailOwners(_ hex: String) throws -> [(key: Int64, description: String)] {
        try context.query(LibrarySQL.thumbnailOwners, [.text(hex)]).map { row in
            (row[0].int64Value ?? 0, "\(row[1].stringValue ?? "?") in '\(row[2].stringValue ?? "?")'")
        }
    }
}
