import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement, without bound values.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public var primaryCode: Int32 { code & 0xff }

    public var description: String {
        let base = "SQLite error \(code): \(message)"
        return sql.map { "\(base) (in \($0))" } ?? base
    }
}
