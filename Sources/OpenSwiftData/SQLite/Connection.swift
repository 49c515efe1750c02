import CSQLite
import Foundation

/// One SQLite connection: opened with WAL, foreign keys and a busy timeout, with its
/// prepared statements cached by SQL text. Closed when the last reference goes.
///
/// Not thread-safe: a connection belongs to one `ModelContext` (or the container), which
/// uses it from one thread at a time.
final class Connection {
    let handle: OpaquePointer
    let path: String
    let isReadOnly: Bool
    private var cache: [String: Statement] = [:]
    /// Every SQL statement run, when tracing is on (tests read it).
    var trace: ((String) -> Void)?

    /// - Parameters:
    ///   - path: a file path, or a `file:` URI (in-memory stores use `file:/name?vfs=memdb`).
    ///   - readOnly: open an existing file for reading only: nothing is created, migrated or
    ///     written. When its folder cannot be written (so no `-shm` file can be made for WAL), the
    ///     file is opened as immutable.
    /// A process killed in a write before the store was in WAL mode (its first moments) leaves a
    /// hot rollback journal beside it, which a read-only connection cannot roll back: every read
    /// failed as if the store could not be written. Where the folder and file can be written, a
    /// read-write connection is opened for a moment first, and SQLite rolls the journal back (as any
    /// reader allowed to write does), leaving the store as it was before that write.
    static func rollBackHotJournal(_ path: String) {
        var info = stat()
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        guard stat(path + "-journal", &info) == 0, info.st_size > 0, access(path, W_OK) == 0, access(folder, W_OK) == 0 else { return }
        var db: OpaquePointer?
        if sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db {
            sqlite3_busy_timeout(db, 10_000)
            sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        }
        sqlite3_close_v2(db)
    }

    init(path: String, readOnly: Bool = false, busyTimeout: Int32 = 10_000) throws {
        var db: OpaquePointer?
        var rc: Int32
        if readOnly {
            Self.rollBackHotJournal(path)
            rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            if rc == SQLITE_OK, let opened = db, sqlite3_exec(opened, "SELECT count(*) FROM sqlite_master", nil, nil, nil) != SQLITE_OK,
               access((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, W_OK) != 0 {
                sqlite3_close_v2(opened)
                db = nil
                let uri = "file:\(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)?immutable=1"
                rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            }
        } else {
            rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let system = db.map { sqlite3_system_errno($0) } ?? 0
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open \(path): \(message)", sql: nil, systemErrno: system)
        }
        self.handle = db
        self.path = path
        self.isReadOnly = readOnly
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
        try SQLFunctions.register(on: db)
        try execute("PRAGMA foreign_keys = ON")
        if !path.hasPrefix("file:") && !readOnly {
            // Switching to WAL needs the file to itself, and SQLite answers BUSY at once, without
            // the busy handler, while another process is creating the same new store: wait here.
            let deadline = Date().addingTimeInterval(Double(busyTimeout) / 1000)
            while true {
                do {
                    try execute("PRAGMA journal_mode = WAL")
                    break
                } catch let error as SQLiteError where error.primaryCode == SQLITE_BUSY && Date() < deadline {
                    usleep(10_000)
                }
            }
            try execute("PRAGMA synchronous = NORMAL")
        }
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql, systemErrno: sqlite3_system_errno(handle))
    }

    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws {
        trace?(sql)
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// The cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws -> Statement {
        trace?(sql)
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` and returns every row.
    func rows(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let stmt = try statement(sql)
        try stmt.bind(values)
        var result: [[SQLiteValue]] = []
        let n = stmt.columnCount
        while try stmt.step() { result.append((0..<n).map(stmt.column)) }
        stmt.reset()
        return result
    }

    /// The value of a PRAGMA, as text.
    func pragma(_ name: String) -> String? {
        guard let row = try? rows("PRAGMA \(name)").first, let value = row.first else { return nil }
        switch value {
        case .integer(let v): return String(v)
        case .text(let v): return v
        default: return nil
        }
    }

    var cachedStatementCount: Int { cache.count }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Set once this connection made sure the tables a save writes exist (`makeSaveTables`).
    var hasHistoryTable = false

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
