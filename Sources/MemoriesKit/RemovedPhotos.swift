import Foundation
import OpenSwiftData

/// The photos removed from each memory, by SHA-256 (`removed_photo`, beside the model's tables),
/// so that curation lasts: an import of any folder does not put a removed photo back into its
/// memory (it counts it as "removed earlier"), unless asked (`--include-removed`, which adds it
/// and forgets the removal). A memory's rows go with it (a trigger on its table).
enum RemovedPhotos {
    static let table = "removed_photo"

    static func install(on context: ModelContext) throws { try context.installOnce(table, LibrarySQL.createRemoved(table)) }

    static func exists(in context: ModelContext) throws -> Bool { try context.tableExists(table) }

    /// The SHA-256 of every photo removed from the memory whose key is `memory`.
    static func digests(of memory: Int64, in context: ModelContext) throws -> Set<String> {
        guard try exists(in: context) else { return [] }
        return Set(try context.query("SELECT sha256 FROM \(table) WHERE memory = ?", [.integer(memory)]).compactMap { $0.first?.stringValue })
    }

    /// The keys of the memories the photo `sha256` was removed from.
    static func memories(removing sha256: String, in context: ModelContext) throws -> [Int64] {
        guard try exists(in: context) else { return [] }
        return try context.query("SELECT memory FROM \(table) WHERE sha256 = ?", [.text(sha256)]).compactMap { $0.first?.int64Value }
    }

    /// Remembers these photos as removed from `memory` (run in the caller's transaction).
    static func record(_ photos: [(sha256: String, filename: String)], memory: Int64, in context: ModelContext) throws {
        let now = Date().timeIntervalSince1970
        for photo in photos {
            try context.execute("INSERT OR REPLACE INTO \(table) (memory, sha256, filename, removed) VALUES (?, ?, ?, ?)",
                                [.integer(memory), .text(photo.sha256), .text(photo.filename), .real(now)])
        }
    }

    /// Forgets that these photos were removed from `memory` (they are in it again; run in the
    /// caller's transaction).
    static func forget(_ digests: some Collection<String>, memory: Int64, in context: ModelContext) throws {
        guard !digests.isEmpty, try exists(in: context) else { return }
        for sha256 in digests {
            try context.execute("DELETE FROM \(table) WHERE memory = ? AND sha256 = ?", [.integer(memory), .text(sha256)])
        }
    }

    /// Gives the removals of memory `source` to `target`, but for photos `target` holds (a merge;
    /// run in the caller's transaction).
    static func carry(from source: Int64, to target: Int64, in context: ModelContext) throws {
        guard try exists(in: context) else { return }
        try context.execute(LibrarySQL.carryRemovals(table), [.integer(target), .integer(source), .integer(target)])
    }
}
