import Foundation

// Relationships in memory: lazy loading, inverse maintenance and delete rules.

extension ModelContext {
    /// Loads a lazily loaded property (a to-one fault or a to-many relationship).
    func load(_ index: Int, of backing: _BackingData) {
        guard let entity = backing.entity else {
            backing.unloaded.remove(index)
            return
        }
        let property = entity.properties[index]
        if property.hasColumn && backing.values[index] == nil && backing.primaryKey > 0 {
            // A column the fetch left out (`propertiesToFetch`).
            do {
                try loadColumns(of: backing, entity: entity, index: index)
            } catch {
                loadErrorHandler(error)
            }
            if backing.values[index] == nil { backing.values[index] = property.nilValue() ?? property.metadata.defaultValue?() }
            if !backing.unloaded.contains(index) { return }
        }
        backing.unloaded.remove(index)
        do {
            switch property.kind {
            case .attribute where property.isExternalStorage:
                guard let fault = backing.values[index] as? ExternalFault, let external = container.external else { return }
                backing.values[index] = try external.read(fault.digest)
            case .toOne(let targetType):
                guard backing.values[index] is ToOneFault else { return }
                // Group faulting: the same relationship of every model fetched with this one, in one query.
                let owners = [backing] + groupMates(of: backing, entity: entity, unloaded: index)
                let faults = owners.compactMap { ($0.values[index] as? ToOneFault)?.primaryKey }
                func load<T: PersistentModel>(_ type: T.Type) throws {
                    let targets = Dictionary(try fetchByKeys(T.self, keys: Array(Set(faults))).map { ($0.persistentBackingData.primaryKey, $0) },
                                             uniquingKeysWith: { a, _ in a })
                    for owner in owners {
                        guard let fault = owner.values[index] as? ToOneFault else { continue }
                        owner.values[index] = targets[fault.primaryKey].map { $0 as Any } ?? property.nilValue()
                        owner.unloaded.remove(index)
                    }
                }
                try _openExistential(targetType, do: load)
            case .toMany(let targetType):
                guard backing.primaryKey > 0, let link = RelationshipGraph.link(of: property, in: entity) else {
                    if backing.values[index] == nil { backing.values[index] = property.emptyArray() }
                    return
                }
                let owners = [backing] + groupMates(of: backing, entity: entity, unloaded: index)
                func load<T: PersistentModel>(_ type: T.Type) throws {
                    let related = try fetchRelated(T.self, link: link, owners: owners.map(\.primaryKey))
                    for owner in owners {
                        owner.values[index] = related[owner.primaryKey] ?? []
                        owner.unloaded.remove(index)
                    }
                }
                try _openExistential(targetType, do: load)
            default:
                return
            }
        } catch {
            loadErrorHandler(error)
            if case .toMany = property.kind { backing.values[index] = property.emptyArray() }
            if property.isExternalStorage { backing.values[index] = property.nilValue() ?? Data() }
        }
    }

    /// The other live models fetched together with `backing` whose property `index` is still unloaded.
    func groupMates(of backing: _BackingData, entity: Schema.Entity, unloaded index: Int) -> [_BackingData] {
        guard let group = backing.fetchGroup, group.keys.count > 1 else { return [] }
        let type = ObjectIdentifier(entity.type)
        return group.keys.compactMap { key -> _BackingData? in
            guard key != backing.primaryKey, let entry = registry[RegistryKey(entity: type, primaryKey: key)], entry.object != nil,
                  entry.backing.unloaded.contains(index), entry.backing.state != .detached else { return nil }
            return entry.backing
        }
    }

    /// After `insert`: new related models are inserted too, and each relationship's inverse is set.
    func connectInverses(of model: any PersistentModel, entity: Schema.Entity) {
        let backing = model.persistentBackingData
        for property in entity.properties where property.isRelationship {
            guard let value = backing.values[property.index] else { continue }
            let inverse = RelationshipGraph.inverse(of: property, in: entity)
            for related in Relationships.models(in: value) {
                if related.persistentBackingData.state == .detached { insertAny(related) }
                if let inverse { Relationships.link(related, inverse, to: model) }
            }
        }
    }

    func insertAny(_ model: any PersistentModel) {
        func open<T: PersistentModel>(_ m: T) { insert(m) }
        open(model)
    }

    /// Runs before a save: cascades deletes, refuses `.deny`, clears inverses of `.nullify`.
    func applyDeleteRules() throws {
        var i = 0
        while i < deletedList.count {
            let model = deletedList[i]
            i += 1
            let backing = model.persistentBackingData
            guard let entity = backing.entity else { continue }
            for property in entity.properties where property.isRelationship {
                let rule = property.relationship?.deleteRule ?? .nullify
                guard rule != .noAction else { continue }
                if backing.unloaded.contains(property.index) { load(property.index, of: backing) }
                let related = backing.values[property.index].map(Relationships.models(in:)) ?? []
                switch rule {
                case .cascade:
                    for child in related where child.persistentBackingData.state == .persisted { deleteAny(child) }
                case .deny:
                    if related.contains(where: { $0.persistentBackingData.state != .deleted }) {
                        throw ModelError.deleteDenied(model: entity.name, relationship: property.name)
                    }
                case .nullify:
                    if let inverse = RelationshipGraph.inverse(of: property, in: entity) {
                        for child in related where child.persistentBackingData.state != .deleted { Relationships.unlink(child, inverse, from: model) }
                    }
                case .noAction:
                    break
                }
            }
        }
    }

    func deleteAny(_ model: any PersistentModel) {
        func open<T: PersistentModel>(_ m: T) { delete(m) }
        open(model)
    }
}

