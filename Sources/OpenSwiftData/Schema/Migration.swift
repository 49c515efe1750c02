import BlobStore
import Foundation

extension Schema {
    /// A schema version, as `VersionedSchema.versionIdentifier` gives it.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The three numbers.
        public let major: Int, minor: Int, patch: Int
        /// `Schema.Version(1, 2, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }
        /// Compared number by number.
        public static func < (a: Self, b: Self) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
        /// `1.2.0`.
        public var description: String { "\(major).\(minor).\(patch)" }
        init?(_ text: String) {
            let parts = text.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            self.init(parts[0], parts[1], parts[2])
        }
    }

    /// The schema of one version of an app's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models)
        version = versionedSchema.versionIdentifier
    }
}

/// One version of an app's models, as in SwiftData: an enum holding the `@Model` classes of that version.
public protocol VersionedSchema: SendableMetatype {
    static var versionIdentifier: Schema.Version { get }
    static var models: [any PersistentModel.Type] { get }
}

/// How a store moves from one schema version to the next.
public protocol SchemaMigrationPlan: SendableMetatype {
    static var schemas: [any VersionedSchema.Type] { get }
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: Sendable {
    /// The automatic migration (new, removed and renamed properties, `.unique` changes).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// `willMigrate` runs on a context of the old models before the store changes, `didMigrate` on
    /// one of the new models after. Here a property may also change type: its column is rebuilt,
    /// values converted by SQLite's column affinity where possible, and the closures fix the rest.
    @preconcurrency
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var from: any VersionedSchema.Type {
        switch self { case .lightweight(let f, _), .custom(let f, _, _, _): return f }
    }
    var to: any VersionedSchema.Type {
        switch self { case .lightweight(_, let t), .custom(_, let t, _, _): return t }
    }
}

/// Runs a migration plan, stage by stage, recording the version reached in the store record.
struct Migrator {
    let connection: Connection
    let storePath: String
    let storeURL: URL?
    /// Where the stages' containers find external-storage values (nil: the folder next to the store).
    var blobBackend: (any BlobBackend)? = nil


    func storedVersion() throws -> Schema.Version? {
        try StoreRecord(connection: connection).value("schemaVersion").flatMap(Schema.Version.init)
    }

    func record(_ version: Schema.Version) throws {
        try StoreRecord(connection: connection).setValue(version.description, for: "schemaVersion")
    }

    /// The version of the plan whose models a schema built from model types (not from a
    /// `VersionedSchema`) holds, as in `ModelContainer(for: Trip.self, migrationPlan: Plan.self)`:
    /// the latest one with exactly those models, or else the latest one holding them all.
    static func version(of schema: Schema, in plan: any SchemaMigrationPlan.Type) -> Schema.Version? {
        let types = Set(schema.entities.map { ObjectIdentifier($0.type) })
        func models(_ version: any VersionedSchema.Type) -> Set<ObjectIdentifier> { Set(version.models.map { ObjectIdentifier($0) }) }
        return (plan.schemas.last { models($0) == types } ?? plan.schemas.last { models($0).isSuperset(of: types) })?.versionIdentifier
    }

    func isEmptyStore() throws -> Bool {
        try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_osd%' ESCAPE '\\'").first?.first == .integer(0)
    }

    func migrate(to schema: Schema, plan: (any SchemaMigrationPlan.Type)?) throws {
        guard let plan, let target = schema.version else {
            try SchemaWriter(schema: schema, connection: connection, storeURL: storeURL).createOrUpdate()
            if let version = schema.version { try record(version) }
            return
        }
        var current: Schema.Version
        if let stored = try storedVersion() {
            current = stored
        } else if try isEmptyStore() {
            try SchemaWriter(schema: schema, connection: connection, storeURL: storeURL).createOrUpdate()
            try record(target)
            return
        } else {
            current = plan.schemas.first?.versionIdentifier ?? target
        }
        while current != target {
            guard let stage = plan.stages.first(where: { $0.from.versionIdentifier == current }) else {
                throw MigrationError.noStage(from: current.description)
            }
            let oldSchema = Schema(versionedSchema: stage.from)
            let newSchema = Schema(versionedSchema: stage.to)
            if case .custom(_, _, let willMigrate?, _) = stage {
                let context = try ModelContext(container: ModelContainer(schema: oldSchema, storePath: storePath, backend: blobBackend))
                try willMigrate(context)
                try context.save()
            }
            var writer = SchemaWriter(schema: newSchema, connection: connection, storeURL: storeURL)
            if case .custom = stage { writer.allowsTypeChanges = true }
            // The stage's earlier version declared these; the next one does not.
            writer.droppable = Set(oldSchema.entities.flatMap { entity in entity.columns.map { "\(entity.name).\($0.name)" } })
            try writer.createOrUpdate()
            if case .custom(_, _, _, let didMigrate?) = stage {
                let context = try ModelContext(container: ModelContainer(schema: newSchema, storePath: storePath, backend: blobBackend))
                try didMigrate(context)
                try context.save()
            }
            current = stage.to.versionIdentifier
            try record(current)
        }
    }
}
