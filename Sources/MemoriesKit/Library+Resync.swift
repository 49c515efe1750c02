import BlobStore
import Foundation
import OpenSwiftData

/// What a re-sync need not read: the files the library's record (`SourceIndex`) says are unchanged
/// since an import read them, and whether a memory's photos are whole in the store.
extension Library {
    /// The files to read: all but those the library's record says are unchanged since it read
    /// them, and are photos `memory` holds (`holding`) whose stored copies are there, photos
    /// removed from it (`removed`), or files that are not photos. Those are counted in `report` as if read. Not used when the photo store is
    /// empty (its photos deleted): every file is read, and puts back what it can.
    func skipUnchanged(_ files: [FileWalker.Entry], holding: Set<String>, removed: Set<String>, stored: (String) -> Bool,
                       report: inout ImportReport) throws -> [FileWalker.Entry] {
        guard emptiedStoreNote == nil else { return files }
        let recorded = try SourceIndex.lookup(files.map(\.key), in: context)
        guard !recorded.isEmpty else { return files }
        return files.filter { file in
            guard file.timesKept, let entry = recorded[file.key], entry.matches(file.identity) else { return true }
            if let sha256 = entry.sha256 {
                if removed.contains(sha256) && !holding.contains(sha256) {
                    report.unchanged += 1
                    report.removedEarlier += 1
                    return false
                }
                guard holding.contains(sha256), stored(sha256) else { return true }
                report.unchanged += 1
                report.duplicates += 1
                report.alreadyInMemory += 1
                return false
            }
            // Skipped under this version's rules only: a kind of file it now imports is read.
            guard let reason = entry.skipped, entry.rules == SourceIndex.rules else { return true }
            report.unchanged += 1
            report.skipped += 1
            report.skippedFiles.append(.init(path: file.display, reason: reason))
            return false
        }
    }

    /// Whether a photo of `memory` (by SHA-256) has its original and thumbnail in the store. In a
    /// folder of photos a missing one costs a stat to find, and the file is read to put it back; a
    /// bucket's would cost a request each, and is left to `verify`, `repair` and `import --rehash`.
    func storedWhole(of memory: Memory?) throws -> @Sendable (String) -> Bool {
        try storedWhole(of: memory.map { [$0] } ?? [])
    }

    /// `storedWhole(of:)` for the photos of several memories (the events of a roll).
    func storedWhole(of memories: [Memory]) throws -> @Sendable (String) -> Bool {
        guard let local = blobs as? BlobStore else { return { _ in true } }
        var digests: [String: BlobDigest?] = [:]
        for memory in memories { digests.merge(try thumbnailDigests(of: memory)) { first, _ in first } }
        let thumbnails = digests
        return { sha256 in
            guard let original = BlobDigest(hex: sha256), local.contains(original) else { return false }
            guard let thumbnail = thumbnails[sha256] else { return true }
            return thumbnail.map(local.contains) ?? false
        }
    }

    /// The thumbnail digest of each photo of `memory`, by the photo's SHA-256 (nil: unreadable).
    func thumbnailDigests(of memory: Memory) throws -> [String: BlobDigest?] {
        var digests: [String: BlobDigest?] = [:]
        for row in try context.query(LibrarySQL.thumbnailsOfMemory, [.integer(memory.persistentModelID.primaryKey)]) where row.count == 2 {
            guard let sha256 = row[0].stringValue else { continue }
            digests[sha256] = row[1].stringValue.flatMap { BlobDigest(hex: $0) }
        }
        return digests
    }
}
