import Foundation

// SwiftData's history API (2024), by Apple's declarations: what a store records of each save, read
// with `ModelContext.fetchHistory(_:)` and trimmed with `ModelContext.deleteHistory(_:)`.

/// A position in a store's history: compare one with a transaction's `token` to fetch only what
/// came after it. `Codable`, so an app keeps the last one it processed.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// A group of changes a store recorded together: one save.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The author the saving context gave (`ModelContext.author`).
    var author: String? { get }
    /// The inserts, updates and deletes, in the order they were written.
    var changes: [HistoryChange] { get }
    /// The identity of the store the transaction was recorded in.
    var storeIdentifier: String { get }
    /// When the save committed.
    var timestamp: Date { get }
    /// The transaction's position in the store's history.
    var token: TokenType { get }
    /// The transaction's number in its store, increasing.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A model inserted by a transaction.
public protocol HistoryInsert<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's number in its store.
    var changeIdentifier: ChangeIdentifier { get }
    /// The inserted model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A model updated by a transaction.
public protocol HistoryUpdate<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's number in its store.
    var changeIdentifier: ChangeIdentifier { get }
    /// The updated model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The properties whose stored values changed (attributes and to-one relationships).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A model deleted by a transaction.
public protocol HistoryDelete<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's number in its store.
    var changeIdentifier: ChangeIdentifier { get }
    /// The deleted model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of its `@Attribute(.preserveValueOnDeletion)` properties, kept after it was deleted.
    var tombstone: HistoryTombstone<Model> { get }
}

/// One change of a transaction.
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The identifier of the model inserted, updated or deleted.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let insert): return insert.changedPersistentIdentifier
        case .update(let update): return update.changedPersistentIdentifier
        case .delete(let delete): return delete.changedPersistentIdentifier
        }
    }
}

/// What a history fetch or delete selects: the transactions its predicate accepts, in the order of
/// `sortBy` (the order they were recorded in when empty), at most `fetchLimit` of them.
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: Sendable {
    /// Which transactions: every one when nil.
    public var predicate: Predicate<TransactionType>?
    /// Their order, after the predicate.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// At most this many (0: no limit).
    public var fetchLimit: UInt64 = 0

    /// Every transaction the predicate accepts, oldest first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// The transactions the predicate accepts, in the order of `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
