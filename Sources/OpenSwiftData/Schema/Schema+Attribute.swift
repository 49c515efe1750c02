extension Schema {
    /// What `@Attribute(...)` says about a property.
    public struct Attribute: Sendable {
        public struct Option: Hashable, Sendable {
            let name: String
            /// The property's value is unique among all models of its type; saving a duplicate updates the existing row.
            public static let unique = Option(name: "unique")
            /// Large values are kept outside the database, in the store's blob directory.
            public static let externalStorage = Option(name: "externalStorage")
            /// Accepted for source compatibility; has no effect here.
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// Accepted for source compatibility; has no effect here.
            public static let spotlight = Option(name: "spotlight")
            /// Accepted for source compatibility; has no effect here.
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
            /// Accepted for source compatibility; has no effect here.
            public static let ephemeral = Option(name: "ephemeral")
        }

        public let options: Set<Option>
        public let originalName: String?
        public let hashModifier: String?

        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = Set(options)
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        public var isUnique: Bool { options.contains(.unique) }
        public var isExternalStorage: Bool { options.contains(.externalStorage) }
    }

    /// What `@Relationship(...)` says about a relationship.
    public struct Relationship: @unchecked Sendable {
        public enum DeleteRule: String, Sendable, Codable {
            /// Deleting the owner deletes the related models.
            case cascade
            /// Deleting the owner is refused while related models exist.
            case deny
            /// Deleting the owner clears the related models' references to it (the default).
            case nullify
            /// Nothing is done to the related models.
            case noAction
        }
        public struct Option: Hashable, Sendable {
            let name: String
            public static let unique = Option(name: "unique")
        }

        public let options: Set<Option>
        public let deleteRule: DeleteRule
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        public let originalName: String?
        public let inverse: AnyKeyPath?

        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify,
            minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
        ) {
            self.options = Set(options)
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverse = inverse
        }
    }
}
