import Foundation

/// Contexts with autosave on, saved at normal process exit.
enum AutosaveRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var contexts: [ObjectIdentifier: WeakBox<ModelContext>] = [:]
    nonisolated(unsafe) private static var installed = false

    static func add(_ context: ModelContext) {
        lock.lock()
        defer { lock.unlock() }
        contexts[ObjectIdentifier(context)] = WeakBox(context)
        if !installed {
            installed = true
            atexit { AutosaveRegistry.saveAll() }
        }
    }

    static func remove(_ context: ModelContext) {
        lock.lock()
        contexts[ObjectIdentifier(context)] = nil
        lock.unlock()
    }

    static func saveAll() {
        lock.lock()
        let live = contexts.values.compactMap(\.value)
        lock.unlock()
        for context in live where context.autosaveEnabled { context.autosave() }
    }
}
