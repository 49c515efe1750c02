/// Identifies one row of one entity in one store.
///
/// A model inserted but not yet saved has a temporary identifier; after `save()` it has
/// the permanent one, built from the row's primary key.
public struct PersistentIdentifier: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The entity (model class) name.
    public let entityName: String
    /// The row's primary key, or a negative temporary number before the first save.
    public let primaryKey: Int64

    /// Given to an inserted model before its first save (the key is negative until then).
    public var isTemporary: Bool { primaryKey < 0 }

    /// The identifier of the row `primaryKey` of the model named `entityName` (`context.model(for:)` finds it).
    public init(entityName: String, primaryKey: Int64) {
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// By entity name, then key.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.primaryKey) < (rhs.entityName, rhs.primaryKey)
    }

    /// `Entity/key`.
    public var description: String {
        isTemporary ? "\(entityName)/t\(-primaryKey)" : "\(entityName)/p\(primaryKey)"
    }
}
