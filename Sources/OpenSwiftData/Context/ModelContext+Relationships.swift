import BlobStore
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
                let back = RelationshipGraph.inverse(of: property, in: entity)
                func load<T: PersistentModel>(_ type: T.Type) throws {
                    let related = try fetchRelated(T.self, link: link, owners: owners.map(\.primaryKey))
                    for owner in owners {
                        var members = related[owner.primaryKey] ?? []
                        if let pending = owner.pendingMembers.removeValue(forKey: index), let back {
                            // Joined since the store was read: still this owner's, and not deleted.
                            var present = Set(members.map { ObjectIdentifier($0) })
                            for case let member as T in pending where member.persistentBackingData.state == .inserted || member.persistentBackingData.state == .persisted {
                                let current = member.persistentBackingData.values[back.index].flatMap { $0 as? any PersistentModel }
                                guard let current, current === owner.owner, present.insert(ObjectIdentifier(member)).inserted else { continue }
                                members.append(member)
                            }
                        }
                        owner.values[index] = unsafeBitCast(members, to: [T].self)
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
            // A to-one whose row could not be read reads as nil (the fault left in place was cast
            // to the model's type by the getter: a crash).
            if backing.values[index] is ToOneFault { backing.values[index] = property.nilValue() }
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
            // A to-one that several to-manys share says the owner, not which list: none is joined.
            let shared = RelationshipGraph.sharers(of: property, in: entity) != nil
            let inverse = shared ? nil : RelationshipGraph.inverse(of: property, in: entity)
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
    ///
    /// A cascade through a relationship that is not loaded does not load it: the related rows'
    /// keys are read with one query per relationship and level (`CascadePlan`). Those in memory are
    /// deleted as models (their own rules run as above); the others are deleted as rows, in one
    /// statement per entity, their external-storage digests read in the same pass so the save
    /// releases their blobs. Rows of an entity that a `.deny` rule can involve are loaded as
    /// models instead, so that rule sees them.
    func applyDeleteRules() throws -> CascadePlan {
        var plan = CascadePlan()
        var denied: [(model: any PersistentModel, entity: Schema.Entity, property: Schema.Property)] = []
        var i = 0
        repeat {
            while i < deletedList.count || !plan.pending.isEmpty {
                while i < deletedList.count {
                    let model = deletedList[i]
                    i += 1
                    let backing = model.persistentBackingData
                    guard let entity = backing.entity else { continue }
                    for property in entity.relationships {
                        let rule = property.relationship?.deleteRule ?? .nullify
                        switch rule {
                        case .noAction:
                            continue
                        case .deny:
                            denied.append((model, entity, property))
                            continue
                        case .cascade where backing.unloaded.contains(property.index) && backing.primaryKey > 0
                                            && backing.pendingMembers[property.index] == nil:
                            plan.follow(property, of: entity, keys: [backing.primaryKey])
                            continue
                        default:
                            break
                        }
                        if backing.unloaded.contains(property.index) { load(property.index, of: backing) }
                        let related = backing.values[property.index].map(Relationships.models(in:)) ?? []
                        if rule == .cascade {
                            for child in related where child.persistentBackingData.state == .persisted { deleteAny(child) }
                        } else if let sharers = RelationshipGraph.sharers(of: property, in: entity) {
                            // A model leaving an owner through a shared to-one leaves all its lists.
                            for owner in related where owner.persistentBackingData.state != .deleted {
                                for sharer in sharers { Relationships.leave(owner, sharer, of: model) }
                            }
                        } else if let inverse = RelationshipGraph.inverse(of: property, in: entity) {
                            for child in related where child.persistentBackingData.state != .deleted { Relationships.unlink(child, inverse, from: model) }
                        }
                    }
                }
                if let step = plan.pending.popLast() { try cascade(step, into: &plan) }
            }
            // A row deleted by key that a load made a model of meanwhile (a `.nullify`'s inverse
            // read, say) is deleted as a model too: no live model stays over a deleted row.
            deleteModels(ofRowsIn: plan)
        } while i < deletedList.count
        // `.deny` last, once everything this save deletes is known: a model that a cascade still
        // to come would have deleted does not refuse the save.
        for (model, entity, property) in denied {
            let backing = model.persistentBackingData
            if backing.unloaded.contains(property.index) { load(property.index, of: backing) }
            let related = backing.values[property.index].map(Relationships.models(in:)) ?? []
            let blocking = related.contains { other in
                let otherBacking = other.persistentBackingData
                guard otherBacking.state != .deleted, let otherEntity = otherBacking.entity else { return false }
                return !plan.contains(otherEntity, otherBacking.primaryKey)
            }
            if blocking { throw ModelError.deleteDenied(model: entity.name, relationship: property.name) }
        }
        return plan
    }

    /// Deletes, as models, the registered models of rows the plan deletes by key.
    private func deleteModels(ofRowsIn plan: CascadePlan) {
        for (entity, keys) in plan.rows {
            let rows = registry.rows(of: ObjectIdentifier(entity.type))
            guard rows.count > 0 else { continue }
            for key in keys {
                if let object = rows[key]?.object as? any PersistentModel, object.persistentBackingData.state == .persisted {
                    deleteAny(object)
                }
            }
        }
    }

    /// Deletes the rows that `step`'s owners reach through its relationship: models in memory
    /// through `delete`, the rest as rows (or as loaded models where a `.deny` rule could see them).
    private func cascade(_ step: CascadePlan.Step, into plan: inout CascadePlan) throws {
        guard let target = schema.entity(for: step.targetType) else { return }
        let type = ObjectIdentifier(target.type)
        var rows: [Int64] = []
        for key in try relatedKeys(step) where !plan.contains(target, key) {
            if let object = registry[RegistryKey(entity: type, primaryKey: key)]?.object as? any PersistentModel {
                if object.persistentBackingData.state == .persisted { deleteAny(object) }
            } else {
                rows.append(key)
            }
        }
        guard !rows.isEmpty else { return }
        if schema.denyRuleCanInvolve(target) {
            func load<T: PersistentModel>(_ type: T.Type) throws {
                for model in try fetchByKeys(T.self, keys: rows) { delete(model) }
            }
            try _openExistential(target.type, do: load)
            return
        }
        plan.add(target, keys: rows)
        for property in target.externals {
            let statement = try connection.statement(
                "SELECT \(property.column) FROM \(target.table) WHERE \"_pk\" IN (SELECT value FROM json_each(?)) AND \(property.column) IS NOT NULL")
            try statement.bind([.text(jsonArray(rows))])
            while try statement.step() {
                if statement.isText(0), let digest = BlobDigest(hex: statement.text(0)) { plan.digests.insert(digest) }
            }
            statement.reset()
        }
        for property in target.relationships where property.relationship?.deleteRule == .cascade {
            plan.follow(property, of: target, keys: rows)
        }
    }

    /// The primary keys of the rows related to `step`'s owners through its relationship.
    private func relatedKeys(_ step: CascadePlan.Step) throws -> [Int64] {
        let sql: String
        switch step.property.kind {
        case .toOne:
            sql = "SELECT \(step.property.column) FROM \(step.owner.table) WHERE \"_pk\" IN (SELECT value FROM json_each(?)) AND \(step.property.column) IS NOT NULL"
        case .toMany:
            guard let target = schema.entity(for: step.targetType), let link = RelationshipGraph.link(of: step.property, in: step.owner) else { return [] }
            let rows = link.rows(of: target, as: PredicateTranslator.rootAlias, ownerKey: "x")
            let ownerColumn: String
            switch link {
            case .foreignKey(let column): ownerColumn = "\(PredicateTranslator.rootAlias).\(column)"
            case .joinTable(_, let column, _): ownerColumn = "\(PredicateTranslator.rootAlias)j.\(quoted(column))"
            }
            sql = "SELECT DISTINCT \(PredicateTranslator.rootAlias).\"_pk\" \(rows.from) WHERE \(ownerColumn) IN (SELECT value FROM json_each(?))"
        default:
            return []
        }
        let statement = try connection.statement(sql)
        try statement.bind([.text(jsonArray(step.keys))])
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(0)) }
        statement.reset()
        return keys
    }

    func deleteAny(_ model: any PersistentModel) {
        func open<T: PersistentModel>(_ m: T) { delete(m) }
        open(model)
    }
}


/// What a save's cascades delete without loading: rows by entity, the blobs they referenced, and
/// the relationships still to follow.
struct CascadePlan {
    struct Step {
        let owner: Schema.Entity
        let property: Schema.Property
        var keys: [Int64]
        var targetType: any PersistentModel.Type {
            switch property.kind {
            case .toOne(let type), .toMany(let type): return type
            default: return owner.type
            }
        }
    }
    /// Rows to delete, by entity, in the order their entities were first reached.
    private(set) var rows: [(entity: Schema.Entity, keys: Set<Int64>)] = []
    /// Digests held by the external-storage columns of those rows.
    var digests: Set<BlobDigest> = []
    var pending: [Step] = []

    /// Queues the rows that `keys` reach through `property`, merged with the step queued last
    /// when that follows the same relationship (the owners of one delete come in a run).
    mutating func follow(_ property: Schema.Property, of owner: Schema.Entity, keys: [Int64]) {
        if let last = pending.indices.last, pending[last].owner === owner, pending[last].property.index == property.index {
            pending[last].keys += keys
        } else {
            pending.append(Step(owner: owner, property: property, keys: keys))
        }
    }

    func contains(_ entity: Schema.Entity, _ key: Int64) -> Bool {
        rows.contains { $0.entity === entity && $0.keys.contains(key) }
    }

    mutating func add(_ entity: Schema.Entity, keys: [Int64]) {
        if let index = rows.firstIndex(where: { $0.entity === entity }) {
            rows[index].keys.formUnion(keys)
        } else {
            rows.append((entity, Set(keys)))
        }
    }
}

/// `[1,2,3]`: keys as the one JSON array parameter that `json_each(?)` reads.
func jsonArray(_ keys: some Sequence<Int64>) -> String {
    "[" + keys.map(String.init).joined(separator: ",") + "]"
}
