import Foundation
import OpenSwiftData

/// Full-text search over titles, notes and file names with SQLite's FTS5 (accents and case
/// ignored: `unicode61 remove_diacritics 2`). Triggers keep it in step with the Memory and
/// MemoryImage tables inside the same transactions, so it can never disagree with them. Its SQL is
/// in `LibrarySQL`.
///
/// Each row's FTS rowid names what it indexes and the memory it belongs to: a memory's row is
/// `_pk << 32`, a photo's `memory << 32 | _pk`. That holds for photo keys below 2³² and memory keys
/// below 2³¹ (rowids, handed out from 1: four billion photos); past them rowids would collide. So a
/// trigger removes a row by rowid, and a search finds its memories as `rowid >> 32` from the index
/// alone, without reading a stored column of each match (reading `memory` for the 54,000 matches
/// of "rome" in a library of a million photos took 80 ms, the rowids under 1 ms). The first
/// version deleted `WHERE image = ?`, which FTS5 answers by reading the whole index; the second
/// keyed photos by `_pk` and memories by `-_pk`. A library indexed by either is rebuilt once.
enum SearchIndex {
    static func install(on context: ModelContext) throws {
        guard try !isCurrent(triggers(context)) else { return }
        // Two processes opening an old library at once rebuild it once.
        try context.immediateTransaction {
            let now = try triggers(context)
            if !isCurrent(now) {
                for name in now { try context.execute("DROP TRIGGER \"\(name)\"") }
                try context.execute(LibrarySQL.createSearchIndex(prefix: prefix))
            }
        }
    }

    /// The names of this version's triggers begin with this.
    static let prefix = "memory_search_v3_"

    static func triggers(_ context: ModelContext) throws -> [String] {
        try context.query(LibrarySQL.searchTriggers)
            .compactMap { $0.first?.stringValue }
    }

    /// Whether the index's triggers are the six of this version and no other (an older version, run since, adds its own
    /// beside them: then the index is rebuilt again).
    static func isCurrent(_ names: [String]) -> Bool {
        names.count == 6 && names.allSatisfy { $0.hasPrefix(prefix) }
    }

    /// An FTS5 query matching every word of `text` as a prefix: `rom 2024` → `"rom"* "2024"*`.
    static func matchQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation && $0 != "'" })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
