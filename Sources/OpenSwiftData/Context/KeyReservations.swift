import Foundation

/// Primary keys are never given twice, as SwiftData's (Core Data's) are not: a deleted row's key is
/// not reused by a later insert, so an identifier kept from before (or a history entry) never names
/// another model.
///
/// SQLite gives a new row the largest key plus one, so deleting the newest rows frees their keys.
/// The store remembers the largest key it gave each entity (`_osd_keys`, written once per entity a
/// save inserts into). When that is above the table's largest key (its newest rows were deleted),
/// the save binds keys above it; otherwise SQLite's own choice is the same key, and binding it
/// would cost a uniqueness check per row (5% of a 10,000-row save, by callgrind). `AUTOINCREMENT`
/// would write `sqlite_sequence` for every row instead.
struct KeyReservations {
    static let table = "_osd_keys"

    private struct Entry {
        let entity: Schema.Entity
        /// The next key to bind, when keys are bound this save.
        var next: Int64?
        var largestGiven: Int64 = 0
    }
    /// One entry per entity inserted into, the current one (inserts come in runs) at `current`.
    private var entries: [Entry] = []
    private var current = -1

    static func createTable(on connection: Connection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS \(table) (entity TEXT PRIMARY KEY, max INTEGER NOT NULL)")
    }

    /// The key to bind for the next row of `entity`, or nil when SQLite's choice is right.
    mutating func key(for entity: Schema.Entity, on connection: Connection) throws -> Int64? {
        if current < 0 || entries[current].entity !== entity {
            if let found = entries.firstIndex(where: { $0.entity === entity }) {
                current = found
            } else {
                entries.append(try Self.entry(for: entity, on: connection))
                current = entries.count - 1
            }
        }
        guard let next = entries[current].next else { return nil }
        entries[current].next = next + 1
        return next
    }

    /// Notes the key the row `key(for:)` was last asked for was given (bound, or chosen by SQLite).
    mutating func gave(_ key: Int64) {
        if key > entries[current].largestGiven { entries[current].largestGiven = key }
    }

    private static func entry(for entity: Schema.Entity, on connection: Connection) throws -> Entry {
        var entry = Entry(entity: entity)
        if try hasTable(on: connection) {
            let rows = try connection.rows("""
                SELECT coalesce((SELECT max("_pk") FROM \(entity.table)), 0), coalesce((SELECT max FROM \(Self.table) WHERE entity = ?), 0)
                """, [.text(entity.name)])
            if case .integer(let largest)? = rows.first?.first, case .integer(let recorded)? = rows.first?.last, recorded > largest {
                entry.next = recorded + 1
            }
        }
        return entry
    }

    private static func hasTable(on connection: Connection) throws -> Bool {
        // Made before a save's transaction; the savepoint a fetch writes pending changes in may
        // come first (and is rolled back: its keys need not be remembered).
        if connection.hasHistoryTable { return true }
        return try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(Self.table)]).first?.first != .integer(0)
    }

    /// Records the largest key given to each entity (inside the save's transaction).
    func record(on connection: Connection) throws {
        let given = entries.filter { $0.largestGiven > 0 }
        guard !given.isEmpty, try Self.hasTable(on: connection) else { return }
        for entry in given { try Self.remember(entry.largestGiven, for: entry.entity, on: connection) }
    }

    /// Records that `key` was given to a row of `entity` (kept if larger than what was recorded).
    static func remember(_ key: Int64, for entity: Schema.Entity, on connection: Connection) throws {
        try connection.statement("INSERT INTO \(table) (entity, max) VALUES (?, ?) ON CONFLICT(entity) DO UPDATE SET max = max(max, excluded.max)")
            .run([.text(entity.name), .integer(key)])
    }
}
