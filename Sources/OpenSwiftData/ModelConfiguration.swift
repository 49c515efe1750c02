import BlobStore
import Foundation

/// Where and how a container stores its models.
public struct ModelConfiguration: Sendable {
    /// What a save does when an inserted model's `.unique` value matches a stored row.
    public enum UniquenessPolicy: Sendable {
        /// Update the stored row with the new model's values, as SwiftData does.
        case upsert
        /// Throw `ModelError.uniqueConstraintViolation` and change nothing.
        case fail
    }

    public var name: String
    public var schema: Schema?
    public var isStoredInMemoryOnly: Bool
    public var url: URL
    /// Whether contexts may save. With false, the store is opened read-only: nothing is created,
    /// migrated or written (a save throws `ModelError.readOnlyStore`), and a store in a folder that
    /// cannot be written can still be read.
    public var allowsSave: Bool
    public var uniquenessPolicy: UniquenessPolicy = .upsert
    /// Where `@Attribute(.externalStorage)` values go (not in SwiftData): nil for the folder next
    /// to the store (`.NAME_SUPPORT/`), or another `BlobBackend`, such as an `S3BlobStore` to keep
    /// them in an S3 bucket. The store's identity is recorded in it as in the folder.
    public var blobBackend: (any BlobBackend)?

    /// The default store: `default.store` in the current directory, or `$OPENSWIFTDATA_STORE_DIR`.
    public static var defaultDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["OPENSWIFTDATA_STORE_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// Where an app group's store would be (SwiftData's); Linux has no app groups: accepted, unused.
    public struct GroupContainer: Sendable, Hashable {
        let identifier: String?
        let isNone: Bool
        public static let automatic = GroupContainer(identifier: nil, isNone: false)
        public static let none = GroupContainer(identifier: nil, isNone: true)
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName, isNone: false) }
    }

    /// Which CloudKit database would sync the store (SwiftData's); there is no CloudKit here:
    /// accepted, and nothing syncs.
    public struct CloudKitDatabase: Sendable, Hashable {
        let identifier: String?
        let isNone: Bool
        public static let automatic = CloudKitDatabase(identifier: nil, isNone: false)
        public static let none = CloudKitDatabase(identifier: nil, isNone: true)
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase { CloudKitDatabase(identifier: containerIdentifier, isNone: false) }
    }

    public let groupContainer: GroupContainer
    public let cloudKitDatabase: CloudKitDatabase
    public var groupAppContainerIdentifier: String? { groupContainer.identifier }
    public var cloudKitContainerIdentifier: String? { cloudKitDatabase.identifier }

    /// A store named `name` (`default.store` without one) in `defaultDirectory`, or in memory.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic,
                uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.url = Self.defaultDirectory.appendingPathComponent("\(self.name).store")
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.uniquenessPolicy = uniquenessPolicy
    }

    /// A store at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic, uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.url = url
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        self.uniquenessPolicy = uniquenessPolicy
    }

    /// The default store, or one in memory.
    public init(isStoredInMemoryOnly: Bool) {
        self.init(nil, schema: nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for these model types.
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }
}
