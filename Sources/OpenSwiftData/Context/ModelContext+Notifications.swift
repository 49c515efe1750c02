import Foundation

extension ModelContext {
    /// Posted on `NotificationCenter.default`, with the context as its object, when a save is about
    /// to write the context's pending inserts, changes and deletes (not when it has none). It has
    /// no `userInfo`. Models an observer changes or inserts are saved with the rest.
    public static let willSave = Notification.Name("ModelContext.willSave")

    /// Posted on `NotificationCenter.default`, with the context as its object, when a save has
    /// committed. Its `userInfo` holds, under the raw values of `NotificationKey`, the identifiers of
    /// the models inserted (their permanent identifiers), updated and deleted, each an array of
    /// `PersistentIdentifier` (rows a cascade deleted, or a `.nullify` rule changed, without reading
    /// them are not listed). Posted once the save is over: an observer may save again.
    ///
    /// A context that saves as it is deinitialized (autosave) posts neither notification.
    public static let didSave = Notification.Name("ModelContext.didSave")

    /// The keys of a `didSave` notification's `userInfo`, as their raw values.
    public enum NotificationKey: String {
        /// Not posted here (SwiftData's query generations have no counterpart).
        case queryGeneration
        /// Not posted here: nothing invalidates every model of a context.
        case invalidatedAllIdentifiers
        /// `[PersistentIdentifier]`: the models inserted.
        case insertedIdentifiers
        /// `[PersistentIdentifier]`: the models whose persisted values changed.
        case updatedIdentifiers
        /// `[PersistentIdentifier]`: the models deleted.
        case deletedIdentifiers
    }
}

/// The `userInfo` of `ModelContext.didSave`.
enum SaveNotification {
    /// The identifiers of a save's models, taken after the rows are written (so inserted models
    /// have their permanent keys) and before the context's lists are cleared.
    static func identifiers(inserted: [any PersistentModel], updated: [any PersistentModel], deleted: [any PersistentModel]) -> [AnyHashable: Any] {
        let changed = updated.filter { $0.persistentBackingData.state == .persisted }
        return [
            ModelContext.NotificationKey.insertedIdentifiers.rawValue: inserted.map(\.persistentModelID),
            ModelContext.NotificationKey.updatedIdentifiers.rawValue: changed.map(\.persistentModelID),
            ModelContext.NotificationKey.deletedIdentifiers.rawValue: deleted.map(\.persistentModelID),
        ]
    }
}
