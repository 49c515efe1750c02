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

    /// The default store: `default.store` in the current directory, or `$OPENSWIFTDATA_STORE_DIR`.
    public static var defaultDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["OPENSWIFTDATA_STORE_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.url = Self.defaultDirectory.appendingPathComponent("\(self.name).store")
        self.uniquenessPolicy = uniquenessPolicy
    }

    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.url = url
        self.uniquenessPolicy = uniquenessPolicy
    }
}
