import BlobStore
import Foundation

/// Owns a store and its schema; hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Expense.self)
/// let context = container.mainContext
/// ```
public final class ModelContainer: @unchecked Sendable {
    public let schema: Schema
    public let configurations: [ModelConfiguration]
    let configuration: ModelConfiguration
    /// The SQLite path or URI every context of this container opens.
    let storePath: String
    /// Keeps an in-memory database alive for as long as the container lives.
    private let anchor: Connection
    private var _mainContext: ModelContext?
    private let lock = NSLock()
    /// The blob store (or memory) of `@Attribute(.externalStorage)` values, when the schema has any.
    let external: ExternalStorage?

    public convenience init(for types: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(types), configurations: configurations)
    }

    public convenience init(for schema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, configurations: configurations)
    }

    public convenience init(for schema: Schema, configurations: [ModelConfiguration]) throws {
        try self.init(for: schema, migrationPlan: nil, configurations: configurations)
    }

    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store, migrating it to `schema`: automatically, or through `migrationPlan`'s stages.
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [ModelConfiguration]) throws {
        try schema.validate()
        self.schema = schema
        let configuration = configurations.first ?? ModelConfiguration(schema: schema)
        self.configurations = [configuration]
        self.configuration = configuration
        if configuration.isStoredInMemoryOnly {
            storePath = "file:/openswiftdata-\(UUID().uuidString)?vfs=memdb"
        } else {
            let directory = configuration.url.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            storePath = configuration.url.path
        }
        anchor = try Connection(path: storePath)
        external = schema.hasExternalStorage
            ? try ExternalStorage(storeURL: configuration.isStoredInMemoryOnly ? nil : configuration.url) : nil
        try Migrator(connection: anchor, storePath: storePath, storeURL: configuration.isStoredInMemoryOnly ? nil : configuration.url)
            .migrate(to: schema, plan: migrationPlan)
    }

    /// A container on an existing store path with no migration (for a migration stage's contexts).
    init(schema: Schema, storePath: String) throws {
        self.schema = schema
        let configuration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: storePath.hasPrefix("file:"))
        self.configuration = configuration
        self.configurations = [configuration]
        self.storePath = storePath
        anchor = try Connection(path: storePath)
        external = schema.hasExternalStorage && !storePath.hasPrefix("file:")
            ? try ExternalStorage(storeURL: URL(fileURLWithPath: storePath)) : nil
    }

    /// The blob store holding external-storage values (nil for in-memory stores or schemas without any).
    public var blobStore: BlobStore? { external?.blobs }

    /// Every blob digest referenced by any external-storage property of any model, computed in SQL.
    public func referencedBlobDigests() throws -> Set<BlobDigest> {
        let parts = schema.entities.flatMap { entity in
            entity.externals.map { "SELECT \($0.column) FROM \(entity.table) WHERE \($0.column) IS NOT NULL" }
        }
        guard !parts.isEmpty else { return [] }
        let connection = try openConnection()
        var result = Set<BlobDigest>()
        for row in try connection.rows(parts.joined(separator: " UNION ")) {
            if case .text(let hex) = row[0], let digest = BlobDigest(hex: hex) { result.insert(digest) }
        }
        return result
    }

    /// Removes blobs no row references (orphans left by a crash between a commit and a blob
    /// removal) and abandoned temp files older than `gracePeriod`.
    public func collectGarbage(gracePeriod: TimeInterval = 3600, dryRun: Bool = false) throws -> BlobStore.SweepReport {
        guard let blobs = blobStore else { return BlobStore.SweepReport(dryRun: dryRun) }
        return try blobs.sweep(gracePeriod: gracePeriod, dryRun: dryRun) { try referencedBlobDigests() }
    }

    /// Re-hashes every blob and checks that every referenced one is present and intact.
    public func verifyExternalStorage(progress: ((Int, Int64) -> Void)? = nil) throws -> BlobStore.VerifyReport {
        guard let blobs = blobStore else { return BlobStore.VerifyReport() }
        return try blobs.verify(expected: try referencedBlobDigests(), progress: progress)
    }

    /// The container's own context, with autosave on (see `ModelContext.autosaveEnabled`).
    public var mainContext: ModelContext {
        lock.lock()
        defer { lock.unlock() }
        if let context = _mainContext { return context }
        let context = ModelContext(container: self, connection: anchor, autosave: true)
        _mainContext = context
        return context
    }

    func openConnection() throws -> Connection { try Connection(path: storePath) }
    var anchorConnection: Connection { anchor }

    /// Erases every model in the store.
    public func deleteAllData() throws {
        try anchor.transaction {
            for entity in schema.entities { try anchor.execute("DELETE FROM \(entity.table)") }
        }
    }
}
