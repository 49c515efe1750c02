import CHandoff
import BlobStore
import Foundation

/// The values behind a model's persisted properties, and what its context knows of it.
///
/// `@Model` gives each instance one; the generated accessors read and write `values` by
/// property index. A change to a saved model records the index and tells the context.
///
/// Its stored properties (and those of the context, its registry and a fetch's group) are
/// `@exclusivity(unchecked)`: a context and its models are used from one thread at a time (as in
/// SwiftData), and the runtime's checks of each access were ~10% of a relationship walk's
/// instructions (docs/performance.md). This replaced compiling with `-enforce-exclusivity=unchecked`,
/// an unsafe flag that kept the package from being a dependency by version.
public final class _BackingData {
    enum State { case detached, inserted, persisted, deleted }

    /// One slot per persisted property, in declaration order. `nil` means "not set".
    @exclusivity(unchecked) var values: ValueSlots
    /// The values as last saved or fetched, kept from the first change on so `rollback()` can restore them.
    var snapshot: ContiguousArray<Any?>? {
        get { extras?.snapshot }
        set { if newValue != nil || extras != nil { extrasForWriting.snapshot = newValue } }
    }
    /// Indexes of properties changed since the last save.
    var changed: IndexSetBits {
        get { extras?.changed ?? IndexSetBits() }
        set { if !newValue.isEmpty || extras != nil { extrasForWriting.changed = newValue } }
    }
    // The three one-byte fields are declared together so they share one word of the object.
    @exclusivity(unchecked) var state = State.detached
    /// Whether the owner is in its context's list of changed models.
    @exclusivity(unchecked) var isListedAsChanged = false
    /// Whether the context's registry has an entry for this model.
    @exclusivity(unchecked) var isRegistered = false
    /// The row's primary key; 0 before the first save, negative while temporary.
    @exclusivity(unchecked) var primaryKey: Int64 = 0
    weak var context: ModelContext?
    /// The model that owns this backing data. Valid while the model lives, which is as long as anyone can reach this object.
    unowned(unsafe) var owner: AnyObject?
    /// The entity, known once the model is inserted or fetched.
    @exclusivity(unchecked) var entity: Schema.Entity?
    /// Lazily loaded values (external storage, to-many relationships) not read yet.
    @exclusivity(unchecked) var unloaded = IndexSetBits()

    /// The blob digest each external-storage property has in the stored row (by property index).
    var storedDigests: [Int: BlobDigest] {
        get { extras?.storedDigests ?? [:] }
        set { if !newValue.isEmpty || extras != nil { extrasForWriting.storedDigests = newValue } }
    }
    /// Where external-storage values are read from, once the model was fetched or saved.
    var external: ExternalStorage? {
        get { extras?.external }
        set { if newValue != nil || extras != nil { extrasForWriting.external = newValue } }
    }
    /// Digests of external values written to the blob store for the save in progress.
    var pendingDigests: [Int: BlobDigest] {
        get { extras?.pendingDigests ?? [:] }
        set { if !newValue.isEmpty || extras != nil { extrasForWriting.pendingDigests = newValue } }
    }
    /// Models that joined an unloaded to-many relationship (by index) since it was last read, by
    /// their to-one side being set: the relationship is not loaded for them, and they are added
    /// when it is (`Relationships.link`); a save, which stores them, forgets them.
    var pendingMembers: [Int: [any PersistentModel]] {
        get { extras?.pendingMembers ?? [:] }
        set { if !newValue.isEmpty || extras != nil { extrasForWriting.pendingMembers = newValue } }
    }
    /// The model's observation registrar, made at its first read under observation (see
    /// `BackingData+Observation.swift`).
    @exclusivity(unchecked) var observation: ModelObservation?
    /// The rows fetched together with this one (for group faulting).
    @exclusivity(unchecked) var fetchGroup: FetchGroup?
    /// The model, held weakly, when its class has a `deinit` of its own (so `@Model` could not
    /// add the one that takes it out of the registry): how the registry knows it is gone.
    var weakOwner: WeakBox<AnyObject>? {
        get { extras?.weakOwner }
        set { if newValue != nil || extras != nil { extrasForWriting.weakOwner = newValue } }
    }

    /// What most models never need (changed, external-storage or own-deinit models do), kept out
    /// of line so that the backing data of a plain fetched row stays small and quick to make.
    final class Extras {
        @exclusivity(unchecked) var changed = IndexSetBits()
        @exclusivity(unchecked) var snapshot: ContiguousArray<Any?>?
        @exclusivity(unchecked) var storedDigests: [Int: BlobDigest] = [:]
        @exclusivity(unchecked) var external: ExternalStorage?
        @exclusivity(unchecked) var pendingDigests: [Int: BlobDigest] = [:]
        @exclusivity(unchecked) var weakOwner: WeakBox<AnyObject>?
        @exclusivity(unchecked) var pendingMembers: [Int: [any PersistentModel]] = [:]
    }
    @exclusivity(unchecked) private var extras: Extras?
    private var extrasForWriting: Extras {
        if let extras { return extras }
        let made = Extras()
        extras = made
        return made
    }

    /// Backing data for a model with `count` persisted properties (the slots start unset).
    public init(count: Int) { values = ValueSlots(count: count) }

    /// The initial value of a model's `_$backingData` (generated by `@Model`): a new backing data,
    /// or, while a fetch builds a `type` with `init(backingData:)`, the one the fetch prepared (so
    /// that building a fetched model does not allocate a second one only to drop it). The hand-off
    /// names its type: a model of another type made meanwhile (say, by a `@Transient` property's
    /// default value) gets a backing data of its own; one of the same type, see `makeModel`.
    public static func _make(for type: AnyObject.Type, count: Int) -> _BackingData {
        let typeKey = UnsafeRawPointer(unsafeBitCast(type, to: UnsafeMutableRawPointer.self))
        guard chandoff_type_get() == typeKey else { return _BackingData(count: count) }
        chandoff_asked_set(chandoff_asked_get() + 1)
        guard let handedOff = chandoff_object_get() else { return _BackingData(count: count) }
        // The type stays set, so that a later model of this type asking is counted (see `makeModel`).
        chandoff_set(nil, typeKey)
        return Unmanaged<_BackingData>.fromOpaque(handedOff).takeRetainedValue()
    }

    /// Builds a model around `backing` through `init(backingData:)`, handing `backing` to `_make`
    /// (through a C thread-local, `CHandoff`).
    ///
    /// The model's own `_$backingData` is its last stored property, so its `_make` is the last of
    /// its type to run while it is built, and the first takes the hand-off. When a property's
    /// default value built another model of the same type meanwhile, that one took the row's
    /// backing data (and would have written its own changes to the row): the model is built again
    /// without a hand-off, and the first build, with the model its default value made, is dropped.
    /// A hand-off already waiting (a fetch run by a property's default value while an outer
    /// fetch builds its model) is put back afterwards, so the outer model still finds its own.
    static func makeModel<T: PersistentModel>(_ type: T.Type, around backing: _BackingData) -> T {
        let waiting = (object: chandoff_object_get(), type: chandoff_type_get(), asked: chandoff_asked_get())
        defer {
            chandoff_set(waiting.object, waiting.type)
            chandoff_asked_set(waiting.asked)
        }
        chandoff_set(Unmanaged.passRetained(backing).toOpaque(),
                     UnsafeRawPointer(unsafeBitCast(T.self as AnyObject.Type, to: UnsafeMutableRawPointer.self)))
        chandoff_asked_set(0)
        let model = T(backingData: backing)
        if let unused = chandoff_object_get() {
            // Not taken (a model type without the generated initial value): take the reference back.
            Unmanaged<_BackingData>.fromOpaque(unused).release()
        } else if chandoff_asked_get() > 1 {
            chandoff_set(nil, nil)
            return T(backingData: backing)
        }
        return model
    }

    deinit { leaveRegistry() }

    /// Called by the `deinit` that `@Model` generates: the model is going away, so its context's
    /// registry must stop naming it now (the backing data may be kept alive a little longer).
    public func _modelWillDeinit() {
        leaveRegistry()
        owner = nil
    }

    private func leaveRegistry() {
        if isRegistered, let entity, let context { context.unregister(self, entity: ObjectIdentifier(entity.type)) }
        isRegistered = false
    }

    /// The backing data of a fetched row.
    init(values: consuming ValueSlots, primaryKey: Int64, entity: Schema.Entity, unloaded: IndexSetBits,
         context: ModelContext, fetchGroup: FetchGroup) {
        self.values = values
        self.primaryKey = primaryKey
        self.state = .persisted
        self.entity = entity
        self.unloaded = unloaded
        self.context = context
        self.fetchGroup = fetchGroup
    }

    @inline(__always) func ensureSlot(_ index: Int) {
        values.grow(to: index + 1)
    }

    /// Used by the init accessors `@Model` generates: a property's initial value (a fetched model keeps its row's).
    public func _initValue<T>(_ value: T, at index: Int) {
        // `init(backingData:)` runs the properties' default values too; a fetched model keeps its row's.
        if state == .persisted { return }
        ensureSlot(index)
        values[index] = value
    }

    /// The value a fetched row holds for a `let` property without an initial value (read by the
    /// `init(backingData:)` that `@Model` generates).
    public func _constantValue<T>(at index: Int) -> T {
        guard index < values.count, let value = values[index] else {
            fatalError("OpenSwiftData: constant \(index) of a model was built without a value")
        }
        return exactCast(value, to: T.self)
    }

    /// Used by the getters `@Model` generates: the value, loading it first if it is lazily loaded.
    public func _getValue<T>(at index: Int) -> T {
        if unloaded.contains(index) { loadDetachedOrFromContext(index) }
        // A primitive read in place (`ValueSlots.inline`): no copy of the `Any?`, no cast. Only
        // types an existential keeps in its buffer: String, and plain data of three words or less.
        if index < values.count, T.self == String.self || _isPOD(T.self) && MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment, let value = values.inline(index, as: T.self) {
            return value
        }
        guard index < values.count, let value = values[index] else {
            fatalError("OpenSwiftData: property \(index) of \(owner.map { String(describing: type(of: $0)) } ?? "a model") read before it was set")
        }
        return exactCast(value, to: T.self)
    }

    /// Loads a lazily loaded value: through the context, or, when the context is gone, from the
    /// external storage directly (relationships then read as empty).
    func loadDetachedOrFromContext(_ index: Int) {
        if let context {
            context.load(index, of: self)
            return
        }
        guard let entity, index < entity.properties.count else {
            unloaded.remove(index)
            return
        }
        let property = entity.properties[index]
        if values[index] == nil, property.hasColumn, let container = fetchGroup?.container {
            // A column a fetch left out (`propertiesToFetch`), read through a context of its own.
            do {
                try ModelContext(container).loadColumns(of: self, entity: entity, index: index)
            } catch {
                FileHandle.standardError.write(Data("OpenSwiftData: \(entity.name).\(property.name) could not be loaded: \(error)\n".utf8))
            }
            if values[index] == nil { values[index] = property.nilValue() ?? property.metadata.defaultValue?() }
        }
        unloaded.remove(index)
        if let fault = values[index] as? ExternalFault, let external {
            values[index] = (try? external.read(fault.digest)) ?? property.nilValue() ?? Data()
        } else if case .toMany = property.kind {
            values[index] = property.emptyArray()
        } else if values[index] is ToOneFault {
            values[index] = property.nilValue()
        }
    }

    /// Used by the setters `@Model` generates: stores the value, records the change and keeps inverses.
    public func _setValue<T, Model: PersistentModel>(_ value: T, at index: Int, of model: Model) {
        let old = _setRawUnobserved(value, at: index)
        if entity == nil {
            entity = EntityCache.entity(for: Model.self)
            owner = model
        }
        // The flag first: a `Property` copied for every set would retain a dozen references.
        if entity!.properties[index].isRelationship { Relationships.didChange(model, property: entity!.properties[index], old: old) }
    }

    /// Stores a value and records the change, without relationship maintenance, telling observers
    /// (the runtime's own changes: a relationship's other side); returns the old value.
    @discardableResult
    func _setRaw(_ value: Any?, at index: Int) -> Any? {
        observingChange(of: CollectionOfOne(index)) { _setRawUnobserved(value, at: index) }
    }

    /// Stores a value and records the change; the setter's caller tells observers.
    @discardableResult
    func _setRawUnobserved(_ value: Any?, at index: Int) -> Any? {
        ensureSlot(index)
        // The old value is loaded first (a relationship's inverse needs it), except an external
        // value's: its blob is not read only to be replaced (the fault stays in the snapshot).
        if unloaded.contains(index) && state == .persisted && !(values[index] is ExternalFault) { context?.load(index, of: self) }
        let old = values[index]
        unloaded.remove(index)
        if state == .persisted, let context {
            if snapshot == nil { snapshot = values.copy }
            changed.insert(index)
            values[index] = value
            context.didChange(self)
        } else {
            values[index] = value
        }
        return old
    }

    func identifier<M: PersistentModel>(for type: M.Type) -> PersistentIdentifier {
        // The entity's name is `String(describing: type)`, made once (formatting it per call was
        // most of a save's cost once `didSave` listed every identifier).
        if let entity, entity.type == type { return PersistentIdentifier(entityName: entity.name, primaryKey: primaryKey) }
        return PersistentIdentifier(entityName: String(describing: type), primaryKey: primaryKey)
    }
}

/// `value as! T`, without the runtime's general cast when the value's dynamic type is exactly `T`
/// (the usual case: a slot holds what the property's setter or its column's reader put there).
@inline(__always)
func exactCast<T>(_ value: Any, to type: T.Type) -> T {
    // Returning `T` (not `T?`, whose metadata the runtime would look up on every call).
    func exact<U>(_ opened: U) -> T { U.self == T.self ? unsafeBitCast(opened, to: T.self) : opened as! T }
    return _openExistential(value, do: exact)
}
