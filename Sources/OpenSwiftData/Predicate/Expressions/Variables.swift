import Foundation

// Variables, key paths and captured values: the leaves of a predicate.

extension PredicateExpressions.Variable: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        guard let term = translator.lookup(key) else {
            throw PredicateTranslationError.unsupportedUse(expression: "Variable", reason: "the variable is not bound")
        }
        return term
    }
}

extension PredicateExpressions.KeyPath: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let base = try translator.term(root)
        switch base {
        case .row(let entity, let alias):
            // `$0.persistentModelID == id`, `$0.trip?.persistentModelID == id`: the row's key.
            if let model = Root.Output.self as? any PersistentModel.Type, keyPath == model._persistentModelIDKeyPath {
                return .value(SQLFragment("\(alias).\"_pk\""))
            }
            guard let property = entity.property(for: keyPath) else {
                throw PredicateTranslationError.unknownKeyPath(model: entity.name, keyPath: "\(keyPath)")
            }
            switch property.kind {
            case .attribute:
                if property.isExternalStorage {
                    throw PredicateTranslationError.unsupportedUse(
                        expression: "\(keyPath)", reason: "\(entity.name).\(property.name) is kept in external storage, outside SQL")
                }
                return .value(SQLFragment("\(alias).\(property.column)"))
            case .toOne(let targetType):
                let target = EntityCache.entity(for: targetType)
                return .row(target, alias: translator.joinedAlias(from: alias, column: property.column, to: target.table))
            case .toMany(let targetType):
                let target = EntityCache.entity(for: targetType)
                let link = RelationshipGraph.link(of: property, in: entity)!
                return .toMany(target, link: link, ownerAlias: alias)
            case .unsupported(let type):
                throw PredicateTranslationError.unsupportedUse(expression: "\(keyPath)", reason: "type \(type) is not stored")
            }
        case .toMany(let target, let link, let ownerAlias):
            let alias = translator.newAlias()
            let rows = link.rows(of: target, as: alias, ownerKey: "\(ownerAlias).\"_pk\"")
            let count = SQLFragment("(SELECT count(*) \(rows.from) WHERE \(rows.condition))")
            if isCollectionCount { return .value(count) }
            if isCollectionIsEmpty { return .value(count + " = 0") }
            throw PredicateTranslationError.unsupportedUse(expression: "\(keyPath)", reason: "only .count and .isEmpty of a to-many relationship are translated")
        case .value(let fragment):
            // UUIDs are stored as their upper-case uuidString.
            if Root.Output.self is UUID.Type && keyPath == \UUID.uuidString as AnyKeyPath { return .value(fragment) }
            if Root.Output.self is String.Type || Root.Output.self is String?.Type || Root.Output.self is Substring.Type {
                if isCollectionCount { return .value("length(" + fragment + ")") }
                if isCollectionIsEmpty { return .value("(" + fragment + " = '')") }
            } else if isCollectionCount {
                return .value("json_array_length(" + fragment + ")")
            } else if isCollectionIsEmpty {
                return .value("(json_array_length(" + fragment + ") = 0)")
            }
            throw PredicateTranslationError.unsupportedUse(
                expression: "\(keyPath)", reason: "only .count and .isEmpty are translated on values")
        }
    }

    /// `\String.count`, `\[Element].count` (key paths compare equal wherever they were formed).
    private var isCollectionCount: Bool {
        (Root.Output.self as? any CountKeyPaths.Type).map { $0.countKeyPath == keyPath } ?? false
    }
    private var isCollectionIsEmpty: Bool {
        (Root.Output.self as? any CountKeyPaths.Type).map { $0.isEmptyKeyPath == keyPath } ?? false
    }
}

extension PredicateExpressions.Value: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        // A captured identifier compares with the row's key (`$0.persistentModelID == id`).
        if Output.self == PersistentIdentifier.self || Output.self == PersistentIdentifier?.self {
            guard let id = value as? PersistentIdentifier else { return .value(SQLFragment("NULL")) }
            return .value(SQLFragment("?", [.integer(id.primaryKey)]))
        }
        guard let codec = ValueCodec.make(Output.self) else {
            throw PredicateTranslationError.unsupportedUse(
                expression: "Value<\(Output.self)>", reason: "values of type \(Output.self) have no stored form; compare an id instead")
        }
        return .value(SQLFragment("?", [codec.encode(value)]))
    }
}

extension PredicateExpressions.NilLiteral: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm { .value(SQLFragment("NULL")) }
}

/// A captured sequence, for `ids.contains($0.id)`.
protocol ConstantSequence {
    func sqlValues() -> [SQLiteValue]?
}

extension PredicateExpressions.Value: ConstantSequence where Output: Sequence {
    func sqlValues() -> [SQLiteValue]? {
        // Identifiers compare with the row's key (`ids.contains($0.persistentModelID)`).
        if Output.Element.self == PersistentIdentifier.self || Output.Element.self == PersistentIdentifier?.self {
            return value.map { ($0 as? PersistentIdentifier).map { .integer($0.primaryKey) } ?? .null }
        }
        guard let codec = ValueCodec.make(Output.Element.self) else { return nil }
        return value.map { codec.encode($0) }
    }
}

/// The `count` and `isEmpty` key paths of the collections a predicate can measure.
protocol CountKeyPaths {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension String: CountKeyPaths {
    static var countKeyPath: AnyKeyPath { \String.count }
    static var isEmptyKeyPath: AnyKeyPath { \String.isEmpty }
}

extension Substring: CountKeyPaths {
    static var countKeyPath: AnyKeyPath { \Substring.count }
    static var isEmptyKeyPath: AnyKeyPath { \Substring.isEmpty }
}

extension Array: CountKeyPaths {
    static var countKeyPath: AnyKeyPath { \Array.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array.isEmpty }
}
