import Foundation

/// A store's history token: the number of the last transaction it covers, by store identifier.
public struct DefaultHistoryToken: HistoryToken {
    /// The store identifier and transaction number.
    public typealias TokenType = [String: Int64]
    /// The store's identifier and the transaction's number.
    public let tokenValue: TokenType?

    init(storeIdentifier: String, transaction: Int64) {
        tokenValue = [storeIdentifier: transaction]
    }

    /// The token's transaction number (the largest, should it name several stores).
    var transaction: Int64 { tokenValue?.values.max() ?? 0 }

    /// Earlier in the store's history. Tokens of one store compare by transaction number.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool { lhs.transaction < rhs.transaction }

    /// The transaction number, as SwiftData's `id`.
    public var id: Int { Int(transaction) }
}

/// A transaction as `ModelContext.fetchHistory(_:)` reads it from the store.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transactions' token type.
    public typealias TokenType = DefaultHistoryToken
    /// A transaction number.
    public typealias TransactionIdentifier = Int64
    /// The saving context's `author`.
    public let author: String?
    /// The saving program's bundle identifier (on Linux, its process name).
    public let bundleIdentifier: String
    /// The inserts, updates and deletes, in the order they were written.
    public let changes: [HistoryChange]
    /// The saving process's identifier.
    public let processIdentifier: String
    /// The store's identity (its `_osd_metadata` `storeIdentifier`).
    public let storeIdentifier: String
    /// When the save committed.
    public let timestamp: Date
    /// The transaction's position, to compare in a predicate (`$0.token > lastToken`).
    public let token: DefaultHistoryToken
    /// The transaction's number in its store, increasing, never reused.
    public let transactionIdentifier: Int64
    /// The transaction number.
    public var id: Int64 { transactionIdentifier }

    /// Transactions are equal when they are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Hashes the store and the transaction number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

/// An insert of a `Model`.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// A change number.
    public typealias ChangeIdentifier = Int64
    /// A transaction number.
    public typealias TransactionIdentifier = Int64
    /// The change's number in its store.
    public let changeIdentifier: Int64
    /// The inserted model's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
}

/// An update of a `Model`.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// A change number.
    public typealias ChangeIdentifier = Int64
    /// A transaction number.
    public typealias TransactionIdentifier = Int64
    /// The change's number in its store.
    public let changeIdentifier: Int64
    /// The updated model's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The properties whose stored values changed.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Updates are equal when they are the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.changeIdentifier == rhs.changeIdentifier }
    /// Hashes the change number.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// A delete of a `Model`, with its tombstone.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// A change number.
    public typealias ChangeIdentifier = Int64
    /// A transaction number.
    public typealias TransactionIdentifier = Int64
    /// The change's number in its store.
    public let changeIdentifier: Int64
    /// The deleted model's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The values its `@Attribute(.preserveValueOnDeletion)` properties had.
    public let tombstone: HistoryTombstone<Model>

    /// Deletes are equal when they are the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.changeIdentifier == rhs.changeIdentifier }
    /// Hashes the change number.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// The preserved values of a deleted model: `tombstone[\.bookingReference]`, or iterated.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// A preserved value.
    public typealias Element = Any
    /// The preserved properties' key paths and values (nil for a stored NULL).
    let values: [(keyPath: AnyKeyPath, value: (any Sendable)?)]

    /// The value the property at `keyPath` had, if it was preserved (and not nil).
    public subscript(_ keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value ?? nil
    }

    /// The preserved values, in property order.
    public func makeIterator() -> IndexingIterator<[Any]> {
        values.map { $0.value as Any }.makeIterator()
    }
}
