import BlobStore
import Foundation

/// The values behind a model's persisted properties, and what its context knows of it.
///
/// `@Model` gives each instance one; the generated accessors read and write `values` by
/// property index. A change to a saved model records the index and tells the context.
public final class _BackingData {
    enum State { case detached, inserted, persisted, deleted }

    /// One slot per persisted property, in declaration order. `nil` means "not set".
    var values: ContiguousArray<Any?>
    /// The values as last saved or fetched, kept from the first change on so `rollback()` can restore them.
    var snapshot: ContiguousArray<Any?>?
    /// Indexes of properties changed since the last save.
    var changed = IndexSetBits()
    var state = State.detached
    /// The row's primary key; 0 before the first save, negative while temporary.
    var primaryKey: Int64 = 0
    weak var context: ModelContext?
    /// The model that owns this backing data. Valid while the model lives, which is as long as anyone can reach this object.
    unowned(unsafe) var owner: AnyObject?
    /// The entity, known once the model is inserted or fetched.
    var entity: Schema.Entity?
    /// Whether the owner is in its context's list of changed models.
    var isListedAsChanged = false
    /// Lazily loaded values (external storage, to-many relationships) not read yet.
    var unloaded = IndexSetBits()

    /// The blob digest each external-storage property has in the stored row (by property index).
    var storedDigests: [Int: BlobDigest] = [:]
    /// Where external-storage values are read from, once the model was fetched or saved.
    var external: ExternalStorage?
    /// Digests of external values written to the blob store for the save in progress.
    var pendingDigests: [Int: BlobDigest] = [:]
    /// The rows fetched together with this one (for group faulting).
    var fetchGroup: FetchGroup?
    /// Whether the context's registry has an entry for this model.
    var isRegistered = false

    public init() { values = [] }

    deinit {
        if isRegistered, let entity, let context { context.unregister(self, entity: ObjectIdentifier(entity.type)) }
    }

    init(values: ContiguousArray<Any?>, primaryKey: Int64) {
        self.values = values
        self.primaryKey = primaryKey
        self.state = .persisted
    }

    @inline(__always) func ensureSlot(_ index: Int) {
        if index >= values.count {
            values.append(contentsOf: repeatElement(nil, count: index - values.count + 1))
        }
    }

    public func _initValue<T>(_ value: T, at index: Int) {
        ensureSlot(index)
        values[index] = value
    }

    public func _getValue<T>(at index: Int) -> T {
        if unloaded.contains(index) { loadDetachedOrFromContext(index) }
        guard index < values.count, let value = values[index] else {
            fatalError("OpenSwiftData: property \(index) of \(owner.map { String(describing: type(of: $0)) } ?? "a model") read before it was set")
        }
        return value as! T
    }

    /// Loads a lazily loaded value: through the context, or, when the context is gone, from the
    /// external storage directly (relationships then read as empty).
    func loadDetachedOrFromContext(_ index: Int) {
        if let context {
            context.load(index, of: self)
            return
        }
        unloaded.remove(index)
        guard let entity, index < entity.properties.count else { return }
        let property = entity.properties[index]
        if let fault = values[index] as? ExternalFault, let external {
            values[index] = (try? external.read(fault.digest)) ?? property.nilValue() ?? Data()
        } else if case .toMany = property.kind {
            values[index] = property.emptyArray()
        } else if values[index] is ToOneFault {
            values[index] = property.nilValue()
        }
    }

    public func _setValue<T, Model: PersistentModel>(_ value: T, at index: Int, of model: Model) {
        let old = _setRaw(value, at: index)
        if entity == nil {
            entity = EntityCache.entity(for: Model.self)
            owner = model
        }
        let property = entity!.properties[index]
        if property.isRelationship { Relationships.didChange(model, property: property, old: old) }
    }

    /// Stores a value and records the change, without relationship maintenance; returns the old value.
    @discardableResult
    func _setRaw(_ value: Any?, at index: Int) -> Any? {
        ensureSlot(index)
        if unloaded.contains(index) && state == .persisted { context?.load(index, of: self) }
        let old = values[index]
        unloaded.remove(index)
        if state == .persisted, let context {
            if snapshot == nil { snapshot = values }
            changed.insert(index)
            values[index] = value
            context.didChange(self)
        } else {
            values[index] = value
        }
        return old
    }

    func identifier<M: PersistentModel>(for type: M.Type) -> PersistentIdentifier {
        PersistentIdentifier(entityName: String(describing: type), primaryKey: primaryKey)
    }
}

/// A small set of property indexes (models rarely have more than 64 properties; more spill into an array).
struct IndexSetBits: Sequence {
    private var low: UInt64 = 0
    private var high: Set<Int> = []

    var isEmpty: Bool { low == 0 && high.isEmpty }
    func contains(_ i: Int) -> Bool { i < 64 ? low & (1 << UInt64(i)) != 0 : high.contains(i) }
    mutating func insert(_ i: Int) { if i < 64 { low |= 1 << UInt64(i) } else { high.insert(i) } }
    mutating func remove(_ i: Int) { if i < 64 { low &= ~(1 << UInt64(i)) } else { high.remove(i) } }
    mutating func removeAll() { low = 0; high = [] }

    func makeIterator() -> AnyIterator<Int> {
        var bits = low
        var rest = high.sorted().makeIterator()
        return AnyIterator {
            if bits != 0 {
                let i = bits.trailingZeroBitCount
                bits &= bits - 1
                return i
            }
            return rest.next()
        }
    }
}
