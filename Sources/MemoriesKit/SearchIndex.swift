import Foundation
import OpenSwiftData

/// Full-text search over titles, notes and file names with SQLite's FTS5 (accents and case
/// ignored: `unicode61 remove_diacritics 2`). Triggers keep it in step with the Memory and
/// MemoryImage tables inside the same transactions, so it can never disagree with them.
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
                try context.execute("""
                DROP TABLE IF EXISTS memory_search;
                CREATE VIRTUAL TABLE memory_search USING fts5(
                    text, memory UNINDEXED, image UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
                INSERT INTO memory_search (rowid, text, memory, image) SELECT \(memoryRow("")), "title" || ' ' || "notes", "_pk", NULL FROM "Memory";
                INSERT INTO memory_search (rowid, text, memory, image) SELECT \(photoRow("")), "filename", "memory", "_pk" FROM "MemoryImage";
                CREATE TRIGGER \(prefix)memory_insert AFTER INSERT ON "Memory" BEGIN
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(memoryRow("NEW.")), NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
                END;
                CREATE TRIGGER \(prefix)memory_update AFTER UPDATE OF "title", "notes" ON "Memory" BEGIN
                    DELETE FROM memory_search WHERE rowid = \(memoryRow("OLD."));
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(memoryRow("NEW.")), NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
                END;
                CREATE TRIGGER \(prefix)memory_delete AFTER DELETE ON "Memory" BEGIN
                    DELETE FROM memory_search WHERE rowid = \(memoryRow("OLD."));
                END;
                CREATE TRIGGER \(prefix)image_insert AFTER INSERT ON "MemoryImage" BEGIN
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(photoRow("NEW.")), NEW."filename", NEW."memory", NEW."_pk");
                END;
                CREATE TRIGGER \(prefix)image_update AFTER UPDATE OF "filename", "memory" ON "MemoryImage" BEGIN
                    DELETE FROM memory_search WHERE rowid = \(photoRow("OLD."));
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(photoRow("NEW.")), NEW."filename", NEW."memory", NEW."_pk");
                END;
                CREATE TRIGGER \(prefix)image_delete AFTER DELETE ON "MemoryImage" BEGIN
                    DELETE FROM memory_search WHERE rowid = \(photoRow("OLD."));
                END;
                """)
            }
        }
    }

    /// The names of this version's triggers begin with this.
    static let prefix = "memory_search_v3_"

    /// The rowid of a memory's row, from its `_pk` under `table` ("NEW.", "OLD." or "").
    static func memoryRow(_ table: String) -> String { "(\(table)\"_pk\" << 32)" }

    /// The rowid of a photo's row: its memory's key above its own (a photo without a memory: 0 above).
    static func photoRow(_ table: String) -> String { "((coalesce(\(table)\"memory\", 0) << 32) | \(table)\"_pk\")" }

    /// The memories that the matches of an FTS5 query `?` belong to, read from the rowids alone.
    static let matchingMemories = "SELECT rowid >> 32 FROM memory_search WHERE memory_search MATCH ?"

    /// The same from the stored `memory` column: for an index of an older version (a library opened
    /// read-only is not rebuilt), slower on many matches.
    static let matchingMemoriesByColumn = "SELECT memory FROM memory_search WHERE memory_search MATCH ?"

    static func triggers(_ context: ModelContext) throws -> [String] {
        try context.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory\\_search%' ESCAPE '\\'")
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
