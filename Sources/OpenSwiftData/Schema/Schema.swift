import Foundation

/// The set of model types a container stores, resolved into entities and properties.
///
/// ```swift
/// let schema = Schema([Student.self, Quiz.self, Grade.self])
/// ```
public final class Schema: @unchecked Sendable {
    /// One entity per model type, those reached through relationships included.
    public let entities: [Entity]
    /// The version, when the schema comes from a `VersionedSchema`.
    public internal(set) var version: Version?
    private let byType: [ObjectIdentifier: Entity]
    private let byName: [String: Entity]

    /// The schema of these model types and every type their relationships reach.
    public convenience init(_ types: any PersistentModel.Type...) {
        self.init(types)
    }

    /// The schema of these model types and every type their relationships reach.
    public init(_ types: [any PersistentModel.Type]) {
        var seen = Set<ObjectIdentifier>()
        var ordered: [any PersistentModel.Type] = []
        // Models reachable through relationships belong to the schema too, as in SwiftData.
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            ordered.append(type)
            for metadata in type.schemaMetadata {
                if let target = Entity.relatedType(of: metadata.valueType)?.type { queue.append(target) }
            }
        }
        entities = ordered.map { EntityCache.entity(for: $0) }
        byType = Dictionary(uniqueKeysWithValues: entities.map { (ObjectIdentifier($0.type), $0) })
        byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The entity of a model type, if the schema holds it.
    public func entity(for type: any PersistentModel.Type) -> Entity? { byType[ObjectIdentifier(type)] }
    /// The entity with this name.
    public func entity(named name: String) -> Entity? { byName[name] }

    func requireEntity(for type: any PersistentModel.Type) throws -> Entity {
        guard let entity = entity(for: type) else { throw ModelError.unknownModel(String(describing: type)) }
        return entity
    }

    /// Whether any property keeps its values in the blob store.
    var hasExternalStorage: Bool { entities.contains { !$0.externals.isEmpty } }

    /// Problems that make the schema unusable (a property type with no stored form).
    func validate() throws {
        for entity in entities {
            for property in entity.properties {
                if case .unsupported(let type) = property.kind {
                    throw ModelError.unsupportedType(model: entity.name, property: property.name, type: type)
                }
                if property.metadata.isConstant {
                    if property.isRelationship || property.isExternalStorage {
                        throw ModelError.unsupportedType(model: entity.name, property: property.name,
                                                         type: "\(property.metadata.valueType) declared with 'let' (relationships and external storage must be 'var')")
                    }
                    if !entity.constantFields.contains(where: { $0.property.index == property.index }) {
                        throw ModelError.unsupportedType(model: entity.name, property: property.name,
                                                         type: "\(property.metadata.valueType) declared with 'let', whose storage the runtime could not locate; declare it with 'var'")
                    }
                }
                if property.isExternalStorage && !(property.metadata.valueType == Data.self || property.metadata.valueType == Data?.self) {
                    throw ModelError.unsupportedType(model: entity.name, property: property.name,
                                                     type: "\(property.metadata.valueType) with .externalStorage (only Data and Data? can be stored externally)")
                }
            }
        }
    }

    /// Whether a `.deny` rule can depend on whether rows of `entity` exist: `entity` has one, or
    /// a relationship to it has one. (A save's cascade loads such rows as models, see `applyDeleteRules`.)
    func denyRuleCanInvolve(_ entity: Entity) -> Bool {
        entities.contains { owner in
            owner.relationships.contains { property in
                guard property.relationship?.deleteRule == .deny else { return false }
                if owner === entity { return true }
                switch property.kind {
                case .toOne(let type), .toMany(let type): return ObjectIdentifier(type) == ObjectIdentifier(entity.type)
                default: return false
                }
            }
        }
    }
}
