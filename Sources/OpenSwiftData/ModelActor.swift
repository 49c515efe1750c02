import Dispatch
import Foundation

/// What runs a model actor's code: it owns the actor's context (SwiftData's `ModelExecutor`).
public protocol ModelExecutor: AnyObject, Sendable {
    var modelContext: ModelContext { get }
}

/// A model executor that is also the actor's serial executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// Runs a model actor's jobs one at a time on a serial dispatch queue of its own, so its
/// context is only ever used from one thread at a time.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context the actor's code uses.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor that runs jobs one at a time on a serial queue of its own, for `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "OpenSwiftData.ModelActor")
    }

    /// Runs `job` on the executor's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, for the actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An actor with a model context of its own (declare it with `@ModelActor`).
public protocol ModelActor: Actor {
    nonisolated var modelContainer: ModelContainer { get }
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's own context: use it only inside the actor.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The actor runs on its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        (modelExecutor as! any SerialExecutor).asUnownedSerialExecutor()
    }

    /// The model with this identifier, from the actor's context or its store.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        try? modelContext.model(for: id, as: T.self)
    }
}

extension ModelContext {
    /// SwiftData's form: the model with this identifier, from this context or the store, as
    /// `any PersistentModel` (`context.model(for: id) as? Trip`). As in SwiftData, a model whose row
    /// is gone comes back as a placeholder whose properties cannot be read; `model(for:as:)` and
    /// the `[id, as:]` subscript say nil instead.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let entity = schema.entity(named: persistentModelID.entityName) else {
            preconditionFailure("OpenSwiftData: \(persistentModelID.entityName) is not in this context's schema")
        }
        func find<T: PersistentModel>(_ type: T.Type) -> any PersistentModel {
            if let found = (try? model(for: persistentModelID, as: T.self)) ?? nil { return found }
            return T(backingData: _BackingData._make(for: T.self, count: entity.properties.count))
        }
        return _openExistential(entity.type, do: find)
    }

    /// The model with this identifier, from this context or the store (nil if there is none).
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        try? model(for: id, as: T.self)
    }
}
