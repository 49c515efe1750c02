import Foundation

/// Entities are derived from a model type alone, so each type's is built once per process.
enum EntityCache {
    private static let lock = NSLock()
    // Unchecked: read once per fetched row, always under `lock` (a checked access was ~40 instructions).
    @exclusivity(unchecked) nonisolated(unsafe) private static var entities: [ObjectIdentifier: Schema.Entity] = [:]

    static func entity(for type: any PersistentModel.Type) -> Schema.Entity {
        lock.lock()
        defer { lock.unlock() }
        if let entity = entities[ObjectIdentifier(type)] { return entity }
        let entity = Schema.Entity(type: type)
        entities[ObjectIdentifier(type)] = entity
        return entity
    }
}
