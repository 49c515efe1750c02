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
    public var uniquenessPolicy: UniquenessPolicy = .upsert

    /// The default store: `default.store` in the current directory, or `$OPENSWIFTDATA_STORE_DIR`.
    public static var defaultDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["OPENSWIFTDATA_STORE_DIR"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.url = Self.defaultDirectory.appendingPathComponent("\(self.name).store")
        self.uniquenessPolicy = uniquenessPolicy
    }

    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, uniquenessPolicy: UniquenessPolicy = .upsert) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.url = url
        self.uniquenessPolicy = uniquenessPolicy
    }
}
