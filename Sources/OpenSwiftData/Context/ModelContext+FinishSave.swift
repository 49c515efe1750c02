import BlobStore
import Foundation

// What a save does once its transaction committed (moved unchanged from `ModelContext+Save.swift`).

extension ModelContext {
    /// Marks everything saved: inserted models become persisted and registered, deleted ones detached.
    func finishSave() {
        for model in pendingWrites { settleExternalValues(model.persistentBackingData) }
        for model in insertedList {
            let backing = model.persistentBackingData
            backing.state = .persisted
            let key = RegistryKey(entity: ObjectIdentifier(type(of: model)), primaryKey: backing.primaryKey)
            if let other = registry[key]?.object, other !== model, let otherModel = other as? any PersistentModel {
                // An upsert matched a row another object already stands for: both show the saved values.
                let otherBacking = otherModel.persistentBackingData
                otherBacking.observingChange(of: 0..<otherBacking.values.count) { otherBacking.values.replace(with: backing.values.copy) }
                // Its external values are now the row's blobs (faults of the saved digests).
                otherBacking.storedDigests = backing.storedDigests
                otherBacking.unloaded = backing.unloaded
                // Its to-many relationships are what the store holds (the children's keys point at
                // the row), read again when asked for: not the new model's arrays, which the save
                // did not write there (a trip upserted with no stops kept its stops, and a cascade
                // from the older object must still reach them).
                for property in backing.entity?.relationships ?? [] {
                    guard case .toMany = property.kind, property.index < otherBacking.values.count else { continue }
                    otherBacking.values[property.index] = nil
                    otherBacking.unloaded.insert(property.index)
                }
                if !backing.storedDigests.isEmpty { otherBacking.external = container.external }
                for (property, offset) in backing.entity?.constantFields ?? [] {
                    property.metadata.assignConstant!(other, offset, backing.values[property.index]!)
                }
            }
            register(model, entity: key.entity, primaryKey: key.primaryKey)
        }
        for model in changedList {
            let backing = model.persistentBackingData
            backing.changed.removeAll()
            backing.snapshot = nil
            backing.isListedAsChanged = false
        }
        for model in deletedList {
            let backing = model.persistentBackingData
            registry[RegistryKey(entity: ObjectIdentifier(type(of: model)), primaryKey: backing.primaryKey)] = nil
            backing.isRegistered = false
            backing.state = .detached
            backing.context = nil
        }
        insertedList = []
        changedList = []
        deletedList = []
        refaultToManyRelationships()
    }

    /// After a save the store holds every relationship, so loaded to-many arrays go back to being
    /// faults (reloaded, in one query per fetch group, on next access). Without this, a parent that
    /// gained children one save after another would keep every child alive: an import of 10,000
    /// photos would hold 10,000 objects.
    func refaultToManyRelationships() {
        guard schema.entities.contains(where: \.hasToMany) else { return }
        // Hold every model while arrays are dropped: freeing an array frees children, whose backing
        // data then leave the registry; the registry must not change under this loop.
        let live: [(model: AnyObject, backing: _BackingData)] = registry.entries.compactMap { entry in entry.object.map { ($0, entry.backing) } }
        for (_, backing) in live where backing.state == .persisted {
            guard let entity = backing.entity, entity.hasToMany else { continue }
            // Stored now: the store's rows hold them.
            if !backing.pendingMembers.isEmpty { backing.pendingMembers = [:] }
            for property in entity.relationships where !backing.unloaded.contains(property.index) {
                guard case .toMany = property.kind, backing.values[property.index] != nil else { continue }
                // Observers are told: after a rollback the array read next may differ.
                backing.observingChange(of: CollectionOfOne(property.index)) {
                    backing.values[property.index] = nil
                    backing.unloaded.insert(property.index)
                }
            }
        }
    }

    /// After a commit: external values become faults on their digests, so the bytes are not kept in memory.
    func settleExternalValues(_ backing: _BackingData) {
        guard let entity = backing.entity, !entity.externals.isEmpty else { return }
        backing.external = container.external
        for property in entity.externals where backing.state == .inserted || backing.changed.contains(property.index) {
            if let digest = backing.pendingDigests[property.index] {
                backing.storedDigests[property.index] = digest
                backing.values[property.index] = ExternalFault(digest: digest)
                backing.unloaded.insert(property.index)
            } else if backing.values[property.index].map({ $0 is ExternalFault }) != true {
                backing.storedDigests[property.index] = nil
            }
        }
        backing.pendingDigests = [:]
    }
}
