import Foundation

/// The primitives a fetch reads and a save binds straight from and to their column, without going
/// through a `ValueCodec` closure or an `SQLiteValue`: the common, non-optional property types.
/// Acceptance rules are the types' own `DirectColumnReadable.read(from:column:)`.
enum DirectColumn {
    case string, date, double, int, bool

    /// The direct form of a property's value type, if it has one.
    init?(_ type: Any.Type) {
        switch type {
        case is String.Type: self = .string
        case is Date.Type: self = .date
        case is Double.Type: self = .double
        case is Int.Type: self = .int
        case is Bool.Type: self = .bool
        default: return nil
        }
    }

    /// Initializes `slot` with the value in column `i` of the current row; false (and the slot
    /// left uninitialized) when the column holds another type.
    @inline(__always)
    func read(_ statement: Statement, _ i: Int32, into slot: UnsafeMutablePointer<Any?>) -> Bool {
        switch self {
        case .string: return initialize(slot, String.read(from: statement, column: i))
        case .date: return initialize(slot, Date.read(from: statement, column: i))
        case .double: return initialize(slot, Double.read(from: statement, column: i))
        case .int: return initialize(slot, Int.read(from: statement, column: i))
        case .bool: return initialize(slot, Bool.read(from: statement, column: i))
        }
    }

    @inline(__always)
    private func initialize<T>(_ slot: UnsafeMutablePointer<Any?>, _ value: T?) -> Bool {
        guard let value else { return false }
        slot.initialize(to: value)
        return true
    }

    /// Binds `value` at `index`; false (nothing bound) when it is not of this type.
    func bind(_ value: Any?, to statement: Statement, at index: Int32) throws -> Bool {
        switch self {
        case .string: guard let v = value as? String else { return false }; try statement.bind(text: v, at: index)
        case .date: guard let v = value as? Date else { return false }; try statement.bind(double: v.timeIntervalSinceReferenceDate, at: index)
        case .double: guard let v = value as? Double else { return false }; try statement.bind(double: v, at: index)
        case .int: guard let v = value as? Int else { return false }; try statement.bind(int64: Int64(v), at: index)
        case .bool: guard let v = value as? Bool else { return false }; try statement.bind(int64: v ? 1 : 0, at: index)
        }
        return true
    }
}
