import Foundation
import OpenSwiftData

/// Each memory's photo count and byte total, kept by triggers in `memory_stats` inside the same
/// transactions as the rows they count, so that `list` reads 20,000 rows instead of aggregating a
/// million. A library made before the table existed gets it filled from its rows when it is next
/// opened for writing; a read-only open of such a library counts the rows instead.
enum MemoryStats {
    static let table = "memory_stats"

    static func install(on context: ModelContext) throws {
        guard try !exists(in: context) else { return }
        // Two processes opening an old library at once fill it once.
        try context.immediateTransaction {
            if try !exists(in: context) {
                try context.execute("""
                CREATE TABLE \(table) (memory INTEGER PRIMARY KEY, photos INTEGER NOT NULL, bytes INTEGER NOT NULL);
                INSERT INTO \(table) (memory, photos, bytes)
                    SELECT "memory", count(*), coalesce(sum("byteCount"), 0) FROM "MemoryImage" WHERE "memory" IS NOT NULL GROUP BY "memory";
                CREATE TRIGGER \(table)_insert AFTER INSERT ON "MemoryImage" WHEN NEW."memory" IS NOT NULL BEGIN
                    INSERT INTO \(table) (memory, photos, bytes) VALUES (NEW."memory", 1, NEW."byteCount")
                        ON CONFLICT (memory) DO UPDATE SET photos = photos + 1, bytes = bytes + NEW."byteCount";
                END;
                CREATE TRIGGER \(table)_delete AFTER DELETE ON "MemoryImage" WHEN OLD."memory" IS NOT NULL BEGIN
                    UPDATE \(table) SET photos = photos - 1, bytes = bytes - OLD."byteCount" WHERE memory = OLD."memory";
                END;
                CREATE TRIGGER \(table)_update AFTER UPDATE OF "memory", "byteCount" ON "MemoryImage" BEGIN
                    UPDATE \(table) SET photos = photos - 1, bytes = bytes - OLD."byteCount" WHERE memory = OLD."memory";
                    INSERT INTO \(table) (memory, photos, bytes) SELECT NEW."memory", 1, NEW."byteCount" WHERE NEW."memory" IS NOT NULL
                        ON CONFLICT (memory) DO UPDATE SET photos = photos + 1, bytes = bytes + NEW."byteCount";
                END;
                CREATE TRIGGER \(table)_memory_delete AFTER DELETE ON "Memory" BEGIN
                    DELETE FROM \(table) WHERE memory = OLD."_pk";
                END;
                """)
            }
        }
    }

    static func exists(in context: ModelContext) throws -> Bool {
        try context.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]).first?.first == .integer(1)
    }
}
