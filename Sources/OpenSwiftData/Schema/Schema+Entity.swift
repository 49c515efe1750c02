import Foundation

extension Schema {
    /// One model type: its table and its columns.
    public final class Entity: @unchecked Sendable {
        /// The model type's name, which is its table's.
        public let name: String
        /// The model class.
        public let type: any PersistentModel.Type
        /// Its persisted properties, in declaration order.
        public let properties: [Property]
        let byKeyPath: [AnyKeyPath: Int]
        let byName: [String: Int]

        /// The table name, quoted for SQL.
        let table: String
        /// Properties stored in this entity's own table (attributes and to-one foreign keys), in column order.
        let columns: [Property]
        let uniqueColumns: [Property]
        /// The `#Unique` constraints, each the columns whose values together are unique.
        let compoundUniques: [[Property]]
        /// Every uniqueness constraint by property names, as SwiftData's `Schema.Entity` gives them:
        /// the `#Unique` ones, then each `@Attribute(.unique)` property alone.
        public let uniquenessConstraints: [[String]]
        /// The `#Index` lists, each the columns of one index.
        let indexes: [[Property]]
        /// Whether an insert can conflict with a stored row (and so become an upsert).
        var hasUniqueness: Bool { !uniquenessConstraints.isEmpty }
        let relationships: [Property]
        /// `@Attribute(.externalStorage)` properties, whose column holds a blob digest.
        let externals: [Property]
        /// Whether any property is a to-many relationship.
        let hasToMany: Bool
        /// The `let` properties: copied from the model into its backing data when it is inserted.
        let constants: [Property]
        /// Every `let` property with its field's byte offset in the object: a fetch sets the ones
        /// with an initial value back to the row's values, an upsert all of them in the other
        /// object standing for the row. A constant whose field could not be found has no entry;
        /// `Schema.validate` refuses such an entity.
        let constantFields: [(property: Property, offset: Int)]
        /// The entries of `constantFields` whose property has an initial value.
        let initializedConstantFields: [(property: Property, offset: Int)]
        /// How to read a fetched row: one step per property, in property order.
        let readPlan: [ReadStep]
        /// `t0."_pk", t0."col", …`: the columns a fetch reads, in `columns` order.
        let selectList: String
        /// How to bind a row's values for INSERT: one step per column, in `columns` order.
        let writePlan: [WriteStep]
        /// `INSERT INTO t (…) VALUES (…)`, and the same as an upsert returning the row's key.
        let insertSQL: String
        let upsertSQL: String
        /// The same, binding the row's key after the columns (`KeyReservations`).
        let insertKeyedSQL: String
        let upsertKeyedSQL: String

        init(type: any PersistentModel.Type) {
            self.type = type
            self.name = String(describing: type)
            self.table = quoted(name)
            self.properties = type.schemaMetadata.enumerated().map { Property(index: $0.offset, metadata: $0.element) }
            byKeyPath = Dictionary(properties.map { ($0.keyPath, $0.index) }, uniquingKeysWith: { a, _ in a })
            byName = Dictionary(properties.map { ($0.name, $0.index) }, uniquingKeysWith: { a, _ in a })
            columns = properties.filter(\.hasColumn)
            uniqueColumns = columns.filter(\.isUnique)
            let byKeyPath = self.byKeyPath, properties = self.properties
            func resolve(_ lists: [[AnyKeyPath]]) -> [[Property]] {
                lists.map { list in list.compactMap { byKeyPath[$0].map { properties[$0] } }.filter(\.hasColumn) }.filter { !$0.isEmpty }
            }
            compoundUniques = resolve(type._uniquenessConstraints)
            indexes = resolve(type._indexes)
            uniquenessConstraints = compoundUniques.map { $0.map(\.name) } + uniqueColumns.map { [$0.name] }
            relationships = properties.filter(\.isRelationship)
            externals = properties.filter { $0.isExternalStorage && $0.codec != nil }
            hasToMany = properties.contains { if case .toMany = $0.kind { return true } else { return false } }
            constants = properties.filter(\.metadata.isConstant)
            let offsets = constants.isEmpty ? nil : ConstantField.offsets(of: type)
            constantFields = constants.compactMap { property in offsets?[property.name].map { (property, $0) } }
            initializedConstantFields = constantFields.filter { $0.property.metadata.defaultValue != nil }
            readPlan = properties.map { ReadStep($0) }
            selectList = (["\(PredicateTranslator.rootAlias).\"_pk\""] + columns.map { "\(PredicateTranslator.rootAlias).\($0.column)" }).joined(separator: ", ")
            writePlan = columns.map { WriteStep($0) }
            insertSQL = Self.insertSQL(table: table, columns: columns, upsert: false)
            upsertSQL = Self.insertSQL(table: table, columns: columns, upsert: true)
            insertKeyedSQL = Self.insertSQL(table: table, columns: columns, upsert: false, keyed: true)
            upsertKeyedSQL = Self.insertSQL(table: table, columns: columns, upsert: true, keyed: true)
        }

        /// One column's share of writing a row: its property, in a class like `ReadStep`, so that
        /// the per-row loop of a save takes a reference rather than a copy of the `Property` struct.
        final class WriteStep {
            let property: Property
            init(_ property: Property) { self.property = property }
        }

        /// One property's share of reading a row.
        final class ReadStep {
            /// `direct`: a non-optional primitive, read straight from its column (the common case,
            /// without the codec's closure); `attribute`: any other value, through the codec.
            /// `notFetched`: a column a fetch with `propertiesToFetch` leaves out (see `PartialRead`).
            enum Kind { case direct(DirectColumn), attribute, external, toOne, toMany, notFetched, none }
            let kind: Kind
            let codec: ValueCodec?
            let nilValue: Any?
            static let notFetched = ReadStep(kind: .notFetched)
            private init(kind: Kind) {
                self.kind = kind
                codec = nil
                nilValue = nil
            }
            init(_ property: Property) {
                codec = property.codec
                nilValue = property.nilValue()
                switch property.kind {
                case .attribute where property.isExternalStorage: kind = .external
                case .attribute: kind = property.direct.map { .direct($0) } ?? .attribute
                case .toOne: kind = .toOne
                case .toMany: kind = .toMany
                case .unsupported: kind = .none
                }
            }
        }

        /// Whether a column of this entity's rows holds keys of `other`'s rows (a to-one relationship to it).
        func refers(to other: Entity) -> Bool {
            relationships.contains { property in
                if case .toOne(let type) = property.kind { return ObjectIdentifier(type) == ObjectIdentifier(other.type) }
                return false
            }
        }

        /// The property a key path of the model names, if it is persisted.
        public func property(for keyPath: AnyKeyPath) -> Property? { byKeyPath[keyPath].map { properties[$0] } }
        /// The property with this name, if it is persisted.
        public func property(named name: String) -> Property? { byName[name].map { properties[$0] } }


        static func relatedType(of type: Any.Type) -> (type: any PersistentModel.Type, toMany: Bool)? {
            if let model = type as? any PersistentModel.Type { return (model, false) }
            if let optional = type as? any _OptionalType.Type {
                if let model = optional._wrappedType as? any PersistentModel.Type { return (model, false) }
                // `[Completion]?`: the optional to-many of CloudKit-compatible models.
                if let array = optional._wrappedType as? any _ArrayType.Type, let model = array._elementType as? any PersistentModel.Type {
                    return (model, true)
                }
            }
            if let array = type as? any _ArrayType.Type, let model = array._elementType as? any PersistentModel.Type {
                return (model, true)
            }
            return nil
        }
    }

    /// One persisted property of an entity.
    public struct Property: @unchecked Sendable {
        /// An attribute (a column), a relationship to one or many models, or a type this package cannot store.
        public enum Kind {
            case attribute
            case toOne(any PersistentModel.Type)
            case toMany(any PersistentModel.Type)
            case unsupported(String)
        }

        /// Its name, which is its column's.
        public let name: String
        /// Its position among the entity's properties.
        public let index: Int
        /// The key path that names it.
        public let keyPath: AnyKeyPath
        /// What it is.
        public let kind: Kind
        /// Its `@Attribute`, if declared.
        public let attribute: Attribute?
        /// Its `@Relationship`, if declared.
        public let relationship: Relationship?
        let metadata: PropertyMetadata

        init(index: Int, metadata: PropertyMetadata) {
            self.name = metadata.name
            self.index = index
            self.keyPath = metadata.keyPath
            self.attribute = metadata.attribute
            self.relationship = metadata.relationship
            self.metadata = metadata
            self.isUnique = metadata.attribute?.isUnique ?? false
            self.isExternalStorage = metadata.attribute?.isExternalStorage ?? false
            self.isOptional = metadata.valueType is any _OptionalType.Type
            if let related = Entity.relatedType(of: metadata.valueType) {
                kind = related.toMany ? .toMany(related.type) : .toOne(related.type)
                codec = nil
                direct = nil
            } else if let codec = metadata.makeCodec() {
                kind = .attribute
                self.codec = codec
                direct = isExternalStorage ? nil : DirectColumn(metadata.valueType)
            } else {
                kind = .unsupported(String(describing: metadata.valueType))
                codec = nil
                direct = nil
            }
        }

        /// How an attribute's values are stored (nil for relationships).
        let codec: ValueCodec?
        /// Set for a non-optional primitive attribute read and bound without its codec.
        let direct: DirectColumn?
        var hasColumn: Bool {
            switch kind {
            case .attribute, .toOne: return true
            case .toMany, .unsupported: return false
            }
        }
        /// Computed once: these are read for every column of every row written.
        public let isUnique: Bool
        /// Stored as a blob beside the store.
        public let isExternalStorage: Bool
        /// Its type is optional (its column may be NULL).
        public let isOptional: Bool
        /// A to-one or to-many relationship.
        public var isRelationship: Bool {
            switch kind {
            case .toOne, .toMany: return true
            default: return false
            }
        }
        func nilValue() -> Any? { (metadata.valueType as? any _OptionalType.Type)?._nilValue }
        func emptyArray() -> Any? {
            if let optional = metadata.valueType as? any _OptionalType.Type { return (optional._wrappedType as? any _ArrayType.Type)?._empty }
            return (metadata.valueType as? any _ArrayType.Type)?._empty
        }
        /// The column name: the property name (renames come through `originalName`).
        var column: String { quoted(name) }
    }

}

/// An SQL identifier in double quotes.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
