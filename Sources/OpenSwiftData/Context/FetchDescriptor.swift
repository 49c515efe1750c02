import Foundation

/// What to fetch: a predicate, a sort order and a window, as in SwiftData.
///
/// ```swift
/// let recent = FetchDescriptor<Expense>(
///     predicate: #Predicate { $0.date >= start },
///     sortBy: [SortDescriptor(\.date, order: .reverse)])
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// Translated to SQL; a predicate that cannot be translated makes the fetch throw.
    public var predicate: Predicate<T>?
    /// Each descriptor's key path must name a stored property. Strings sort as the descriptor's
    /// comparator says, `.localizedStandard` (Finder order) unless it is `.lexical` (UTF-8 bytes);
    /// Decimals sort numerically; ties are broken by insertion order.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many models (SQL LIMIT).
    public var fetchLimit: Int?
    /// Skip this many first (SQL OFFSET).
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context are taken into account (default true).
    public var includePendingChanges = true
    /// When not empty, only these properties' columns are read; the others of every fetched model
    /// are read together, in one query, the first time one of them is used.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships loaded with the fetch, one query each for all the fetched models (without
    /// it they load the same way, on first access).
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Every model of `T` that `predicate` accepts (all without one), in `sortBy` order.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
