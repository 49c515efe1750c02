import Foundation

/// Where a store keeps its history: `_osd_history`, one row per save that changed a row (its time,
/// author, program and process, and its changes packed, see `HistoryLog`). Numbers come from
/// `AUTOINCREMENT`, never reused, even after `deleteHistory`, so a token stays a position. Writes
/// by other programs (the sqlite3 shell, say) are not recorded, nor are a migration's.
struct HistoryStore {
    let connection: Connection

    static let table = "_osd_history"

    /// The saving program, as a transaction's `bundleIdentifier` and `processIdentifier` name it: on
    /// Linux a program has no bundle identifier, so its process name (reading `Bundle.main` cost
    /// 13 M instructions the first time, a tenth of a 10,000-model save).
    static let program = (name: ProcessInfo.processInfo.processName, process: String(ProcessInfo.processInfo.processIdentifier))

    func createTable() throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(Self.table) (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL,
                author TEXT, bundle TEXT NOT NULL, process TEXT NOT NULL, changes BLOB NOT NULL, tombstones TEXT)
            """)
    }

    func hasTable() throws -> Bool {
        try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(Self.table)]).first?.first != .integer(0)
    }

    /// Records one save's changes (inside its SQL transaction); nothing when it changed no row.
    func record(_ log: HistoryLog, author: String?) throws {
        guard !log.isEmpty else { return }
        try connection.statement("INSERT INTO \(Self.table) (timestamp, author, bundle, process, changes, tombstones) VALUES (?, ?, ?, ?, ?, ?)").run([
            .real(Date().timeIntervalSince1970), author.map { .text($0) } ?? .null,
            .text(Self.program.name), .text(Self.program.process),
            .blob(log.encoded), log.tombstonesJSON.map { .text($0) } ?? .null,
        ])
    }

    /// Every transaction recorded, oldest first, with its changes to models of `schema` (changes
    /// to entities `schema` does not have, another version's, are left out).
    func read(schema: Schema, storeIdentifier: String) throws -> [DefaultHistoryTransaction] {
        guard try hasTable() else { return [] }
        let entities = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        return try connection.rows("SELECT id, timestamp, author, bundle, process, changes, tombstones FROM \(Self.table) ORDER BY id").compactMap { row in
            guard case .integer(let id) = row[0], case .blob(let packed) = row[5] else { return nil }
            let timestamp: Double
            switch row[1] { case .real(let value): timestamp = value; case .integer(let value): timestamp = Double(value); default: timestamp = 0 }
            let author: String? = if case .text(let text) = row[2] { text } else { nil }
            let bundle: String = if case .text(let text) = row[3] { text } else { "" }
            let process: String = if case .text(let text) = row[4] { text } else { "" }
            var tombstones: [Int: [(String, SQLiteValue)]] = [:]
            if case .text(let json) = row[6], let stored = try? JSONDecoder().decode([StoredTombstone].self, from: Data(json.utf8)) {
                for item in stored { tombstones[item.entry, default: []].append((item.property, item.value)) }
            }
            let stored = HistoryLog.decode(packed) ?? []
            let changes = stored.enumerated().compactMap { index, item -> HistoryChange? in
                guard let entity = entities[item.entity] else { return nil }
                return Self.change(item.kind, of: entity, id: (id << 32) | Int64(index), transaction: id, key: item.key,
                                   attributes: item.attributes, tombstone: tombstones[index] ?? [])
            }
            return DefaultHistoryTransaction(author: author, bundleIdentifier: bundle, changes: changes, processIdentifier: process,
                                             storeIdentifier: storeIdentifier, timestamp: Date(timeIntervalSince1970: timestamp),
                                             token: DefaultHistoryToken(storeIdentifier: storeIdentifier, transaction: id), transactionIdentifier: id)
        }
    }

    /// Deletes these transactions.
    func delete(_ ids: [Int64]) throws {
        guard !ids.isEmpty, try hasTable() else { return }
        try connection.statement("DELETE FROM \(Self.table) WHERE id IN (SELECT value FROM json_each(?))").run([.text(jsonArray(ids))])
    }

    /// `[entry, "property", value]`, as `HistoryLog.tombstonesJSON` writes it.
    private struct StoredTombstone: Decodable {
        let entry: Int
        let property: String
        let value: SQLiteValue

        private struct Blob: Decodable { let blob: String }

        init(from decoder: any Decoder) throws {
            var items = try decoder.unkeyedContainer()
            entry = try items.decode(Int.self)
            property = try items.decode(String.self)
            if try items.decodeNil() {
                value = .null
            } else if let integer = try? items.decode(Int64.self) {
                value = .integer(integer)
            } else if let real = try? items.decode(Double.self) {
                value = .real(real)
            } else if let text = try? items.decode(String.self) {
                value = .text(text)
            } else {
                value = Data(base64Encoded: try items.decode(Blob.self).blob).map { .blob($0) } ?? .null
            }
        }
    }

    /// One change as its model type's `DefaultHistoryInsert`, `Update` or `Delete`.
    private static func change(_ kind: HistoryLog.Kind, of entity: Schema.Entity, id: Int64, transaction: Int64, key: Int64,
                               attributes: [String], tombstone: [(String, SQLiteValue)]) -> HistoryChange {
        let changed = PersistentIdentifier(entityName: entity.name, primaryKey: key)
        func make<Model: PersistentModel>(_: Model.Type) -> HistoryChange {
            switch kind {
            case .insert:
                return .insert(DefaultHistoryInsert<Model>(changeIdentifier: id, changedPersistentIdentifier: changed, transactionIdentifier: transaction))
            case .update:
                let keyPaths = attributes.compactMap { entity.property(named: $0)?.keyPath as? PartialKeyPath<Model> }
                    .map { unsafeBitCast($0, to: (any PartialKeyPath<Model> & Sendable).self) }
                return .update(DefaultHistoryUpdate<Model>(changeIdentifier: id, changedPersistentIdentifier: changed,
                                                           transactionIdentifier: transaction, updatedAttributes: keyPaths))
            case .delete:
                let values = tombstone.compactMap { name, stored -> (keyPath: AnyKeyPath, value: (any Sendable)?)? in
                    guard let property = entity.property(named: name) else { return nil }
                    let decoded = stored == .null ? nil : property.codec?.decode(stored)
                    return (property.keyPath, decoded.map { unsafeBitCast($0, to: (any Sendable).self) })
                }
                return .delete(DefaultHistoryDelete<Model>(changeIdentifier: id, changedPersistentIdentifier: changed,
                                                           transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
            }
        }
        return _openExistential(entity.type, do: make)
    }
}
