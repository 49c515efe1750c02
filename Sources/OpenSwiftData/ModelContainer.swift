import BlobStore
import Foundation

/// Owns a store and its schema; hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Expense.self)
/// let context = container.mainContext
/// ```
public final class ModelContainer: @unchecked Sendable {
    /// The models the container holds, and their version.
    public let schema: Schema
    /// As given: a store per configuration's URL (see `StoreLayout`).
    public let configurations: [ModelConfiguration]
    let configuration: ModelConfiguration
    /// The SQLite path or URI every context of this container opens.
    let storePath: String
    /// Keeps an in-memory database alive for as long as the container lives.
    private let anchor: Connection
    /// The other stores' files (or in-memory databases), attached to every connection, and a
    /// connection to each, kept open (see `StoreLayout`).
    let secondaryPaths: [(path: String, readOnly: Bool)]
    private let secondaryAnchors: [Connection]
    private var _mainContext: ModelContext?
    private let lock = NSLock()
    /// The blob store (or memory) of `@Attribute(.externalStorage)` values, when the schema has any.
    let external: ExternalStorage?
    /// Why saves are refused (a read-only or newer store), nil when they are not.
    public private(set) var writeRefusal: ModelError?
    /// Set when the store is not the one its external-storage folder belongs to (emptied,
    /// replaced, foreign): garbage collection and verification refuse with it.
    public private(set) var identityProblem: ModelError?

    /// A container for these model types (and the types they reach through relationships), with a store per `configurations` (the default store when none).
    public convenience init(for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema`, migrated through `migrationPlan` when one is given.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store, migrating it to `schema`: automatically, or through `migrationPlan`'s stages.
    ///
    /// With `allowsSave: false` nothing is created, migrated or written. A store whose own record
    /// shows it was written by a newer version of the app (see `StoreRecord`) is not migrated
    /// either: it can be read, and saving throws `ModelError.storeIsNewer`.
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]) throws {
        try schema.validate()
        // `ModelContainer(for: Trip.self, migrationPlan: Plan.self)`: the version is the plan's.
        if schema.version == nil, let migrationPlan, let version = Migrator.version(of: schema, in: migrationPlan) {
            schema.version = version
        }
        self.schema = schema
        var layout = try StoreLayout(schema: schema, configurations: configurations)
        if migrationPlan != nil, !layout.secondaries.isEmpty {
            throw ModelError.severalStores(reason: "a migration plan is run on one store; give the container one configuration, or migrate each store's container on its own")
        }
        let configuration = layout.main.configuration
        self.configurations = layout.configurations
        self.configuration = configuration

        let inMemory = configuration.isStoredInMemoryOnly
        let readOnly = !configuration.allowsSave && !inMemory
        if inMemory {
            storePath = "file:/openswiftdata-\(UUID().uuidString)?vfs=memdb"
        } else if readOnly {
            guard FileManager.default.fileExists(atPath: configuration.url.path) else { throw ModelError.storeNotFound(path: configuration.url.path) }
            storePath = configuration.url.path
        } else {
            let directory = configuration.url.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            storePath = configuration.url.path
        }
        anchor = try Connection(path: storePath, readOnly: readOnly)
        if !layout.secondaries.isEmpty {
            layout.keepInMain(tables: Set(try anchor.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let name) = row[0] { return name } else { return nil }
            }))
        }
        // What the main store holds: every model, unless other configurations keep some elsewhere.
        let storeSchema = layout.secondaries.isEmpty ? schema : layout.main.schema
        storeSchema.version = schema.version
        external = schema.hasExternalStorage
            ? try ExternalStorage(storeURL: inMemory ? nil : configuration.url, readOnly: readOnly, backend: configuration.blobBackend) : nil
        let record = StoreRecord(connection: anchor)
        let description = SchemaDescription(storeSchema)
        let migrator = Migrator(connection: anchor, storePath: storePath, storeURL: inMemory ? nil : configuration.url,
                                blobBackend: configuration.blobBackend)
        let wasEmpty = try migrator.isEmptyStore()
        let newer = try record.newerThan(description, storedVersion: migrator.storedVersion())
        if readOnly || newer != nil {
            try SchemaWriter(schema: storeSchema, connection: anchor).checkReadable()
        } else {
            try migrator.migrate(to: storeSchema, plan: migrationPlan)
            try record.record(description)
        }
        var secondaryRefusal: ModelError?
        if layout.secondaries.isEmpty {
            (secondaryPaths, secondaryAnchors) = ([], [])
        } else {
            var opened: [(path: String, readOnly: Bool, connection: Connection)] = []
            for store in layout.secondaries {
                guard let (path, connection) = try Self.openSecondary(store) else { continue }
                opened.append((path, connection.isReadOnly, connection))
                // A store that cannot be written makes the container refuse saves (which models a
                // save touches is not known before it writes).
                if connection.isReadOnly, secondaryRefusal == nil { secondaryRefusal = .readOnlyStore(path: path) }
            }
            (secondaryPaths, secondaryAnchors) = (opened.map { ($0.path, $0.readOnly) }, opened.map(\.connection))
            try Self.attach(secondaryPaths, to: anchor)
        }
        if readOnly {
            writeRefusal = .readOnlyStore(path: storePath)
        } else if let newer {
            writeRefusal = .storeIsNewer(path: storePath, unknown: newer)
        } else {
            writeRefusal = secondaryRefusal
        }
        if !inMemory {
            identityProblem = try Self.checkIdentity(record, external?.backend, wasEmpty: wasEmpty, writable: writeRefusal == nil) {
                try BlobReferences(schema: schema, connection: anchor).any()
            }
        }
        if !inMemory, writeRefusal == nil, identityProblem == nil, let backend = external?.backend, let age = configuration.trashGracePeriod {
            Self.pruneTrash(of: backend, age: age, storePath: storePath, secondaries: secondaryPaths, schema: schema)
        }
    }

    /// A container on an existing store path with no migration (for a migration stage's contexts).
    init(schema: Schema, storePath: String, backend: (any BlobBackend)? = nil) throws {
        self.schema = schema
        let configuration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: storePath.hasPrefix("file:"))
        self.configuration = configuration
        self.configurations = [configuration]
        self.storePath = storePath
        (secondaryPaths, secondaryAnchors) = ([], [])
        anchor = try Connection(path: storePath)
        external = schema.hasExternalStorage && !storePath.hasPrefix("file:")
            ? try ExternalStorage(storeURL: URL(fileURLWithPath: storePath), backend: backend) : nil
    }

    /// The blob store holding external-storage values (nil for in-memory stores, schemas without
    /// any, or a configuration whose `blobBackend` is not a local folder: see `blobBackend`).
    public var blobStore: BlobStore? { external?.blobs }

    /// Where external-storage values are kept: the local folder or the configuration's backend.
    public var blobBackend: (any BlobBackend)? { external?.backend }

    /// Every blob digest the store references, for deciding what in the blob folder is unused.
    ///
    /// Trusts nothing it has not checked, because everything outside the set may be removed: the
    /// store must be the one the folder belongs to (`identityProblem`), pass SQLite's full
    /// `integrity_check`, and every external-storage column is read from its table (`NOT INDEXED`:
    /// a damaged index would answer with a wrong set and no error). Columns and tables this schema
    /// does not declare (a newer version's, or a removed property's) count too: every 64-hex-digit
    /// text in them is taken as a reference.
    public func referencedBlobDigests() throws -> Set<BlobDigest> { try references(checkingIntegrity: true) }

    /// The referenced digests, after the identity check and, when asked (before removing
    /// anything), SQLite's full integrity check. Verification reports integrity on its own.
    func references(checkingIntegrity: Bool) throws -> Set<BlobDigest> {
        let connection = try openConnection()
        try checkIdentityNow(connection)
        if checkingIntegrity {
            let integrity = try connection.rows("PRAGMA integrity_check").compactMap { row -> String? in
                if case .text(let text) = row[0] { return text } else { return nil }
            }
            guard integrity == ["ok"] else { throw ModelError.storeDamaged(path: storePath, details: integrity.prefix(5).joined(separator: "; ")) }
        }
        return try BlobReferences(schema: schema, connection: connection).all()
    }

    /// The identity check again, on the files as they are now (the store may have been replaced
    /// since the container opened it).
    func checkIdentityNow(_ connection: Connection) throws {
        switch identityProblem {
        case nil, .blobStoreMissing?: break  // a gone folder is not a foreign one: the rows still say what belongs there
        case let problem?: throw problem
        }
        guard let blobs = blobBackend else { return }
        let owner = try blobs.owner()
        let identity = try StoreRecord(connection: connection).identifier()
        if let owner, owner != identity {
            throw ModelError.storeIdentityMismatch(store: storePath, blobFolder: blobs.locationDescription,
                                                   reason: "the store is \(identity ?? "without identity") but the folder belongs to \(owner)")
        }
    }

    /// Puts referenced blobs back from the trash, moves unreferenced ones older than `gracePeriod`
    /// into it, and deletes trashed blobs older than `trashGracePeriod` (all with `pruneNow`).
    /// Refuses (throws) on a read-only, newer, damaged or foreign store, before touching anything.
    public func collectGarbage(gracePeriod: TimeInterval = 3600, trashGracePeriod: TimeInterval = 7 * 86400,
                               pruneNow: Bool = false, dryRun: Bool = false) throws -> BlobStore.SweepReport {
        if let writeRefusal { throw writeRefusal }
        guard let blobs = blobBackend else { return BlobStore.SweepReport(dryRun: dryRun) }
        return try blobs.sweep(gracePeriod: gracePeriod, trashGracePeriod: trashGracePeriod, pruneNow: pruneNow, dryRun: dryRun) {
            try referencedBlobDigests()
        }
    }

    /// Re-hashes every blob, `jobs` at a time, and checks that every referenced one is present and
    /// intact; with `quick`, only that every referenced one is present (nothing is read).
    public func verifyExternalStorage(jobs: Int = 1, quick: Bool = false, progress: ((Int, Int, Int64) -> Void)? = nil) throws -> BlobStore.VerifyReport {
        guard let blobs = blobBackend else { return BlobStore.VerifyReport() }
        return try blobs.verify(expected: { try self.references(checkingIntegrity: false) }, jobs: jobs, quick: quick, progress: progress)
    }

    /// Stored blobs that saves found damaged and rewrote from the same bytes, since the container opened.
    public var repairedBlobs: [BlobDigest] { external?.repaired ?? [] }

    /// The container's own context, with autosave on (see `ModelContext.autosaveEnabled`).
    public var mainContext: ModelContext {
        lock.lock()
        defer { lock.unlock() }
        if let context = _mainContext { return context }
        let context = ModelContext(container: self, connection: anchor, autosave: true)
        _mainContext = context
        return context
    }

    func openConnection() throws -> Connection {
        let connection = try Connection(path: storePath, readOnly: anchor.isReadOnly)
        try Self.attach(secondaryPaths, to: connection)
        return connection
    }
    var anchorConnection: Connection { anchor }

    /// Erases every model in the store, as SwiftData's `deleteAllData()`: it cannot throw, so a
    /// failure (a read-only or damaged store) is written to standard error. Use `erase()` to learn of it.
    public func deleteAllData() {
        do {
            try erase()
        } catch {
            FileHandle.standardError.write(Data("OpenSwiftData: deleteAllData() failed: \(error.localizedDescription)\n".utf8))
        }
    }

    /// Erases every model in the store (one transaction); blobs of external-storage values become
    /// garbage for `collectGarbage`.
    ///
    /// The history records it as one transaction deleting every row, so a reader following it from
    /// a token learns that the models are gone; their keys are not given again (`KeyReservations`).
    public func erase() throws {
        if let writeRefusal { throw writeRefusal }
        try anchor.makeSaveTables()
        try anchor.transaction {
            let log = HistoryLog()
            for entity in schema.entities {
                let keys = Set(try anchor.rows("SELECT \"_pk\" FROM \(entity.table)").compactMap { row -> Int64? in
                    if case .integer(let key) = row[0] { return key } else { return nil }
                })
                if let largest = keys.max() {
                    try log.noteDeletes(of: entity, keys: keys, list: .text(jsonArray(keys)), schema: schema, on: anchor, nullified: false)
                    try KeyReservations.remember(largest, for: entity, on: anchor)
                }
                try anchor.execute("DELETE FROM \(entity.table)")
            }
            try HistoryStore(connection: anchor).record(log, author: nil)
        }
    }
}
