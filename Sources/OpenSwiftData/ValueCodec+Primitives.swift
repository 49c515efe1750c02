import Foundation

// How each primitive is stored. Dates are REAL seconds since 2001-01-01 (Date's own
// representation, so the round trip is exact); UUIDs are upper-case TEXT; Decimals are
// TEXT compared by the DECIMAL collation; UInt64 values above Int64.max keep their bit
// pattern (exact round trip, but they sort as negative numbers in SQL).

extension String: SQLiteValueConvertible, DirectColumnReadable {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "TEXT" }
    static func read(from statement: Statement, column i: Int32) -> String? {
        statement.isText(i) ? statement.text(i) : nil
    }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .text(self) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Bool: SQLiteValueConvertible, DirectColumnReadable {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "INTEGER" }
    static func read(from statement: Statement, column i: Int32) -> Bool? {
        statement.isInteger(i) ? statement.int64(i) != 0 : nil
    }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue else { return nil }
        self = v != 0
    }
}

extension Double: SQLiteValueConvertible, DirectColumnReadable {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "REAL" }
    static func read(from statement: Statement, column i: Int32) -> Double? {
        statement.isNumber(i) ? statement.double(i) : nil
    }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .real(self) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let v): self = v
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
}

extension Float: SQLiteValueConvertible {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "REAL" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .real(Double(self)) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard let d = Double(sqliteValue: sqliteValue) else { return nil }
        self = Float(d)
    }
}

/// Integers of every width store as INTEGER; unsigned 64-bit values keep their bit pattern.
public protocol _SQLiteInteger: FixedWidthInteger, SQLiteValueConvertible {}

extension _SQLiteInteger {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "INTEGER" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue {
        .integer(Self.bitWidth == 64 && !Self.isSigned ? Int64(bitPattern: UInt64(truncatingIfNeeded: self)) : Int64(self))
    }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue else { return nil }
        if Self.bitWidth == 64 && !Self.isSigned {
            self.init(truncatingIfNeeded: UInt64(bitPattern: v))
        } else {
            guard let exact = Self(exactly: v) else { return nil }
            self = exact
        }
    }
}

extension Int: _SQLiteInteger, DirectColumnReadable {
    static func read(from statement: Statement, column i: Int32) -> Int? {
        statement.isInteger(i) ? Int(exactly: statement.int64(i)) : nil
    }
}
extension Int8: _SQLiteInteger {}
extension Int16: _SQLiteInteger {}
extension Int32: _SQLiteInteger {}
extension Int64: _SQLiteInteger {}
extension UInt: _SQLiteInteger {}
extension UInt8: _SQLiteInteger {}
extension UInt16: _SQLiteInteger {}
extension UInt32: _SQLiteInteger {}
extension UInt64: _SQLiteInteger {}

extension Date: SQLiteValueConvertible, DirectColumnReadable {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "REAL" }
    static func read(from statement: Statement, column i: Int32) -> Date? {
        statement.isNumber(i) ? Date(timeIntervalSinceReferenceDate: statement.double(i)) : nil
    }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .real(timeIntervalSinceReferenceDate) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard let d = Double(sqliteValue: sqliteValue) else { return nil }
        self = Date(timeIntervalSinceReferenceDate: d)
    }
}

extension UUID: SQLiteValueConvertible {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "TEXT" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .text(uuidString) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let v) = sqliteValue, let id = UUID(uuidString: v) else { return nil }
        self = id
    }
}

extension URL: SQLiteValueConvertible {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "TEXT" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .text(absoluteString) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let v) = sqliteValue, let url = URL(string: v) else { return nil }
        self = url
    }
}

extension Data: SQLiteValueConvertible {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "BLOB" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .blob(self) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .blob(let v): self = v
        case .text(let v): self = Data(v.utf8)
        default: return nil
        }
    }
}

extension Decimal: SQLiteValueConvertible {
    /// The column type it is stored in (see `SQLiteValueConvertible`).
    public static var sqliteColumnType: String { "TEXT" }
    /// The collation its column sorts with.
    public static var sqliteCollation: String? { "DECIMAL" }
    /// The value as stored.
    public var sqliteValue: SQLiteValue { .text(description) }
    /// The value from its stored form; nil when the column holds another type.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .text(let v):
            guard let d = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = d
        case .integer(let v): self = Decimal(v)
        case .real(let v): self = Decimal(v)
        default: return nil
        }
    }
}
