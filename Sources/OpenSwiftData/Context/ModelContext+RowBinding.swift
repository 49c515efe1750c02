import CSQLite
import Foundation

// How a model's row is bound for INSERT and UPDATE (moved unchanged from `ModelContext+Save.swift`).

extension ModelContext {
    /// Binds every column of a model's row, in `entity.columns` order, and runs `run` while they
    /// are bound (text is bound in place, without a copy: see `Statement.withText`); the bindings
    /// are cleared after. A to-one relationship to a model not saved yet is bound as NULL and
    /// reported to `deferLink` (set once both have keys).
    func withColumnsBound<R>(of backing: _BackingData, entity: Schema.Entity, to statement: Statement,
                             deferLink: (Schema.Property, _BackingData) -> Void, run: () throws -> R) throws -> R {
        let plan = entity.writePlan
        // A text column binds its string in place and calls this for the rest, so the statement
        // runs with every string still borrowed (one level deeper per text column).
        func bind(from first: Int) throws -> R {
            var offset = first
            while offset < plan.count {
                let at = offset
                let position = Int32(offset + 1)
                offset += 1
                // Fields read one by one: copying a `Property` retains a dozen references.
                let index = plan[at].property.index
                if let direct = plan[at].property.direct {
                    switch try direct.bind(slot: index, of: backing.values, to: statement, at: position) {
                    case .yes: continue
                    case .text(let text): return try statement.withText(text, at: position) { try bind(from: offset) }
                    case .no: break
                    }
                }
                let value = backing.values[index]
                if plan[at].property.codec == nil, let target = relatedBacking(value), target.primaryKey <= 0 {
                    deferLink(plan[at].property, target)
                    try statement.bind(.null, at: position)
                } else {
                    try statement.bind(encode(backing, plan[at].property), at: position)
                }
            }
            return try run()
        }
        defer { statement.clearBindings() }
        return try bind(from: 0)
    }

    /// The stored form of one property of a model.
    func encode(_ backing: _BackingData, _ property: Schema.Property) -> SQLiteValue {
        guard let value = backing.values[property.index] else { return .null }
        if property.isExternalStorage {
            if let fault = value as? ExternalFault { return .text(fault.digest.hex) }
            return backing.pendingDigests[property.index].map { .text($0.hex) } ?? .null
        }
        switch property.kind {
        case .attribute: return property.codec!.encode(value)
        case .toOne:
            if let fault = value as? ToOneFault { return .integer(fault.primaryKey) }
            guard let target = relatedBacking(value), target.primaryKey > 0 else { return .null }
            return .integer(target.primaryKey)
        default: return .null
        }
    }

    func relatedBacking(_ value: Any?) -> _BackingData? {
        guard let value, let model = value as? any PersistentModel else { return nil }
        return model.persistentBackingData
    }
}

extension Schema.Entity {
    /// `INSERT INTO t (…) VALUES (…)`, or with `upsert`, `… ON CONFLICT DO UPDATE SET … RETURNING "_pk"`.
    /// The columns in `columns` order, and with `keyed` then the row's key (`KeyReservations`).
    static func insertSQL(table: String, columns: [Schema.Property], upsert: Bool, keyed: Bool = false) -> String {
        let names = columns.map(\.column)
        let inserted = names + (keyed ? ["\"_pk\""] : [])
        var sql = "INSERT INTO \(table) (\(inserted.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: inserted.count).joined(separator: ", ")))"
        if inserted.isEmpty { sql = "INSERT INTO \(table) DEFAULT VALUES" }
        guard upsert, !names.isEmpty else { return sql }
        let sets = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return sql + " ON CONFLICT DO UPDATE SET \(sets) RETURNING \"_pk\""
    }
}
