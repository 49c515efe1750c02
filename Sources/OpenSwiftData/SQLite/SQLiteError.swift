import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement, without bound values.
public struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); see `primaryCode`.
    public let code: Int32
    /// SQLite's own words (`sqlite3_errmsg`).
    public let message: String
    /// The statement that failed, without its bound values (nil for calls without one).
    public let sql: String?
    /// The operating system's error behind an I/O or open failure (`sqlite3_system_errno`: ENOSPC,
    /// ENAMETOOLONG, ENOTCONN of a file system gone…), 0 when none.
    public let systemErrno: Int32

    /// An error as SQLite gave it; `systemErrno` when the operating system's error is known.
    public init(code: Int32, message: String, sql: String?, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public var primaryCode: Int32 { code & 0xff }

    // Result codes by name (sqlite.org/rescode.html), to compare with `code` and `primaryCode`.
    /// SQLITE_BUSY: another connection holds the lock (after the busy timeout).
    public static let busy = SQLITE_BUSY
    /// SQLITE_LOCKED: a conflict within the same connection.
    public static let locked = SQLITE_LOCKED
    /// SQLITE_READONLY: the database cannot be written.
    public static let readOnly = SQLITE_READONLY
    /// SQLITE_IOERR: the operating system reported an I/O error.
    public static let ioError = SQLITE_IOERR
    /// SQLITE_CORRUPT: the database file is damaged.
    public static let corrupt = SQLITE_CORRUPT
    /// SQLITE_NOTADB: the file is not an SQLite database.
    public static let notADatabase = SQLITE_NOTADB
    /// SQLITE_FULL: the disk is full.
    public static let full = SQLITE_FULL
    /// SQLITE_CANTOPEN: the file could not be opened.
    public static let cantOpen = SQLITE_CANTOPEN
    /// SQLITE_CONSTRAINT_UNIQUE: a UNIQUE constraint failed.
    public static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
    /// SQLITE_IOERR_SHMSIZE: the -shm file could not grow (the disk is full).
    public static let ioErrorShmSize = SQLITE_IOERR | (19 << 8)
    /// SQLITE_IOERR_SHMOPEN and SQLITE_IOERR_SHMMAP: the write-ahead log's shared-memory file
    /// cannot be opened or mapped (a file system that cannot, such as fusefat or some network ones).
    public static let ioErrorShmOpen = SQLITE_IOERR | (18 << 8), ioErrorShmMap = SQLITE_IOERR | (21 << 8)

    /// `SQLite error CODE: message (in SQL)`.
    public var description: String {
        let base = "SQLite error \(code): \(message)"
        return sql.map { "\(base) (in \($0))" } ?? base
    }
}
