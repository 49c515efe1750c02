import Foundation

/// Errors of the model layer, each naming what it is about.
public enum ModelError: Error, Equatable, LocalizedError {
    /// The model type is not part of the container's schema.
    case unknownModel(String)
    /// A property's type has no stored representation.
    case unsupportedType(model: String, property: String, type: String)
    /// A save would store a second row with the same value of a `.unique` property
    /// (only with `UniquenessPolicy.fail`; the default policy updates the existing row).
    case uniqueConstraintViolation(model: String, property: String)
    /// A model was used with a context it does not belong to.
    case foreignModel(String)
    /// A stored value could not be read back as the property's type.
    case corruptValue(model: String, property: String, stored: String)
    /// A relationship's delete rule is `.deny` and related models exist.
    case deleteDenied(model: String, relationship: String)
    /// Two to-many relationships of one model name the same inverse. No longer thrown: each keeps its
    /// members in a join table of its own (kept so that code matching it still builds).
    case sharedInverse(model: String, relationships: [String], inverse: String)
    /// A save on a container opened with `allowsSave: false`.
    case readOnlyStore(path: String)
    /// Configurations that cannot be kept as the stores they ask for (`StoreLayout`).
    case severalStores(reason: String)
    /// A history fetch for a transaction type other than `DefaultHistoryTransaction`.
    case unsupportedHistory(type: String)
    /// The store was written by a newer version of the app, which declared these entities or
    /// properties ("Entity" or "Entity.property"): reading works, writing would lose or corrupt them.
    case storeIsNewer(path: String, unknown: [String])
    /// A store opened without migration (read-only, or newer) lacks tables or columns the models read.
    case storeNotMigrated(missing: [String])
    /// The store file does not exist (opening read-only creates nothing).
    case storeNotFound(path: String)
    /// The store is not the one its external-storage folder belongs to (emptied, replaced or
    /// foreign): nothing may be decided from its rows about what the folder's files are for.
    case storeIdentityMismatch(store: String, blobFolder: String, reason: String)
    /// The store's rows reference external-storage values, but the place that held them has none
    /// of them and no owner record: the folder (or bucket prefix) was moved, deleted, or is not
    /// mounted. Nothing is made in its place.
    case blobStoreMissing(store: String, blobFolder: String)
    /// SQLite's integrity check failed: nothing that depends on the store's contents being
    /// complete (garbage collection) may run.
    case storeDamaged(path: String, details: String)

    /// What went wrong, naming the model, property or store, and what to do.
    public var errorDescription: String? {
        switch self {
        case .unknownModel(let name):
            return "\(name) is not in this container's schema; add it to ModelContainer(for:)"
        case .severalStores(let reason):
            return "the configurations cannot be kept as separate stores: \(reason)"
        case .unsupportedHistory(let type):
            return "history is read as DefaultHistoryTransaction, not \(type)"
        case .unsupportedType(let model, let property, let type):
            return "\(model).\(property) has type \(type), which cannot be stored; make it Codable or mark it @Transient"
        case .uniqueConstraintViolation(let model, let property):
            return "another \(model) already has this \(property) (the property is @Attribute(.unique))"
        case .foreignModel(let name):
            return "this \(name) belongs to another ModelContext"
        case .corruptValue(let model, let property, let stored):
            return "the stored value of \(model).\(property) cannot be read: \(stored)"
        case .deleteDenied(let model, let relationship):
            return "cannot delete this \(model): its relationship '\(relationship)' has delete rule .deny and is not empty"
        case .sharedInverse(let model, let relationships, let inverse):
            return "\(model).\(relationships.joined(separator: " and \(model).")) both have the inverse \(inverse), so they would be stored as one "
                + "relationship and read back as the same set; give each its own inverse property (e.g. `leadingYard` and `trailingYard`)"
        case .readOnlyStore(let path):
            return "the store \(path) was opened read-only (allowsSave: false); nothing was written"
        case .storeIsNewer(let path, let unknown):
            return "the store \(path) was written by a newer version of this app (it has \(unknown.joined(separator: ", ")), "
                + "which this version does not know); it can be read but not changed. Upgrade the app to change it; nothing was written"
        case .storeNotMigrated(let missing):
            return "the store lacks \(missing.joined(separator: ", ")); open it once with saving allowed to migrate it"
        case .storeNotFound(let path):
            return "there is no store at \(path)"
        case .storeIdentityMismatch(let store, let folder, let reason):
            return "the store \(store) does not belong with the files in \(folder): \(reason). Nothing was removed. "
                + "Restore the store file from a backup (see the .backup-* files beside it), or move the folder away to start afresh"
        case .blobStoreMissing(let store, let folder):
            return "the store \(store) refers to values stored in \(folder), which holds none of them: it was moved, deleted, or is not mounted. "
                + "Nothing was made in its place; restore it (or mount it) and run again"
        case .storeDamaged(let path, let details):
            return "the store \(path) is damaged (integrity check: \(details)); nothing was removed. "
                + "Restore it from a backup, or recover it with `sqlite3 \(path) .recover`, then run again"
        }
    }
}
