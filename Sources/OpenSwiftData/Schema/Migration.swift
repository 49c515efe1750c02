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

    /// Records the version the store now has: its identifier and its shape (see `SchemaDescription.shape`).
    func record(_ version: Schema.Version, shape: String) throws {
        let record = StoreRecord(connection: connection)
        try record.setValue(version.description, for: "schemaVersion")
        try record.setValue(shape, for: "schemaShape")
    }

    /// The shape of the version the store has: recorded with it, or, for a store recorded before
    /// shapes were, that of the last schema that wrote to it.
    func storedShape() throws -> String? {
        let record = StoreRecord(connection: connection)
        if let shape = try record.value("schemaShape") { return shape }
        return try record.history().last?.shape
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
        let targetShape = SchemaDescription(schema).shape
        guard let plan, let target = schema.version else {
            try SchemaWriter(schema: schema, connection: connection, storeURL: storeURL).createOrUpdate()
            if let version = schema.version { try record(version, shape: targetShape) }
            return
        }
        let versions = plan.schemas
        let shapes = versions.map { SchemaDescription(Schema(versionedSchema: $0)).shape }
        // The plan's version this schema is: by identifier and shape, else by identifier.
        let targetIndex = versions.indices.last { versions[$0].versionIdentifier == target && shapes[$0] == targetShape }
            ?? versions.indices.last { versions[$0].versionIdentifier == target }
        let stored = try storedVersion()
        if stored == nil, try isEmptyStore() {
            try SchemaWriter(schema: schema, connection: connection, storeURL: storeURL).createOrUpdate()
            try record(target, shape: targetShape)
            return
        }
        guard let targetIndex else { throw MigrationError.noStage(from: (stored ?? target).description) }
        var current = try currentIndex(in: versions, shapes: shapes, stored: stored, before: targetIndex)
        while current != targetIndex {
            guard current < targetIndex,
                  let stage = plan.stages.first(where: { ObjectIdentifier($0.from) == ObjectIdentifier(versions[current]) }),
                  let next = versions.firstIndex(where: { ObjectIdentifier($0) == ObjectIdentifier(stage.to) }), next > current else {
                throw MigrationError.noStage(from: versions[current].versionIdentifier.description)
            }
            try run(stage)
            current = next
            try record(versions[current].versionIdentifier, shape: shapes[current])
        }
    }

    /// Which of the plan's versions the store has: the one whose shape it was recorded with (of
    /// several, the one with its recorded identifier; with none recorded, the earliest; else the
    /// latest not after the target); when no version has that shape, the first with its
    /// identifier, else the plan's first version.
    private func currentIndex(in versions: [any VersionedSchema.Type], shapes: [String], stored: Schema.Version?,
                              before targetIndex: Int) throws -> Int {
        if let shape = try storedShape() {
            let matching = versions.indices.filter { shapes[$0] == shape }
            // With no recorded identifier (a store that automatic migration kept before the app had
            // a plan), the earliest version of that shape: a shape does not show a `.unique` or a
            // stage that only changes values, so a later version of the same shape may still need
            // its stage (the de-duplicating one before a `.unique`, say).
            let byIdentifier = stored.flatMap { stored in matching.last { versions[$0].versionIdentifier == stored } }
            if let index = byIdentifier ?? (stored == nil ? matching.first : matching.last { $0 <= targetIndex }) {
                return index
            }
        }
        return versions.indices.first { versions[$0].versionIdentifier == stored } ?? 0
    }

    /// One stage: `willMigrate` on the old schema, the tables changed, `didMigrate` on the new one.
    private func run(_ stage: MigrationStage) throws {
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
    }
}
