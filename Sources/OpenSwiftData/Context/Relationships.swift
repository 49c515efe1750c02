import Foundation

/// Keeps both sides of a relationship in step in memory, whether or not the models are in a context.
///
/// `g.student = s` puts `g` into `s.grades` (when that array is loaded; an unloaded one will read it
/// from the store); `s.grades.append(g)` sets `g.student`. A new model related to one that is in a
/// context is inserted into that context, as SwiftData does.
enum Relationships {
    /// Called by a model's setter after a relationship property changed from `old`.
    static func didChange(_ owner: any PersistentModel, property: Schema.Property, old: Any?) {
        let backing = owner.persistentBackingData
        guard let entity = backing.entity else { return }
        let inverse = RelationshipGraph.inverse(of: property, in: entity)
        // Compare by identity, in linear time; only models that came or went are cast and touched.
        let before = old.map(objects(in:)) ?? []
        var after = backing.values[property.index].map(objects(in:)) ?? []
        var seen = Set<ObjectIdentifier>()
        let unique = after.filter { seen.insert(ObjectIdentifier($0)).inserted }
        if unique.count != after.count, case .toMany = property.kind {
            // A to-many relationship holds each model once, as SwiftData's do.
            after = unique
            backing.values[property.index] = typedArray(unique.compactMap { $0 as? any PersistentModel }, like: property)
        }
        let beforeIDs = Set(before.map(ObjectIdentifier.init))
        let added = after.filter { !beforeIDs.contains(ObjectIdentifier($0)) }.compactMap { $0 as? any PersistentModel }
        let removed = before.filter { !seen.contains(ObjectIdentifier($0)) }.compactMap { $0 as? any PersistentModel }
        if let inverse {
            if case .toOne = property.kind, let sharers = RelationshipGraph.sharers(of: property, in: entity) {
                // A to-one that several to-manys of the other side name: which of them the model
                // is in is said by appending it there; leaving an owner leaves them all.
                for related in removed { for sharer in sharers { leave(related, sharer, of: owner) } }
            } else {
                for related in added { link(related, inverse, to: owner) }
                for related in removed where !stillIn(related, sharing: inverse, of: owner, besides: property) {
                    unlink(related, inverse, from: owner)
                }
            }
        }
        // Bring everything into one context: the owner's, or else that of a related model.
        let context = backing.context ?? added.lazy.compactMap { $0.persistentBackingData.context }.first
        guard let context else { return }
        if backing.state == .detached { context.insertAny(owner) }
        for related in added where related.persistentBackingData.state == .detached { context.insertAny(related) }
    }

    /// Takes `member` out of the shared to-many `list` of `owner`, as a change of `owner` (the list
    /// is a join table of its own, written from `owner`'s array).
    static func leave(_ owner: any PersistentModel, _ list: Schema.Property, of member: any PersistentModel) {
        let backing = owner.persistentBackingData
        prepare(backing, owner)
        if backing.unloaded.contains(list.index) { backing.loadDetachedOrFromContext(list.index) }
        guard let value = backing.values[list.index] else { return }
        let items = models(in: value)
        guard items.contains(where: { $0 === member }) else { return }
        _ = backing._setRaw(typedArray(items.filter { $0 !== member }, like: list), at: list.index)
    }

    /// Whether `related`, taken out of `property` of `owner`, is still in another to-many of
    /// `owner` that shares the to-one `inverse` (moved from `leading` to `trailing`: its yard stays).
    static func stillIn(_ related: any PersistentModel, sharing inverse: Schema.Property, of owner: any PersistentModel,
                        besides property: Schema.Property) -> Bool {
        guard case .toOne = inverse.kind, let relatedEntity = related.persistentBackingData.entity,
              let sharers = RelationshipGraph.sharers(of: inverse, in: relatedEntity) else { return false }
        let backing = owner.persistentBackingData
        return sharers.contains { sharer in
            guard sharer.index != property.index else { return false }
            // A list not read yet (a save unloads them) is read: the member may be in it.
            if backing.unloaded.contains(sharer.index) { backing.loadDetachedOrFromContext(sharer.index) }
            return (backing.values[sharer.index].map(objects(in:)) ?? []).contains { $0 === related }
        }
    }

    /// The objects a relationship value holds, without casting each to a protocol.
    static func objects(in value: Any) -> [AnyObject] {
        if let array = value as? any _ArrayType { return array._objects }
        if let model = value as? any PersistentModel { return [model] }
        return []
    }

    /// The models a relationship value holds (one, none, or an array's).
    static func models(in value: Any) -> [any PersistentModel] {
        if let array = value as? any _ArrayType { return array._elements.compactMap { $0 as? any PersistentModel } }
        if let model = value as? any PersistentModel { return [model] }
        return []
    }

    /// Makes `related.inverse` point at (or contain) `owner`, without triggering maintenance again.
    static func link(_ related: any PersistentModel, _ inverse: Schema.Property, to owner: any PersistentModel) {
        let backing = related.persistentBackingData
        prepare(backing, related)
        switch inverse.kind {
        case .toOne:
            if let current = backing.values[inverse.index].flatMap({ $0 as? any PersistentModel }), current === owner { return }
            let old = backing._setRaw(owner, at: inverse.index)
            // The related model leaves its previous owner's to-many relationship (all of them,
            // when several share this to-one).
            if let previous = old.flatMap({ $0 as? any PersistentModel }), previous !== owner {
                if let sharers = RelationshipGraph.sharers(of: inverse, in: backing.entity!) {
                    for sharer in sharers { leave(previous, sharer, of: related) }
                } else if let back = RelationshipGraph.inverse(of: inverse, in: backing.entity!) {
                    unlink(previous, back, from: related)
                }
            }
        case .toMany:
            if backing.unloaded.contains(inverse.index) {
                // One-to-many, its to-one side set: the store keeps the link in the owner's row, so
                // the array is not read now (200 photos added to a 5,000-photo memory read all
                // 5,000 and searched them 200 times); it is read when asked for, with the owner.
                if backing.context != nil, backing.state == .persisted, backing.primaryKey > 0,
                   let back = RelationshipGraph.inverse(of: inverse, in: backing.entity!), case .toOne = back.kind {
                    backing.observingChange(of: CollectionOfOne(inverse.index)) {
                        backing.pendingMembers[inverse.index, default: []].append(owner)
                    }
                    return
                }
                // Otherwise it is read from the store first, so it shows the new member too.
                backing.loadDetachedOrFromContext(inverse.index)
            }
            // In time linear in the array but without a cast per element (a 5,000-photo memory's
            // array was cast element by element for every photo linked to it).
            if let array = backing.values[inverse.index] as? any _ArrayType {
                guard !array._containsObject(owner) else { return }
                if let appended = array._appending(owner) {
                    backing.observingChange(of: CollectionOfOne(inverse.index)) { backing.values[inverse.index] = appended }
                    backing.unloaded.remove(inverse.index)
                    return
                }
            }
            var items = backing.values[inverse.index].map(models(in:)) ?? []
            guard !items.contains(where: { $0 === owner }) else { return }
            items.append(owner)
            backing.observingChange(of: CollectionOfOne(inverse.index)) { backing.values[inverse.index] = typedArray(items, like: inverse) }
            backing.unloaded.remove(inverse.index)
        default:
            return
        }
    }

    static func unlink(_ related: any PersistentModel, _ inverse: Schema.Property, from owner: any PersistentModel) {
        let backing = related.persistentBackingData
        prepare(backing, related)
        switch inverse.kind {
        case .toOne:
            // A to-one not read yet is read first: it may be `owner` (a member taken out of a
            // fetched owner's list kept its owner in the store when it was not).
            if backing.unloaded.contains(inverse.index) { backing.loadDetachedOrFromContext(inverse.index) }
            if let current = backing.values[inverse.index].flatMap({ $0 as? any PersistentModel }), current === owner {
                backing._setRaw(inverse.nilValue(), at: inverse.index)
            }
        case .toMany:
            if backing.unloaded.contains(inverse.index) { backing.loadDetachedOrFromContext(inverse.index) }
            guard let value = backing.values[inverse.index] else { return }
            let items = models(in: value).filter { $0 !== owner }
            backing.observingChange(of: CollectionOfOne(inverse.index)) { backing.values[inverse.index] = typedArray(items, like: inverse) }
        default:
            return
        }
    }

    /// A detached model learns its entity and owner the first time a relationship touches it.
    private static func prepare(_ backing: _BackingData, _ model: any PersistentModel) {
        guard backing.entity == nil else { return }
        backing.entity = EntityCache.entity(for: type(of: model))
        backing.owner = model
        backing.ensureSlot(backing.entity!.properties.count - 1)
    }

    /// `[any PersistentModel]` as the property's own array type (`[Grade]`).
    static func typedArray(_ items: [any PersistentModel], like property: Schema.Property) -> Any? {
        guard case .toMany(let targetType) = property.kind else { return nil }
        func make<T: PersistentModel>(_ type: T.Type) -> Any { items.compactMap { $0 as? T } }
        return _openExistential(targetType, do: make)
    }
}
