import CHandoff
import Observation

/// Observation of a model's persisted properties, as SwiftData's `@Model` classes are `Observable`.
///
/// The generated getters report each read (`_access`) and the setters each write
/// (`_setValue(_:at:of:keyPath:)`) to the model's `ObservationRegistrar`, so that
/// `withObservationTracking`, `Observations` and SwiftUI-style code see them. Changes the runtime
/// makes itself are reported too: the other side of a relationship kept in step, `rollback()`
/// restoring values, and an upsert's saved values shown by the model already standing for the row.
///
/// A model gets its registrar only when it is read while Observation is collecting what is read:
/// a registrar costs ~1,200 instructions to make and free (two allocations), which made walking a
/// relationship of fetched models 45% slower when every model read had one. Observation keeps no
/// public way to ask whether it is collecting, but while it is, it hashes every key path reported
/// to it; so a read first reports a probe key path, whose argument notes on this thread that it
/// was hashed, to one shared sentinel registrar (about 45 instructions), and makes the model's own
/// registrar only then. A model no one has read so is written with no registrar call at all: no
/// observer can be waiting on it. `ObservationTests` fail if a later Observation stops hashing.
extension _BackingData {
    /// Used by the getters `@Model` generates: reports a read of the property at `keyPath`.
    /// The key path is an autoclosure: a key path literal costs ~100 instructions and a retain to
    /// make, paid only when someone observes.
    @inline(__always)
    public func _access<Model: PersistentModel, Value>(_ model: Model, keyPath: @autoclosure () -> KeyPath<Model, Value>) {
        if let observation {
            observation.registrar.access(model, keyPath: keyPath())
        } else if TrackingProbe.isTracking() {
            let made = ModelObservation()
            observation = made
            made.registrar.access(model, keyPath: keyPath())
        }
    }

    /// Used by the setters `@Model` generates: stores the value as `_setValue(_:at:of:)` does, between
    /// the registrar's `willSet` and `didSet` for `keyPath`.
    public func _setValue<Value, Model: PersistentModel>(_ value: Value, at index: Int, of model: Model,
                                                          keyPath: @autoclosure () -> KeyPath<Model, Value>) {
        guard let registrar = observation?.registrar else { return _setValue(value, at: index, of: model) }
        let keyPath = keyPath()
        registrar.willSet(model, keyPath: keyPath)
        _setValue(value, at: index, of: model)
        registrar.didSet(model, keyPath: keyPath)
    }

    /// Used by the `withMutation(keyPath:_:)` that `@Model` generates: `mutation` between `willSet`
    /// and `didSet` (just `mutation` when the model was never read under observation).
    public func _withMutation<Model: PersistentModel, Value, Result>(of model: Model, keyPath: KeyPath<Model, Value>,
                                                                    _ mutation: () throws -> Result) rethrows -> Result {
        guard let registrar = observation?.registrar else { return try mutation() }
        return try registrar.withMutation(of: model, keyPath: keyPath, mutation)
    }

    /// Runs `change`, a change the runtime makes to the values at `indices`, between `willSet` and
    /// `didSet` of each one's key path (nothing more when no property was read under observation).
    func observingChange<Result>(of indices: some Sequence<Int>, _ change: () throws -> Result) rethrows -> Result {
        guard let registrar = observation?.registrar, let owner, let entity else { return try change() }
        let keyPaths = indices.compactMap { $0 < entity.properties.count ? entity.properties[$0].metadata.keyPath : nil }
        for keyPath in keyPaths { Self.report(keyPath, of: owner, to: registrar, willSet: true) }
        defer { for keyPath in keyPaths { Self.report(keyPath, of: owner, to: registrar, willSet: false) } }
        return try change()
    }

    /// `registrar.willSet` or `didSet` for a key path known only as `AnyKeyPath`: its root and
    /// value types opened from the key path itself (the root may be a superclass of the model's).
    private static func report(_ keyPath: AnyKeyPath, of owner: AnyObject, to registrar: ObservationRegistrar, willSet: Bool) {
        guard let root = type(of: keyPath).rootType as? any PersistentModel.Type else { return }
        func withRoot<Root: PersistentModel>(_: Root.Type) {
            guard let model = owner as? Root else { return }
            func withValue<Value>(_: Value.Type) {
                guard let typed = keyPath as? KeyPath<Root, Value> else { return }
                if willSet { registrar.willSet(model, keyPath: typed) } else { registrar.didSet(model, keyPath: typed) }
            }
            _openExistential(type(of: keyPath).valueType, do: withValue)
        }
        _openExistential(root, do: withRoot)
    }
}

/// A model's registrar, in a class of its own so that "has none" is a pointer test (an optional
/// of Observation's resilient struct is tested through its value witnesses, ~6 calls a read).
final class ModelObservation {
    let registrar = ObservationRegistrar()
}

/// Asks whether Observation is collecting reads on this thread (see the extension above).
///
/// Each thread has its own probe. Observation keeps an observer's entry in every registrar it read
/// until the observer fires or is cancelled, so an observer that never fires (one that read models
/// nobody changes) stays in the probe's registrar too; a thread's probe is replaced after 1,024
/// collected reads, and the old one, freed, drops its entries, so they stay bounded.
final class TrackingProbe: Observable, @unchecked Sendable {
    /// Its hash notes on this thread that Observation hashed the probe key path.
    struct Argument: Hashable, Sendable {
        static func == (lhs: Argument, rhs: Argument) -> Bool { true }
        func hash(into hasher: inout Hasher) { chandoff_tracking_set(1) }
    }

    subscript(probe argument: Argument) -> Int { 0 }

    static let keyPath: KeyPath<TrackingProbe, Int> = \TrackingProbe.[probe: Argument()]
    static let replacedAfter = 1_024
    let registrar = ObservationRegistrar()

    /// Whether a read now would be collected by `withObservationTracking` or `Observations`.
    @inline(__always)
    static func isTracking() -> Bool {
        let probe: TrackingProbe
        if let current = chandoff_tracking_probe_get() {
            probe = Unmanaged<TrackingProbe>.fromOpaque(current).takeUnretainedValue()
        } else {
            probe = TrackingProbe()
            chandoff_tracking_probe_set(Unmanaged.passRetained(probe).toOpaque())
        }
        chandoff_tracking_set(0)
        probe.report()
        guard chandoff_tracking_get() != 0 else { return false }
        noteHit()
        return true
    }

    /// Reports the probe key path (in a method of the probe's own, so that its registrar is
    /// passed in place, not copied: Observation's struct is resilient).
    private func report() {
        registrar.access(self, keyPath: Self.keyPath)
    }

    private static func noteHit() {
        let hits = chandoff_tracking_hits_get() + 1
        guard hits >= replacedAfter, let current = chandoff_tracking_probe_get() else { return chandoff_tracking_hits_set(hits) }
        chandoff_tracking_hits_set(0)
        chandoff_tracking_probe_set(nil)
        Unmanaged<TrackingProbe>.fromOpaque(current).release()
    }
}
