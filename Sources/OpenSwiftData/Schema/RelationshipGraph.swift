import Foundation

/// Finds each relationship's inverse: the declared `inverse:`, a relationship on the other side
/// that declares this one as its inverse, or the only relationship there that points back.
enum RelationshipGraph {
    private static let lock = NSLock()
    /// By model type and property index: two types may share a name (`V1.Trip` and `V2.Trip` of a
    /// migration plan, or a `Memory` in two modules), and must not share an inverse.
    @exclusivity(unchecked) nonisolated(unsafe) private static var cache: [Key: Schema.Property?] = [:]
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let index: Int
    }

    /// How the rows of a to-many relationship are found.
    enum ToManyLink: Equatable {
        /// A to-one inverse: the related table's foreign-key column.
        case foreignKey(column: String)
        /// Many-to-many, or a to-many without inverse: a join table of (owner, target) primary keys.
        case joinTable(table: String, ownerColumn: String, targetColumn: String)

        /// The FROM clause (target rows under `alias`, joined as needed) and the condition that picks
        /// the rows related to the owner whose primary key is the SQL expression `ownerKey`.
        func rows(of target: Schema.Entity, as alias: String, ownerKey: String) -> (from: String, condition: String) {
            switch self {
            case .foreignKey(let column):
                return ("FROM \(target.table) AS \(alias)", "\(alias).\(column) = \(ownerKey)")
            case .joinTable(let table, let ownerColumn, let targetColumn):
                return ("FROM \(target.table) AS \(alias) JOIN \(quoted(table)) AS \(alias)j ON \(alias)j.\(quoted(targetColumn)) = \(alias).\"_pk\"",
                        "\(alias)j.\(quoted(ownerColumn)) = \(ownerKey)")
            }
        }

        var joinTable: String? {
            if case .joinTable(let table, _, _) = self { return table }
            return nil
        }
    }

    /// How a to-many relationship's rows are found, or nil for a to-one.
    ///
    /// One whose to-one inverse other to-manys of its model name too (Apple's Backyard Birds: a
    /// yard's `leading` and `trailing` plants, both `inverse: \Plant.yard`) keeps its members in a
    /// join table of its own: the to-one column says which yard a plant is in, not which list.
    static func link(of property: Schema.Property, in entity: Schema.Entity) -> ToManyLink? {
        guard case .toMany(let targetType) = property.kind else { return nil }
        let inverse = inverse(of: property, in: entity)
        if let inverse, case .toOne = inverse.kind {
            guard sharers(of: inverse, in: EntityCache.entity(for: targetType)) != nil else { return .foreignKey(column: inverse.column) }
            return .joinTable(table: "_\(entity.name)_\(property.name)", ownerColumn: "owner", targetColumn: "target")
        }
        // One join table per pair of sides, named after both (sorted, so each side finds the same one).
        let mine = "\(entity.name).\(property.name)"
        guard let inverse, case .toMany(let targetType) = property.kind else {
            return .joinTable(table: "_\(entity.name)_\(property.name)", ownerColumn: "owner", targetColumn: "target")
        }
        let theirs = "\(String(describing: targetType)).\(inverse.name)"
        let (first, second) = mine <= theirs ? (mine, theirs) : (theirs, mine)
        let table = "_" + first.replacingOccurrences(of: ".", with: "_") + "__" + second.replacingOccurrences(of: ".", with: "_")
        // Column "a" holds the primary key of the first side's owner, "b" the second's.
        return mine == first && mine != theirs
            ? .joinTable(table: table, ownerColumn: "a", targetColumn: "b")
            : .joinTable(table: table, ownerColumn: mine == theirs ? "a" : "b", targetColumn: mine == theirs ? "b" : "a")
    }

    /// The to-many relationships that all name `toOne` (a to-one of `entity`) as their inverse,
    /// when there are several; nil when one or none does.
    static func sharers(of toOne: Schema.Property, in entity: Schema.Entity) -> [Schema.Property]? {
        guard case .toOne(let ownerType) = toOne.kind else { return nil }
        let key = Key(type: ObjectIdentifier(entity.type), index: toOne.index)
        lock.lock()
        if let cached = sharedCache[key] { lock.unlock(); return cached }
        lock.unlock()
        let owner = EntityCache.entity(for: ownerType)
        let found = owner.relationships.filter { candidate in
            guard case .toMany(let t) = candidate.kind, ObjectIdentifier(t) == ObjectIdentifier(entity.type),
                  let back = inverse(of: candidate, in: owner) else { return false }
            return back.index == toOne.index
        }
        let result = found.count > 1 ? found : nil
        lock.lock()
        sharedCache[key] = .some(result)
        lock.unlock()
        return result
    }
    @exclusivity(unchecked) nonisolated(unsafe) private static var sharedCache: [Key: [Schema.Property]?] = [:]

    static func inverse(of property: Schema.Property, in entity: Schema.Entity) -> Schema.Property? {
        let key = Key(type: ObjectIdentifier(entity.type), index: property.index)
        lock.lock()
        if let cached = cache[key] { lock.unlock(); return cached }
        lock.unlock()
        let found = compute(property, entity)
        lock.lock()
        cache[key] = .some(found)
        lock.unlock()
        return found
    }

    private static func compute(_ property: Schema.Property, _ entity: Schema.Entity) -> Schema.Property? {
        let targetType: any PersistentModel.Type
        switch property.kind {
        case .toOne(let t), .toMany(let t): targetType = t
        default: return nil
        }
        let target = EntityCache.entity(for: targetType)
        if let keyPath = property.relationship?.inverse, let declared = target.property(for: keyPath) { return declared }
        if let declaring = target.properties.first(where: { $0.relationship?.inverse == property.keyPath }) { return declaring }
        let candidates = target.properties.filter { candidate in
            let pointsBack: Bool
            switch candidate.kind {
            case .toOne(let t), .toMany(let t): pointsBack = ObjectIdentifier(t) == ObjectIdentifier(entity.type)
            default: pointsBack = false
            }
            let isSelf = target === entity && candidate.index == property.index
            return pointsBack && !isSelf && candidate.relationship?.inverse == nil
        }
        return candidates.count == 1 ? candidates[0] : nil
    }
}
