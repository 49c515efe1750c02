import Foundation
import OpenSwiftData

/// Which memories `import --by-event` made from each camera roll (`source_event`, beside the
/// model's tables): the roll's real path, the memory's id and the title the import gave it. A
/// re-sync of the roll puts new photos into these memories by capture time, and retitles one whose
/// title is still the one it was given when its dates grow. The link is written with the records
/// of the first batch, before it is saved, so it names the memory by its id (a killed import's link
/// names no memory, and is ignored). A memory's rows go with it (a trigger on its table).
enum SourceEvents {
    static let table = "source_event"

    static func install(on context: ModelContext) throws { try context.installOnce(table, LibrarySQL.createSourceEvents(table)) }

    static func exists(in context: ModelContext) throws -> Bool { try context.tableExists(table) }

    /// A memory made from a roll: its key and the title it was given.
    struct Event: Equatable {
        var memory: Int64
        var given: String
    }

    /// The memories made from any of `rolls` that are still there, each once.
    static func events(of rolls: [Data], in context: ModelContext) throws -> [Event] {
        guard !rolls.isEmpty, try exists(in: context) else { return [] }
        let marks = Array(repeating: "?", count: rolls.count).joined(separator: ", ")
        let rows = try context.query(LibrarySQL.eventsOfRolls(table, marks: marks), rolls.map { .blob($0) })
        var seen = Set<Int64>()
        return rows.compactMap { row in
            guard row.count == 2, let key = row[0].int64Value, seen.insert(key).inserted else { return nil }
            return Event(memory: key, given: row[1].stringValue ?? "")
        }
    }

    /// Every memory made from any roll that is still there, each once, with the title it was given.
    static func allEvents(in context: ModelContext) throws -> [Event] {
        guard try exists(in: context) else { return [] }
        var seen = Set<Int64>()
        return try context.query(LibrarySQL.allEvents(table)).compactMap { row in
            guard row.count == 2, let key = row[0].int64Value, seen.insert(key).inserted else { return nil }
            return Event(memory: key, given: row[1].stringValue ?? "")
        }
    }

    /// Whether the memory whose id is `id` was made from one of `rolls`.
    static func isEvent(_ id: UUID, of rolls: [Data], in context: ModelContext) throws -> Bool {
        guard try exists(in: context) else { return false }
        for roll in rolls where try !context.query("SELECT 1 FROM \(table) WHERE roll = ? AND memory = ?",
                                                 [.blob(roll), .text(id.uuidString)]).isEmpty {
            return true
        }
        return false
    }

    /// Links each of `rolls` to the memory whose id is `id`, made with the title `given`.
    static func link(_ rolls: [Data], to id: UUID, given: String, in context: ModelContext) throws {
        for roll in rolls {
            try context.execute("INSERT OR REPLACE INTO \(table) (roll, memory, given) VALUES (?, ?, ?)",
                                [.blob(roll), .text(id.uuidString), .text(given)])
        }
    }

    /// Records that the memory whose id is `id` now has the title it was given, `given`.
    static func retitled(_ id: UUID, given: String, in context: ModelContext) throws {
        try context.execute("UPDATE \(table) SET given = ? WHERE memory = ?", [.text(given), .text(id.uuidString)])
    }

    /// Gives the rolls of memory `source` to `target` (a merge; run in the caller's transaction).
    static func carry(from source: UUID, to target: UUID, in context: ModelContext) throws {
        guard try exists(in: context) else { return }
        try context.execute("UPDATE OR IGNORE \(table) SET memory = ? WHERE memory = ?", [.text(target.uuidString), .text(source.uuidString)])
        try context.execute("DELETE FROM \(table) WHERE memory = ?", [.text(source.uuidString)])
    }
}
