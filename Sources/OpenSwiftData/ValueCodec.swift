import Foundation

/// A type that maps onto one SQLite value directly.
public protocol SQLiteValueConvertible {
    /// The declared column type (`INTEGER`, `REAL`, `TEXT`, `BLOB`).
    static var sqliteColumnType: String { get }
    /// The column's collation, when SQLite's default would compare wrongly.
    static var sqliteCollation: String? { get }
    var sqliteValue: SQLiteValue { get }
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValueConvertible {
    /// No collation: SQLite's default.
    public static var sqliteCollation: String? { nil }
}

/// A primitive that reads its column straight from the statement, without an `SQLiteValue` in
/// between (the hot path of a fetch). Same acceptance rules as `init?(sqliteValue:)`.
protocol DirectColumnReadable {
    static func read(from statement: Statement, column i: Int32) -> Self?
}

/// How one Swift type is stored in one column: chosen once per property, at schema time.
///
/// Primitives map directly; optionals wrap another codec; enums with a raw value store the raw
/// value (so predicates on them work); any other `Codable` value is stored as JSON text.
final class ValueCodec {
    let columnType: String
    let collation: String?
    let isOptional: Bool
    let isJSON: Bool
    let encode: (Any) -> SQLiteValue
    let decode: (SQLiteValue) -> Any?
    /// Reads column `i` of the current row straight into a value (nil when it cannot be read).
    let read: (Statement, Int32) -> Any?

    init(columnType: String, collation: String?, isOptional: Bool = false, isJSON: Bool = false,
         encode: @escaping (Any) -> SQLiteValue, decode: @escaping (SQLiteValue) -> Any?,
         read: ((Statement, Int32) -> Any?)? = nil) {
        self.columnType = columnType
        self.collation = collation
        self.isOptional = isOptional
        self.isJSON = isJSON
        self.encode = encode
        self.decode = decode
        self.read = read ?? { statement, i in decode(statement.column(i)) }
    }

    /// The codec for `T`, or nil if `T` cannot be stored.
    static func make<T>(_ type: T.Type) -> ValueCodec? {
        if let optional = T.self as? any _OptionalType.Type { return optional._wrappedCodec() }
        if let primitive = T.self as? any SQLiteValueConvertible.Type { return primitiveCodec(primitive) }
        if let raw = T.self as? any RawRepresentable.Type, let codec = rawCodec(raw) { return codec }
        if let codable = T.self as? any Codable.Type { return jsonCodec(codable) }
        return nil
    }

    static func make(anyType: Any.Type) -> ValueCodec? {
        func open<T>(_ type: T.Type) -> ValueCodec? { make(T.self) }
        return _openExistential(anyType, do: open)
    }

    static func primitiveCodec<P: SQLiteValueConvertible>(_: P.Type) -> ValueCodec {
        ValueCodec(
            columnType: P.sqliteColumnType, collation: P.sqliteCollation,
            encode: { ($0 as! P).sqliteValue },
            decode: { P(sqliteValue: $0) },
            read: (P.self as? any DirectColumnReadable.Type).map { direct in { direct.read(from: $0, column: $1) } }
        )
    }

    static func rawCodec<R: RawRepresentable>(_: R.Type) -> ValueCodec? {
        guard let raw = make(R.RawValue.self), !raw.isOptional else { return nil }
        return ValueCodec(
            columnType: raw.columnType, collation: raw.collation,
            encode: { raw.encode(($0 as! R).rawValue) },
            decode: { raw.decode($0).flatMap { R(rawValue: $0 as! R.RawValue) } }
        )
    }

    static func jsonCodec<C: Codable>(_: C.Type) -> ValueCodec {
        ValueCodec(
            columnType: "TEXT", collation: nil, isJSON: true,
            encode: { value in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                guard let data = try? encoder.encode(value as! C) else { return .null }
                return .text(String(decoding: data, as: UTF8.self))
            },
            decode: { stored in
                guard case .text(let text) = stored else { return nil }
                return try? JSONDecoder().decode(C.self, from: Data(text.utf8))
            }
        )
    }

    static func optionalCodec<W>(_: W.Type) -> ValueCodec? {
        guard let wrapped = make(W.self) else { return nil }
        return ValueCodec(
            columnType: wrapped.columnType, collation: wrapped.collation, isOptional: true, isJSON: wrapped.isJSON,
            encode: { value in
                guard let unwrapped = value as! W? else { return .null }
                return wrapped.encode(unwrapped)
            },
            decode: { stored in
                if case .null = stored { return W?.none as Any }
                guard let value = wrapped.decode(stored) else { return nil }
                return (value as! W) as W? as Any
            },
            read: { statement, i in
                if statement.isNull(i) { return W?.none as Any }
                guard let value = wrapped.read(statement, i) else { return nil }
                return (value as! W) as W? as Any
            }
        )
    }
}

/// Lets the codec see through `Optional` without knowing its wrapped type statically.
protocol _OptionalType {
    static var _wrappedType: Any.Type { get }
    static func _wrappedCodec() -> ValueCodec?
    static var _nilValue: Any { get }
    var _isNil: Bool { get }
}

extension Optional: _OptionalType {
    static var _wrappedType: Any.Type { Wrapped.self }
    static func _wrappedCodec() -> ValueCodec? { ValueCodec.optionalCodec(Wrapped.self) }
    static var _nilValue: Any { Wrapped?.none as Any }
    var _isNil: Bool { self == nil }
}

/// Lets the schema see an array's element type (for to-many relationships).
protocol _ArrayType {
    static var _elementType: Any.Type { get }
    static var _empty: Any { get }
    var _elements: [Any] { get }
    var _objects: [AnyObject] { get }
    /// Whether the array holds `object` (by identity), without casting each element.
    func _containsObject(_ object: AnyObject) -> Bool
    /// The array with `object` appended, or nil when `object` is not an element's type.
    func _appending(_ object: AnyObject) -> Any?
}

extension Array: _ArrayType {
    static var _elementType: Any.Type { Element.self }
    static var _empty: Any { [Element]() as Any }
    var _elements: [Any] { map { $0 as Any } }
    var _objects: [AnyObject] { map { $0 as AnyObject } }

    func _containsObject(_ object: AnyObject) -> Bool {
        // A relationship's elements are class references: compare them as pointers.
        guard Element.self is AnyObject.Type, MemoryLayout<Element>.size == MemoryLayout<AnyObject>.size else {
            return contains { ($0 as AnyObject) === object }
        }
        let target = ObjectIdentifier(object)
        return contains { ObjectIdentifier(unsafeBitCast($0, to: AnyObject.self)) == target }
    }

    func _appending(_ object: AnyObject) -> Any? {
        guard let element = object as? Element else { return nil }
        var copy = self
        copy.append(element)
        return copy
    }
}
