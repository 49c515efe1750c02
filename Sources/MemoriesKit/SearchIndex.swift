import Foundation
import OpenSwiftData

/// Full-text search over titles, notes and file names with SQLite's FTS5 (accents and case
/// ignored: `unicode61 remove_diacritics 2`). Triggers keep it in step with the Memory and
/// MemoryImage tables inside the same transactions, so it can never disagree with them.
///
/// Each row's FTS rowid names what it indexes: a photo's is its `_pk`, a memory's the negative of
/// its `_pk`, so a trigger removes a row by rowid. (The first version deleted `WHERE image = ?`,
/// which FTS5 answers by reading the whole index: deleting a 5,000-photo memory from a library of a
/// million photos read it 5,000 times.) A library with that version's index is rebuilt once.
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
                INSERT INTO memory_search (rowid, text, memory, image) SELECT -"_pk", "title" || ' ' || "notes", "_pk", NULL FROM "Memory";
                INSERT INTO memory_search (rowid, text, memory, image) SELECT "_pk", "filename", "memory", "_pk" FROM "MemoryImage";
                CREATE TRIGGER memory_search_v2_memory_insert AFTER INSERT ON "Memory" BEGIN
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (-NEW."_pk", NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
                END;
                CREATE TRIGGER memory_search_v2_memory_update AFTER UPDATE OF "title", "notes" ON "Memory" BEGIN
                    DELETE FROM memory_search WHERE rowid = -OLD."_pk";
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (-NEW."_pk", NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
                END;
                CREATE TRIGGER memory_search_v2_memory_delete AFTER DELETE ON "Memory" BEGIN
                    DELETE FROM memory_search WHERE rowid = -OLD."_pk";
                END;
                CREATE TRIGGER memory_search_v2_image_insert AFTER INSERT ON "MemoryImage" BEGIN
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (NEW."_pk", NEW."filename", NEW."memory", NEW."_pk");
                END;
                CREATE TRIGGER memory_search_v2_image_update AFTER UPDATE OF "filename", "memory" ON "MemoryImage" BEGIN
                    DELETE FROM memory_search WHERE rowid = OLD."_pk";
                    INSERT INTO memory_search (rowid, text, memory, image) VALUES (NEW."_pk", NEW."filename", NEW."memory", NEW."_pk");
                END;
                CREATE TRIGGER memory_search_v2_image_delete AFTER DELETE ON "MemoryImage" BEGIN
                    DELETE FROM memory_search WHERE rowid = OLD."_pk";
                END;
                """)
            }
        }
    }

    static func triggers(_ context: ModelContext) throws -> [String] {
        try context.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory\\_search%' ESCAPE '\\'")
            .compactMap { $0.first?.stringValue }
    }

    /// Whether the index's triggers are the six of this version and no other (an older version, run since, adds its own
    /// beside them: then the index is rebuilt again).
    static func isCurrent(_ names: [String]) -> Bool {
        names.count == 6 && names.allSatisfy { $0.hasPrefix("memory_search_v2_") }
    }

    /// An FTS5 query matching every word of `text` as a prefix: `rom 2024` → `"rom"* "2024"*`.
    static func matchQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation && $0 != "'" })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
