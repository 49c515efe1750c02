import Foundation

/// A workspace of models: tracks inserts, changes and deletes, and writes them in one transaction on `save()`.
///
/// Within one context each row is one object: fetching the same row twice gives the same instance.
/// A context is used from one thread at a time.
///
/// ## Autosave
/// SwiftData's main context saves on UI events, which a command-line program does not have.
/// Here a context with `autosaveEnabled` (the container's `mainContext`) saves its pending
/// changes at three moments a program can rely on:
/// 1. when `autosaveThreshold` changes have accumulated (default 1,000 models inserted, changed or deleted);
/// 2. when the context is deinitialized (the container and its main context going away);
/// 3. when the process exits normally (`exit()` or the end of `main`), through an `atexit` hook.
/// A crash or SIGKILL loses what was not saved; call `save()` where a change must be durable.
/// Autosave errors go to `autosaveErrorHandler` (by default, printed on standard error).
public final class ModelContext {
    /// The container whose store this context reads and writes.
    public let container: ModelContainer
    /// The context's SQLite connection, opened on first use: creating a context cannot fail, as
    /// in SwiftData (`let context = ModelContext(container)`); the first fetch or save that cannot
    /// open the store throws instead.
    var connection: Connection {
        get throws {
            if let opened { return opened }
            let connection = try container.openConnection()
            connection.trace = traceHandler
            opened = connection
            return connection
        }
    }
    @exclusivity(unchecked) private var opened: Connection?
    @exclusivity(unchecked) private var traceHandler: ((String) -> Void)?
    let schema: Schema
    let uniquenessPolicy: ModelConfiguration.UniquenessPolicy

    /// Whether pending changes are saved automatically (see the type's documentation).
    public var autosaveEnabled: Bool {
        didSet { autosaveEnabled ? AutosaveRegistry.add(self) : AutosaveRegistry.remove(self) }
    }
    /// Names the saves of this context in the store's history (`DefaultHistoryTransaction.author`),
    /// so that a reader can tell its changes from another's ("widget", "sync").
    public var author: String?
    /// How many pending model changes trigger an autosave.
    public var autosaveThreshold = 1_000
    /// Receives errors from autosaves, which have no caller to throw to.
    public var autosaveErrorHandler: (Error) -> Void = { error in
        FileHandle.standardError.write(Data("OpenSwiftData: autosave failed: \(error)\n".utf8))
    }
    /// Receives errors from loading a property on first access (an external-storage value whose
    /// blob is missing or damaged, a relationship whose rows cannot be read), which has no caller
    /// to throw to: the property then reads as nil or empty. By default, printed on standard error.
    /// (SwiftData stops the program there.)
    public var loadErrorHandler: (Error) -> Void = { error in
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        FileHandle.standardError.write(Data("OpenSwiftData: a property could not be loaded and reads as empty: \(text)\n".utf8))
    }

    // MARK: Tracking

    @exclusivity(unchecked) var insertedList: [any PersistentModel] = []
    @exclusivity(unchecked) var changedList: [any PersistentModel] = []
    @exclusivity(unchecked) var deletedList: [any PersistentModel] = []
    /// The live model of each loaded row, not retained. Entries are removed as the model is freed
    /// (by the `deinit` that `@Model` generates, else by its backing data); both pointers are valid
    /// while the entry exists.
    @exclusivity(unchecked) var registry = Registry()
    @exclusivity(unchecked) var nextTemporaryKey: Int64 = -1
    /// Set by `deinit`: its autosave posts no notification.
    var isDeinitializing = false
    /// Set while `willSave` is posted: a `save()` from an observer returns at once.
    var isAnnouncingSave = false
    /// Simulates a crash between a commit and the removal of the blobs it released (tests only).
    @exclusivity(unchecked) var skipsBlobRemovalForTesting = false
    /// Rows written inside a pending-changes savepoint, so a fetch maps them to their unsaved objects.
    @exclusivity(unchecked) var pendingByKey: [RegistryKey: any PersistentModel] = [:]
    /// What the save under way changes, for the store's history (nil outside a save).
    @exclusivity(unchecked) var historyLog: HistoryLog?
    /// Digests the app computed for external values it assigned (`noteExternalDigest`).
    @exclusivity(unchecked) var knownDigests = KnownDigests()

    struct RegistryKey: Hashable {
        let entity: ObjectIdentifier
        let primaryKey: Int64
    }

    /// A registered model, known by its backing data. Models whose class lets `@Model` generate
    /// its `deinit` leave the registry as they die, so the backing data's unowned `owner` is valid
    /// while registered (a weak reference would give every model a side table and make each of its
    /// retains slow); the rare class with a `deinit` of its own is reached through `weakOwner`.
    struct Registered {
        unowned(unsafe) let backing: _BackingData

        var object: AnyObject? {
            if let weakOwner = backing.weakOwner { return weakOwner.value }
            return backing.owner
        }
    }

    /// A new context on its own SQLite connection (opened on first use).
    public convenience init(_ container: ModelContainer) {
        self.init(container: container, connection: nil, autosave: false)
    }

    /// A context on the container's own connection (migration stages).
    convenience init(container: ModelContainer) throws {
        self.init(container: container, connection: container.anchorConnection, autosave: false)
    }

    init(container: ModelContainer, connection: Connection?, autosave: Bool) {
        self.container = container
        self.opened = connection
        self.schema = container.schema
        self.uniquenessPolicy = container.configuration.uniquenessPolicy
        self.autosaveEnabled = autosave
        if autosave { AutosaveRegistry.add(self) }
    }

    deinit {
        AutosaveRegistry.remove(self)
        // A context going away is not handed to observers (it cannot outlive its deinit).
        isDeinitializing = true
        if autosaveEnabled { autosave() }
    }

    func autosave() {
        guard hasChanges else { return }
        do { try save() } catch { autosaveErrorHandler(error) }
    }

    // MARK: State

    /// Whether there are unsaved inserts, changes or deletes.
    public var hasChanges: Bool { !insertedList.isEmpty || !changedList.isEmpty || !deletedList.isEmpty }
    /// Models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { insertedList }
    /// Saved models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { changedList }
    /// Models deleted since the last save (still in the store until it).
    public var deletedModelsArray: [any PersistentModel] { deletedList }

    /// Every SQL statement this context runs is passed to `handler` (nil to stop).
    public func traceSQL(_ handler: ((String) -> Void)?) {
        traceHandler = handler
        opened?.trace = handler
    }

    // MARK: Insert and delete

    /// Registers a new model; it is written on the next save. Related new models are inserted with it.
    public func insert<T: PersistentModel>(_ model: T) {
        let backing = model.persistentBackingData
        switch backing.state {
        case .inserted, .persisted:
            return
        case .deleted:
            if backing.context === self {
                deletedList.removeAll { $0 === model }
                backing.state = .persisted
            }
            return
        case .detached:
            break
        }
        let entity = EntityCache.entity(for: T.self)
        backing.entity = entity
        backing.ensureSlot(entity.properties.count - 1)
        // A `let` lives in the model's own field: what it holds now is what gets stored.
        for property in entity.constants { backing.values[property.index] = model[keyPath: property.keyPath] }
        // By index, the slot checked first: iterating the properties themselves copies each
        // `Property` (a dozen references retained and released) for every model inserted.
        for index in entity.properties.indices where backing.values.isUnset(index) {
            let property = entity.properties[index]
            if let makeDefault = property.metadata.defaultValue {
                backing.values[property.index] = makeDefault()
            } else if case .toMany = property.kind {
                backing.values[property.index] = property.emptyArray()
            } else if property.isOptional {
                backing.values[property.index] = property.nilValue()
            }
        }
        backing.state = .inserted
        backing.context = self
        backing.owner = model
        backing.primaryKey = nextTemporaryKey
        nextTemporaryKey -= 1
        insertedList.append(model)
        connectInverses(of: model, entity: entity)
        noteChange()
    }

    /// Marks a model for deletion on the next save (an unsaved model is simply forgotten).
    public func delete<T: PersistentModel>(_ model: T) {
        let backing = model.persistentBackingData
        switch backing.state {
        case .inserted where backing.context === self:
            insertedList.removeAll { $0 === model }
            backing.state = .detached
            backing.context = nil
        case .persisted where backing.context === self:
            backing.state = .deleted
            deletedList.append(model)
            noteChange()
        default:
            return
        }
    }

    /// Marks every model matching `predicate` for deletion.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        try enumerate(descriptor, batchSize: 1000) { delete($0) }
    }

    /// Discards every pending change: inserted models are forgotten, changed ones get their saved values back.
    public func rollback() {
        knownDigests.removeAll()
        for model in insertedList {
            let backing = model.persistentBackingData
            backing.state = .detached
            backing.context = nil
            backing.primaryKey = 0
        }
        for model in changedList {
            let backing = model.persistentBackingData
            if let snapshot = backing.snapshot {
                backing.observingChange(of: backing.changed) { backing.values.replace(with: snapshot) }
                // What was not loaded when the snapshot was taken is loaded again on next access.
                for (index, value) in snapshot.enumerated() where value == nil || value is ExternalFault || value is ToOneFault {
                    backing.unloaded.insert(index)
                }
            }
            backing.snapshot = nil
            backing.changed.removeAll()
            backing.isListedAsChanged = false
        }
        for model in deletedList { model.persistentBackingData.state = .persisted }
        // Members an unloaded to-many relationship was to gain: read from the store again instead.
        for entry in registry.entries where !entry.backing.pendingMembers.isEmpty { entry.backing.pendingMembers = [:] }
        // A loaded to-many may hold members linked since (appended from either side, or merged
        // from those pending): every loaded one is read from the store again when next asked for.
        refaultToManyRelationships()
        insertedList = []
        changedList = []
        deletedList = []
    }

    /// Runs `block`, then saves; if `block` or the save throws, pending changes are rolled back.
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    /// The registered model with this identifier, if this context has it in memory.
    public func registeredModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
        registry[RegistryKey(entity: ObjectIdentifier(T.self), primaryKey: id.primaryKey)]?.object as? T
    }

    /// The model with this identifier, from memory or the store.
    public func model<T: PersistentModel>(for id: PersistentIdentifier, as type: T.Type = T.self) throws -> T? {
        if let model: T = registeredModel(for: id) { return model }
        return try fetchByKeys(T.self, keys: [id.primaryKey]).first
    }

    // MARK: Bookkeeping

    func didChange(_ backing: _BackingData) {
        guard !backing.isListedAsChanged, let owner = backing.owner as? any PersistentModel else { return }
        backing.isListedAsChanged = true
        changedList.append(owner)
        noteChange()
    }

    func noteChange() {
        if autosaveEnabled && insertedList.count + changedList.count + deletedList.count >= autosaveThreshold {
            autosave()
        }
    }

    func register<T: PersistentModel>(_ model: T, entity: ObjectIdentifier, primaryKey: Int64) {
        register(model, backing: model.persistentBackingData, in: registry.rows(of: entity), primaryKey: primaryKey)
    }

    func register<T: PersistentModel>(_ model: T, backing: _BackingData, in rows: RowTable, primaryKey: Int64) {
        backing.isRegistered = true
        if !T._unregistersOnDeinit && backing.weakOwner == nil { backing.weakOwner = WeakBox(model) }
        rows[primaryKey] = Registered(backing: backing)
    }

    /// Called by a backing data as its model is freed.
    func unregister(_ backing: _BackingData, entity: ObjectIdentifier) {
        let key = RegistryKey(entity: entity, primaryKey: backing.primaryKey)
        if let entry = registry[key], entry.backing === backing { registry[key] = nil }
    }
}
