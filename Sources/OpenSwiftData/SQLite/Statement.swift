import CSQLite
import Foundation

/// A prepared statement, owned by one `Connection` and finalized with it.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw connection.error(rc, sql: sql) }
        self.handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ values: [SQLiteValue]) throws {
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v): return try bind(text: v, at: index)
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count), csqlite_transient())
            }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
    }

    /// Steps once: true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = connection.error(rc, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    func bind(text: String, at index: Int32) throws {
        var text = text
        let rc = text.withUTF8 { utf8 in
            sqlite3_bind_text(handle, index, UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self), Int32(utf8.count), csqlite_transient())
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
    }

    /// Binds `text` without copying it (`SQLITE_STATIC`) and runs `body` while it is bound: the
    /// bytes are the string's own, valid only inside. Bind and step there; `clearBindings()` after.
    func withText<R>(_ text: String, at index: Int32, _ body: () throws -> R) throws -> R {
        var text = text
        return try text.withUTF8 { utf8 in
            let rc = sqlite3_bind_text(handle, index, UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
            guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
            return try body()
        }
    }

    /// Unbinds every parameter, so that no pointer bound by `withText` outlives its string.
    func clearBindings() { sqlite3_clear_bindings(handle) }

    func bind(double: Double, at index: Int32) throws {
        let rc = sqlite3_bind_double(handle, index, double)
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
    }

    func bind(int64: Int64, at index: Int32) throws {
        let rc = sqlite3_bind_int64(handle, index, int64)
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
    }

    /// Runs once with the parameters bound by the caller (every one of them, each time: the hot
    /// path of a save needs no clearing); the statement is left reset.
    func runBound() throws {
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw connection.error(rc, sql: sql) }
    }

    /// Runs to completion, discarding rows.
    func run(_ values: [SQLiteValue] = []) throws {
        reset()
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func column(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let bytes = sqlite3_column_blob(handle, i) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    func isText(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_TEXT }
    func isInteger(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_INTEGER }
    func isNumber(_ i: Int32) -> Bool {
        let type = sqlite3_column_type(handle, i)
        return type == SQLITE_FLOAT || type == SQLITE_INTEGER
    }

    func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }
}
