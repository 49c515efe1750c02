import Foundation

/// History (SwiftData, 2024): what each save changed, recorded in the store and read back by any
/// context, container or process on it (see `HistoryStore`).
extension ModelContext {
    /// Every transaction the descriptor selects: those its predicate accepts (on `token`, `author`,
    /// `timestamp`, …), oldest first unless `sortBy` says otherwise, at most `fetchLimit`.
    ///
    /// The store's history is read whole and filtered here (a predicate over transactions does not
    /// become SQL, unlike a fetch's): delete what has been processed (`deleteHistory`) to keep it small.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard T.self == DefaultHistoryTransaction.self else {
            throw ModelError.unsupportedHistory(type: String(describing: T.self))
        }
        let recorded = try HistoryStore(connection: connection).read(schema: schema, storeIdentifier: historyStoreIdentifier())
        var selected = try recorded.compactMap { $0 as? T }.filter { try descriptor.predicate?.evaluate($0) ?? true }
        if !descriptor.sortBy.isEmpty { selected.sort(using: descriptor.sortBy) }
        if descriptor.fetchLimit > 0 { selected = Array(selected.prefix(Int(clamping: descriptor.fetchLimit))) }
        return selected
    }

    /// Deletes the transactions the descriptor selects, with their changes and tombstones. Their
    /// numbers are not reused: a token kept from before still orders after them.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        if let refusal = container.writeRefusal { throw refusal }
        let selected = try fetchHistory(descriptor).compactMap { $0 as? DefaultHistoryTransaction }
        try HistoryStore(connection: connection).delete(selected.map(\.transactionIdentifier))
    }

    /// The store's identity, as transactions and tokens name it.
    func historyStoreIdentifier() throws -> String {
        try StoreRecord(connection: connection).identifier() ?? container.storePath
    }


    /// Runs a save's writes (`body`, inside its SQL transaction) gathering what they change, then
    /// records it as one transaction.
    func recordingHistory(on connection: Connection, _ body: () throws -> Void) throws {
        let log = HistoryLog()
        historyLog = log
        defer { historyLog = nil }
        try body()
        try HistoryStore(connection: connection).record(log, author: author)
    }

    /// Notes the deletes of `keys` of `entity` before they run: their preserved values as stored,
    /// and the rows SQLite's `ON DELETE SET NULL` is about to update (their to-one becomes nil).
    /// `list` is the keys as the DELETE binds them (a JSON array).
    func noteDeletes(of entity: Schema.Entity, keys: Set<Int64>, list: SQLiteValue, in log: HistoryLog) throws {
        try log.noteDeletes(of: entity, keys: keys, list: list, schema: schema, on: connection, nullified: true)
    }
}

extension HistoryLog {
    /// Notes the deletes of `keys` of `entity` (see `ModelContext.noteDeletes`); with `nullified`,
    /// also the rows of `schema` whose to-one SQLite's `ON DELETE SET NULL` is about to clear.
    func noteDeletes(of entity: Schema.Entity, keys: Set<Int64>, list: SQLiteValue, schema: Schema, on connection: Connection,
                     nullified: Bool) throws {
        let log = self
        let preserved = entity.columns.filter { $0.attribute?.options.contains(.preserveValueOnDeletion) ?? false }
        var values: [Int64: [(String, SQLiteValue)]] = [:]
        if !preserved.isEmpty {
            let columns = preserved.map(\.column).joined(separator: ", ")
            for row in try connection.rows("SELECT \"_pk\", \(columns) FROM \(entity.table) WHERE \"_pk\" IN (SELECT value FROM json_each(?))", [list]) {
                guard case .integer(let key) = row[0] else { continue }
                values[key] = zip(preserved, row.dropFirst()).map { ($0.name, $1) }
            }
        }
        for key in keys { log.delete(entity, key: key, preserved: values[key] ?? []) }
        guard nullified else { return }
        for other in schema.entities {
            for property in other.relationships {
                guard case .toOne(let target) = property.kind, ObjectIdentifier(target) == ObjectIdentifier(entity.type) else { continue }
                for row in try connection.rows("SELECT \"_pk\" FROM \(other.table) WHERE \(property.column) IN (SELECT value FROM json_each(?))", [list]) {
                    if case .integer(let key) = row[0] { log.update(other, key: key, attributes: [property.name]) }
                }
            }
        }
    }
}

extension Connection {
    /// Makes the tables every save writes beside the models' (the history's, `HistoryStore`, and the
    /// key reservations', `KeyReservations`), once per connection, before a save's (or an erase's)
    /// SQL transaction begins: a failed one cannot take them back while the connection believes
    /// them made.
    func makeSaveTables() throws {
        guard !hasHistoryTable else { return }
        try HistoryStore(connection: self).createTable()
        try KeyReservations.createTable(on: self)
        hasHistoryTable = true
    }
}
