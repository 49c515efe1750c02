import Foundation
import OpenSwiftData

/// The journal's own SQL beside OpenSwiftData's, in one place: the search index and the counts
/// (tables kept by triggers in the same transactions as the rows), the list query, and the few
/// single-statement updates the import needs to be safe against other processes. Every model
/// table and column is named through `SQLNames`, never by a string the schema already knows; the
/// tables this file makes (`memory_search`, `memory_stats`) are its own. (`MemoriesSchema`'s
/// migration stages keep their SQL as written: it describes schema versions that no longer change.)
enum LibrarySQL {
    static let memory = SQLNames.table(Memory.self)
    static let image = SQLNames.table(MemoryImage.self)
    static let key = SQLNames.primaryKey
    static let title = SQLNames.column(\Memory.title)
    static let notes = SQLNames.column(\Memory.notes)
    static let date = SQLNames.column(\Memory.date)
    static let createdAt = SQLNames.column(\Memory.createdAt)
    static let memoryID = SQLNames.column(\Memory.id)
    static let filename = SQLNames.column(\MemoryImage.filename)
    static let imageMemory = SQLNames.column(\MemoryImage.memory)
    static let byteCount = SQLNames.column(\MemoryImage.byteCount)
    static let takenAt = SQLNames.column(\MemoryImage.takenAt)
    static let takenAtOffset = SQLNames.column(\MemoryImage.takenAtOffset)
    static let fileModifiedAt = SQLNames.column(\MemoryImage.fileModifiedAt)
    static let sha256 = SQLNames.column(\MemoryImage.sha256)
    static let thumbnailData = SQLNames.column(\MemoryImage.thumbnailData)
    static let imageData = SQLNames.column(\MemoryImage.imageData)

    // MARK: Search index (see `SearchIndex` for the design of its rowids)

    /// The rowid of a memory's row in the index, from its key under `row` ("NEW.", "OLD." or "").
    static func memoryRowID(_ row: String) -> String { "(\(row)\(key) << 32)" }

    /// The rowid of a photo's row: its memory's key above its own (a photo without a memory: 0 above).
    static func photoRowID(_ row: String) -> String { "((coalesce(\(row)\(imageMemory), 0) << 32) | \(row)\(key))" }

    /// The index, filled from the rows, and the six triggers (names beginning with `prefix`) that keep it.
    static func createSearchIndex(prefix: String) -> String {
        let memoryText = { (row: String) in "\(row)\(title) || ' ' || \(row)\(notes)" }
        return """
        DROP TABLE IF EXISTS memory_search;
        CREATE VIRTUAL TABLE memory_search USING fts5(
            text, memory UNINDEXED, image UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO memory_search (rowid, text, memory, image) SELECT \(memoryRowID("")), \(memoryText("")), \(key), NULL FROM \(memory);
        INSERT INTO memory_search (rowid, text, memory, image) SELECT \(photoRowID("")), \(filename), \(imageMemory), \(key) FROM \(image);
        CREATE TRIGGER \(prefix)memory_insert AFTER INSERT ON \(memory) BEGIN
            INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(memoryRowID("NEW.")), \(memoryText("NEW.")), NEW.\(key), NULL);
        END;
        CREATE TRIGGER \(prefix)memory_update AFTER UPDATE OF \(title), \(notes) ON \(memory) BEGIN
            DELETE FROM memory_search WHERE rowid = \(memoryRowID("OLD."));
            INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(memoryRowID("NEW.")), \(memoryText("NEW.")), NEW.\(key), NULL);
        END;
        CREATE TRIGGER \(prefix)memory_delete AFTER DELETE ON \(memory) BEGIN
            DELETE FROM memory_search WHERE rowid = \(memoryRowID("OLD."));
        END;
        CREATE TRIGGER \(prefix)image_insert AFTER INSERT ON \(image) BEGIN
            INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(photoRowID("NEW.")), NEW.\(filename), NEW.\(imageMemory), NEW.\(key));
        END;
        CREATE TRIGGER \(prefix)image_update AFTER UPDATE OF \(filename), \(imageMemory) ON \(image) BEGIN
            DELETE FROM memory_search WHERE rowid = \(photoRowID("OLD."));
            INSERT INTO memory_search (rowid, text, memory, image) VALUES (\(photoRowID("NEW.")), NEW.\(filename), NEW.\(imageMemory), NEW.\(key));
        END;
        CREATE TRIGGER \(prefix)image_delete AFTER DELETE ON \(image) BEGIN
            DELETE FROM memory_search WHERE rowid = \(photoRowID("OLD."));
        END;
        """
    }

    /// The memories that the matches of an FTS5 query `?` belong to, read from the rowids alone.
    static let matchingMemories = "SELECT rowid >> 32 FROM memory_search WHERE memory_search MATCH ?"

    /// The same from the stored `memory` column: for an index of an older version (a library opened
    /// read-only is not rebuilt), slower on many matches.
    static let matchingMemoriesByColumn = "SELECT memory FROM memory_search WHERE memory_search MATCH ?"

    /// The names of the search index's triggers, of any version.
    static let searchTriggers = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory\\_search%' ESCAPE '\\'"

    // MARK: Counts (see `MemoryStats`)

    /// The counts table, filled from the rows, and the triggers that keep it.
    static func createStats(_ table: String) -> String {
        """
        CREATE TABLE \(table) (memory INTEGER PRIMARY KEY, photos INTEGER NOT NULL, bytes INTEGER NOT NULL);
        INSERT INTO \(table) (memory, photos, bytes)
            SELECT \(imageMemory), count(*), coalesce(sum(\(byteCount)), 0) FROM \(image) WHERE \(imageMemory) IS NOT NULL GROUP BY \(imageMemory);
        CREATE TRIGGER \(table)_insert AFTER INSERT ON \(image) WHEN NEW.\(imageMemory) IS NOT NULL BEGIN
            INSERT INTO \(table) (memory, photos, bytes) VALUES (NEW.\(imageMemory), 1, NEW.\(byteCount))
                ON CONFLICT (memory) DO UPDATE SET photos = photos + 1, bytes = bytes + NEW.\(byteCount);
        END;
        CREATE TRIGGER \(table)_delete AFTER DELETE ON \(image) WHEN OLD.\(imageMemory) IS NOT NULL BEGIN
            UPDATE \(table) SET photos = photos - 1, bytes = bytes - OLD.\(byteCount) WHERE memory = OLD.\(imageMemory);
        END;
        CREATE TRIGGER \(table)_update AFTER UPDATE OF \(imageMemory), \(byteCount) ON \(image) BEGIN
            UPDATE \(table) SET photos = photos - 1, bytes = bytes - OLD.\(byteCount) WHERE memory = OLD.\(imageMemory);
            INSERT INTO \(table) (memory, photos, bytes) SELECT NEW.\(imageMemory), 1, NEW.\(byteCount) WHERE NEW.\(imageMemory) IS NOT NULL
                ON CONFLICT (memory) DO UPDATE SET photos = photos + 1, bytes = bytes + NEW.\(byteCount);
        END;
        CREATE TRIGGER \(table)_memory_delete AFTER DELETE ON \(memory) BEGIN
            DELETE FROM \(table) WHERE memory = OLD.\(key);
        END;
        """
    }

    /// The photos removed from each memory (see `RemovedPhotos`), and the trigger that forgets a
    /// deleted memory's.
    static func createRemoved(_ table: String) -> String {
        """
        CREATE TABLE \(table) (memory INTEGER NOT NULL, sha256 TEXT NOT NULL, filename TEXT NOT NULL, removed REAL NOT NULL,
            PRIMARY KEY (memory, sha256)) WITHOUT ROWID;
        CREATE TRIGGER \(table)_memory_delete AFTER DELETE ON \(memory) BEGIN
            DELETE FROM \(table) WHERE memory = OLD.\(key);
        END;
        """
    }

    /// Copies the removals of memory `?2` to memory `?1`, but for photos memory `?3` (the same as
    /// `?1`) holds.
    static func carryRemovals(_ table: String) -> String {
        """
        INSERT OR IGNORE INTO \(table) (memory, sha256, filename, removed)
            SELECT ?1, r.sha256, r.filename, r.removed FROM \(table) r
            WHERE r.memory = ?2 AND r.sha256 NOT IN (SELECT \(sha256) FROM \(image) WHERE \(imageMemory) = ?3)
        """
    }

    /// The folders memories were imported from (see `SourceFolders`), and the trigger that
    /// forgets a deleted memory's.
    static func createSourceFolders(_ table: String) -> String {
        """
        CREATE TABLE \(table) (path BLOB PRIMARY KEY NOT NULL, memory INTEGER NOT NULL) WITHOUT ROWID;
        CREATE INDEX \(table)_memory ON \(table) (memory);
        CREATE TRIGGER \(table)_memory_delete AFTER DELETE ON \(memory) BEGIN
            DELETE FROM \(table) WHERE memory = OLD.\(key);
        END;
        """
    }

    /// The memories `import --by-event` made from camera rolls (see `SourceEvents`), by id, and the
    /// trigger that forgets a deleted memory's.
    static func createSourceEvents(_ table: String) -> String {
        """
        CREATE TABLE \(table) (roll BLOB NOT NULL, memory TEXT NOT NULL, given TEXT NOT NULL,
            PRIMARY KEY (roll, memory)) WITHOUT ROWID;
        CREATE INDEX \(table)_memory ON \(table) (memory);
        CREATE TRIGGER \(table)_memory_delete AFTER DELETE ON \(memory) BEGIN
            DELETE FROM \(table) WHERE memory = OLD.\(memoryID);
        END;
        """
    }

    /// The key of each memory made from the rolls `marks` binds, and the title it was given.
    static func eventsOfRolls(_ table: String, marks: String) -> String {
        "SELECT m.\(key), e.given FROM \(table) e JOIN \(memory) m ON m.\(memoryID) = e.memory WHERE e.roll IN (\(marks)) ORDER BY m.\(key)"
    }

    /// The key of each memory made from any roll, and the title it was given.
    static func allEvents(_ table: String) -> String {
        "SELECT m.\(key), e.given FROM \(table) e JOIN \(memory) m ON m.\(memoryID) = e.memory ORDER BY m.\(key)"
    }

    /// The keys of the memories holding the photo whose SHA-256 is `?` (by its original's digest,
    /// which the external-storage column's index finds).
    static let memoriesHoldingPhoto = "SELECT \(imageMemory) FROM \(image) WHERE \(imageData) = ?1 AND \(sha256) = ?1"

    /// The capture time, its offset and the file's modification time of each photo of memory `?`.
    static let timesOfMemory = "SELECT \(takenAt), \(takenAtOffset), \(fileModifiedAt) FROM \(image) WHERE \(imageMemory) = ?"

    static let tableExists = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"

    /// The file names of photos that belong to no memory (no command makes them; another program,
    /// or a version whose merge raced an import, could).
    static let photosInNoMemory = "SELECT \(filename) FROM \(image) WHERE \(imageMemory) IS NULL ORDER BY \(filename)"

    // MARK: Listing

    /// Memories newest first with their photo count and bytes: from the counts table `stats`, or,
    /// when it is nil (a library opened read-only before it existed), by counting the photos.
    /// `conditions` are on `m` (the memory), joined by AND.
    static func list(conditions: [String], stats: String?) -> String {
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // `NOT INDEXED`: with the join, SQLite 3.40 chose to walk the memories through the unique
        // index on their identifiers, looking every row up by rowid in identifier order, 2-3x
        // slower than reading the table (20,000 memories: 0.07 s against 0.02-0.03 s in sqlite3).
        // No index helps this query (it reads every memory and sorts by date); a search still
        // finds its memories by rowid, which NOT INDEXED allows. An index on the date, if one is
        // ever made for `--since`/`--until`, would need this clause gone.
        if let stats {
            return """
            SELECT m.\(memoryID), m.\(title), m.\(date), coalesce(s.photos, 0), coalesce(s.bytes, 0)
            FROM \(memory) m NOT INDEXED LEFT JOIN \(stats) s ON s.memory = m.\(key)
            \(filter) ORDER BY m.\(date) DESC, m.\(key) DESC
            """
        }
        return """
        SELECT m.\(memoryID), m.\(title), m.\(date), count(i.\(key)), coalesce(sum(i.\(byteCount)), 0)
        FROM \(memory) m NOT INDEXED LEFT JOIN \(image) i ON i.\(imageMemory) = m.\(key)
        \(filter) GROUP BY m.\(key) ORDER BY m.\(date) DESC, m.\(key) DESC
        """
    }

    static let dateFrom = "m.\(date) >= ?"
    static let dateBefore = "m.\(date) < ?"
    static func memoryIn(_ query: String) -> String { "m.\(key) IN (\(query))" }

    // MARK: Import and maintenance

    /// Deletes the memory with key `?1` unless a photo reached it (another import of the same title).
    static let deleteIfEmpty = "DELETE FROM \(memory) WHERE \(key) = ?1 AND NOT EXISTS (SELECT 1 FROM \(image) WHERE \(imageMemory) = ?1)"

    static let memoryExists = "SELECT 1 FROM \(memory) WHERE \(key) = ?"

    /// The capture times of the photos of the memory with key `?`, with their offsets (NULL: the
    /// camera's clock, no zone recorded).
    static let captureTimesOfMemory = "SELECT \(takenAt), \(takenAtOffset) FROM \(image) WHERE \(imageMemory) = ? AND \(takenAt) IS NOT NULL"

    /// Sets the date of the memory with key `?1` to `?2` if its date was never set (it still
    /// equals its creation time), so a date set by `edit` in another process is never overwritten.
    static let dateIfNeverSet = "UPDATE \(memory) SET \(date) = ?2 WHERE \(key) = ?1 AND \(date) = \(createdAt)"

    /// One row when the library has a photo.
    static let anyPhoto = "SELECT 1 FROM \(image) LIMIT 1"

    /// How many photos the memory with key `?` holds.
    static let photoCount = "SELECT count(*) FROM \(image) WHERE \(imageMemory) = ?"

    /// Whether the photo with key `?` is still there.
    static let photoExists = "SELECT 1 FROM \(image) WHERE \(key) = ?"

    /// The SHA-256 column of the photos of the memory with key `?`.
    static let digestsOfMemory = "SELECT \(sha256) FROM \(image) WHERE \(imageMemory) = ?"

    /// The SHA-256 and thumbnail digest of each photo of the memory with key `?`.
    static let thumbnailsOfMemory = "SELECT \(sha256), \(thumbnailData) FROM \(image) WHERE \(imageMemory) = ?"

    /// The thumbnail digest of the photo of memory `?1` whose SHA-256 is `?2`.
    static let thumbnailOfPhoto = "SELECT \(thumbnailData) FROM \(image) WHERE \(imageMemory) = ?1 AND \(sha256) = ?2"

    /// Photos whose stored original is missing or is not the blob their SHA-256 column names
    /// (export refuses them): file name, memory title.
    static let photosWithoutTheirOriginal = """
        SELECT i.\(filename), m.\(title) FROM \(image) i LEFT JOIN \(memory) m ON m.\(key) = i.\(imageMemory)
        WHERE i.\(imageData) IS NULL OR i.\(imageData) != i.\(sha256)
        """

    /// How many rows of `table` have a key below 1 (written by another program: OpenSwiftData
    /// refuses to read them).
    static func rowsWithoutAKey(in table: String) -> String { "SELECT count(*) FROM \(table) WHERE \(key) < 1" }

    /// The photos whose thumbnail is the blob `?`: key, file name, memory title.
    static let thumbnailOwners = """
        SELECT i.\(key), i.\(filename), m.\(title) FROM \(image) i LEFT JOIN \(memory) m ON m.\(key) = i.\(imageMemory) WHERE i.\(thumbnailData) = ?
        """
}
