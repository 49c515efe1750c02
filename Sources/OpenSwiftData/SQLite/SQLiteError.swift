import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement, without bound values.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public var primaryCode: Int32 { code & 0xff }

    // Result codes by name (sqlite.org/rescode.html), to compare with `code` and `primaryCode`.
    public static let busy = SQLITE_BUSY, locked = SQLITE_LOCKED, readOnly = SQLITE_READONLY, ioError = SQLITE_IOERR
    public static let corrupt = SQLITE_CORRUPT, notADatabase = SQLITE_NOTADB, full = SQLITE_FULL, cantOpen = SQLITE_CANTOPEN
    /// SQLITE_CONSTRAINT_UNIQUE: a UNIQUE constraint failed.
    public static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
    /// SQLITE_IOERR_SHMSIZE: the -shm file could not grow (the disk is full).
    public static let ioErrorShmSize = SQLITE_IOERR | (19 << 8)

    public var description: String {
        let base = "SQLite error \(code): \(message)"
        return sql.map { "\(base) (in \($0))" } ?? base
    }
}
