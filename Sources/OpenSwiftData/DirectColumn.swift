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

    /// What `bind` did with a value.
    enum Bound {
        /// Not of this type: nothing bound.
        case no
        /// Bound.
        case yes
        /// Text, for the caller to bind in place (`Statement.withText`) around the statement's run.
        case text(String)
    }

    /// Binds the value in slot `slot` of `values` at `index`, except text, which it returns for the
    /// caller to bind in place (the statement must run while the string is borrowed; only text
    /// nests the caller's binding, so a model's save goes one level deeper per string column, not
    /// per column). The value is read in place (`ValueSlots.inline`), not copied out of its `Any?`.
    func bind(slot: Int, of values: borrowing ValueSlots, to statement: Statement, at index: Int32) throws -> Bound {
        switch self {
        case .string:
            guard let text = values.inline(slot, as: String.self) else { return .no }
            return .text(text)
        case .date:
            guard let date = values.inline(slot, as: Date.self) else { return .no }
            try statement.bind(double: date.timeIntervalSinceReferenceDate, at: index)
        case .double:
            guard let double = values.inline(slot, as: Double.self) else { return .no }
            try statement.bind(double: double, at: index)
        case .int:
            guard let int = values.inline(slot, as: Int.self) else { return .no }
            try statement.bind(int64: Int64(int), at: index)
        case .bool:
            guard let bool = values.inline(slot, as: Bool.self) else { return .no }
            try statement.bind(int64: bool ? 1 : 0, at: index)
        }
        return .yes
    }
}
