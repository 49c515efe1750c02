import Foundation

extension ModelContext {
    /// Runs SQL of your own on this context's connection (the store's tables are named after the
    /// models and their columns after the properties: see docs/storage-format.md). For what the model
    /// API does not cover: aggregates, triggers, full-text search tables.
    ///
    /// ```swift
    /// let rows = try context.query("SELECT title, count(*) FROM Memory GROUP BY title")
    /// ```
    public func query(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try connection.rows(sql, values)
    }

    /// Runs SQL that returns no rows (several statements when no values are bound).
    public func execute(_ sql: String, _ values: [SQLiteValue] = []) throws {
        if values.isEmpty {
            try connection.execute(sql)
        } else {
            try connection.statement(sql).run(values)
        }
    }
}

extension SQLiteValue {
    /// The value as text (numbers written out); nil for NULL or a blob.
    public var stringValue: String? {
        switch self {
        case .text(let v): return v
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        default: return nil
        }
    }
    /// The value as an integer (a real truncated, text parsed); nil otherwise.
    public var int64Value: Int64? {
        switch self {
        case .integer(let v): return v
        case .real(let v): return Int64(v)
        case .text(let v): return Int64(v)
        default: return nil
        }
    }
    /// The value as a double (an integer widened, text parsed); nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let v): return Double(v)
        default: return nil
        }
    }
}
