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

    /// The store's name: its file is `NAME.store` ("default" when none was given).
    public var name: String
    /// The models this store holds (nil: the container's schema).
    public var schema: Schema?
    /// An SQLite database in memory, gone with the container; external values stay in memory too.
    public var isStoredInMemoryOnly: Bool
    /// The store file (for an in-memory store, where it would be: nothing is written there).
    public var url: URL
    /// Whether contexts may save. With false, the store is opened read-only: nothing is created,
    /// migrated or written (a save throws `ModelError.readOnlyStore`), and a store in a folder that
    /// cannot be written can still be read.
    public var allowsSave: Bool
    /// What an insert that matches a stored row on a `.unique` attribute or `#Unique` constraint does (SwiftData: upsert).
    public var uniquenessPolicy: UniquenessPolicy = .upsert
    /// Where `@Attribute(.externalStorage)` values go (not in SwiftData): nil for the folder next
    /// to the store (`.NAME_SUPPORT/`), or another `BlobBackend`, such as an `S3BlobStore` to keep
    /// them in an S3 bucket. The store's identity is recorded in it as in the folder.
    public var blobBackend: (any BlobBackend)?
    /// How long a removed external-storage value stays in the trash before a container opening the
    /// store deletes it for good (not in SwiftData, whose store does this by itself): 7 days by
    /// default; nil never (then `ModelContainer.collectGarbage` does). Each writable open prunes up
    /// to 10,000 such values on a background thread, and only when no save or sweep holds the
    /// folder, each checked against the rows first. A folder's trash only: a bucket's is emptied
    /// by `collectGarbage`.
    public var trashGracePeriod: TimeInterval? = 7 * 86400

    /// The default store's folder, as SwiftData keeps it in the application-support folder: here
    /// XDG's (`$XDG_DATA_HOME` when absolute, else `~/.local/share`, the home from the password
    /// database when `HOME` is unset or relative), in a folder named after the program
    /// (apps share that folder on Linux: a sandboxed Apple app has one of its own), made when a
    /// writable container opens it. `$OPENSWIFTDATA_STORE_DIR` chooses another. Never the working
    /// directory, which depends on where a program was started from.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let dir = environment["OPENSWIFTDATA_STORE_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        // XDG's rules, as FileManager's, but with the user's home from the password database when
        // HOME is unset or not absolute (FileManager then gave /home/.local/share to root).
        let support: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            support = URL(fileURLWithPath: data, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            support = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        } else if let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir {
            support = URL(fileURLWithPath: String(cString: dir), isDirectory: true).appendingPathComponent(".local/share")
        } else {
            support = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        }
        return support.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
    }

    /// Where an app group's store would be (SwiftData's); Linux has no app groups: accepted, unused.
    public struct GroupContainer: Sendable, Hashable {
        let identifier: String?
        let isNone: Bool
        /// SwiftData's default.
        public static let automatic = GroupContainer(identifier: nil, isNone: false)
        /// No app group.
        public static let none = GroupContainer(identifier: nil, isNone: true)
        /// A named app group (recorded, unused here).
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName, isNone: false) }
    }

    /// Which CloudKit database would sync the store (SwiftData's); there is no CloudKit here:
    /// accepted, and nothing syncs.
    public struct CloudKitDatabase: Sendable, Hashable {
        let identifier: String?
        let isNone: Bool
        /// SwiftData's default.
        public static let automatic = CloudKitDatabase(identifier: nil, isNone: false)
        /// No CloudKit.
        public static let none = CloudKitDatabase(identifier: nil, isNone: true)
        /// A private CloudKit container (recorded, nothing syncs).
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase { CloudKitDatabase(identifier: containerIdentifier, isNone: false) }
    }

    /// As given (unused on Linux).
    public let groupContainer: GroupContainer
    /// As given (nothing syncs on Linux).
    public let cloudKitDatabase: CloudKitDatabase
    /// The app group's name, if one was named.
    public var groupAppContainerIdentifier: String? { groupContainer.identifier }
    /// The CloudKit container's name, if one was named.
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

    /// A configuration for these model types. (Disfavored: `ModelConfiguration()`, which apps write
    /// for the default store, was ambiguous between this with no types and the initializer above.)
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }
}
