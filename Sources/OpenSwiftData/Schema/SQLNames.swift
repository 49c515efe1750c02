import Foundation

/// Where a model's values are in SQLite, for an app's own SQL beside its models (triggers,
/// full-text indexes, aggregates run through `ModelContext.query` and `execute`), so that such SQL
/// names nothing by a string the schema already knows. Every name comes quoted, ready to splice.
/// (Not SwiftData API: SwiftData keeps its store's layout to itself.)
///
/// ```swift
/// let photos = SQLNames.table(Photo.self), album = SQLNames.column(\Photo.album)
/// try context.query("SELECT \(album), count(*) FROM \(photos) GROUP BY \(album)")
/// ```
///
/// Values are stored as `SQLiteValueConvertible` says: a `Date` as `Date.sqliteValue` (REAL
/// seconds since 2001-01-01 UTC), read back with `Date(sqliteValue:)`; a to-one relationship's
/// column holds the related row's `primaryKey` column value, nil as NULL.
public enum SQLNames {
    /// The primary-key column every model's table has (`PersistentIdentifier.primaryKey`): `"_pk"`.
    public static let primaryKey = quoted("_pk")

    /// The table that holds `type`'s rows.
    public static func table<T: PersistentModel>(_ type: T.Type) -> String {
        EntityCache.entity(for: type).table
    }

    /// The column of a stored property: an attribute, or a to-one relationship (the related
    /// row's primary key). A to-many relationship, a transient or an unknown key path has no
    /// column: that is a programming error, and stops the program naming it.
    public static func column<T: PersistentModel, Value>(_ keyPath: KeyPath<T, Value>) -> String {
        let entity = EntityCache.entity(for: T.self)
        guard let property = entity.property(for: keyPath), property.hasColumn else {
            fatalError("OpenSwiftData: \(keyPath) has no column in \(entity.name)'s table (a to-many relationship, a transient or not persisted)")
        }
        return property.column
    }
}
