import Foundation
import OpenSwiftData

/// Full-text search over titles, notes and file names with SQLite's FTS5 (accents and case
/// ignored: `unicode61 remove_diacritics 2`). Triggers keep it in step with the Memory and
/// MemoryImage tables inside the same transactions, so it can never disagree with them.
enum SearchIndex {
    static func install(on context: ModelContext) throws {
        try context.execute("""
        CREATE VIRTUAL TABLE IF NOT EXISTS memory_search USING fts5(
            text, memory UNINDEXED, image UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
        CREATE TRIGGER IF NOT EXISTS memory_search_memory_insert AFTER INSERT ON "Memory" BEGIN
            INSERT INTO memory_search (text, memory, image) VALUES (NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
        END;
        CREATE TRIGGER IF NOT EXISTS memory_search_memory_update AFTER UPDATE OF "title", "notes" ON "Memory" BEGIN
            DELETE FROM memory_search WHERE memory = OLD."_pk" AND image IS NULL;
            INSERT INTO memory_search (text, memory, image) VALUES (NEW."title" || ' ' || NEW."notes", NEW."_pk", NULL);
        END;
        CREATE TRIGGER IF NOT EXISTS memory_search_memory_delete AFTER DELETE ON "Memory" BEGIN
            DELETE FROM memory_search WHERE memory = OLD."_pk";
        END;
        CREATE TRIGGER IF NOT EXISTS memory_search_image_insert AFTER INSERT ON "MemoryImage" BEGIN
            INSERT INTO memory_search (text, memory, image) VALUES (NEW."filename", NEW."memory", NEW."_pk");
        END;
        CREATE TRIGGER IF NOT EXISTS memory_search_image_update AFTER UPDATE OF "filename", "memory" ON "MemoryImage" BEGIN
            DELETE FROM memory_search WHERE image = OLD."_pk";
            INSERT INTO memory_search (text, memory, image) VALUES (NEW."filename", NEW."memory", NEW."_pk");
        END;
        CREATE TRIGGER IF NOT EXISTS memory_search_image_delete AFTER DELETE ON "MemoryImage" BEGIN
            DELETE FROM memory_search WHERE image = OLD."_pk";
        END;
        """)
    }

    /// An FTS5 query matching every word of `text` as a prefix: `rom 2024` → `"rom"* "2024"*`.
    static func matchQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation && $0 != "'" })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
