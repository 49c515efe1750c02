extension Schema {
    /// What `@Attribute(...)` says about a property.
    public struct Attribute: Sendable {
        /// One of `@Attribute`'s options (those SwiftData has; the ones about Spotlight and CloudKit are accepted and have no effect here).
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

        /// The options given.
        public let options: Set<Option>
        /// The property's name in an older schema: lightweight migration renames its column.
        public let originalName: String?
        /// SwiftData's version hash modifier (recorded, unused).
        public let hashModifier: String?

        /// `@Attribute(.unique, originalName: "title")`.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = Set(options)
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        /// A `.unique` attribute: one row per value (an insert of a taken value upserts).
        public var isUnique: Bool { options.contains(.unique) }
        /// An `.externalStorage` attribute: the value is a blob beside the store, the column its SHA-256.
        public var isExternalStorage: Bool { options.contains(.externalStorage) }
    }

    /// What `@Relationship(...)` says about a relationship.
    public struct Relationship: @unchecked Sendable {
        /// What deleting the owner does to the related models.
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
        /// One of `@Relationship`'s options.
        public struct Option: Hashable, Sendable {
            let name: String
            /// The relationship's target is unique (accepted; a to-one column gets no constraint).
            public static let unique = Option(name: "unique")
        }

        /// The options given.
        public let options: Set<Option>
        /// What a delete of the owner does (`.nullify` by default).
        public let deleteRule: DeleteRule
        /// The fewest related models (recorded, not enforced).
        public let minimumModelCount: Int?
        /// The most related models (recorded, not enforced).
        public let maximumModelCount: Int?
        /// The relationship's name in an older schema.
        public let originalName: String?
        /// The property on the other side, when named (otherwise found: one that names this one, or the only one pointing back).
        public let inverse: AnyKeyPath?

        /// `@Relationship(deleteRule: .cascade, inverse: \Track.album)`.
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
