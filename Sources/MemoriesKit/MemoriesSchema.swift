import Foundation
import OpenSwiftData

/// The versions of the journal's store. Version 1 is every library made before a photo was made
/// unique within its memory (`#Unique` on memory and SHA-256); going to version 2 removes the
/// duplicate rows that concurrent imports could leave (the earliest row of each photo stays; its
/// blobs are the same), then the unique index is created.
enum MemoriesSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Memory.self, MemoryImage.self] }
}

enum MemoriesSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Memory.self, MemoryImage.self] }
}

/// Version 3 records each photo's capture offset and its file's modification time (new optional
/// columns: older rows leave them empty).
enum MemoriesSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Memory.self, MemoryImage.self] }
}

/// Version 4 gives each photo a caption (a new optional column).
enum MemoriesSchemaV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [Memory.self, MemoryImage.self] }
}

enum MemoriesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [MemoriesSchemaV1.self, MemoriesSchemaV2.self, MemoriesSchemaV3.self, MemoriesSchemaV4.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: MemoriesSchemaV3.self, toVersion: MemoriesSchemaV4.self),
         .lightweight(fromVersion: MemoriesSchemaV2.self, toVersion: MemoriesSchemaV3.self),
         .custom(fromVersion: MemoriesSchemaV1.self, toVersion: MemoriesSchemaV2.self, willMigrate: { context in
            try context.execute("""
                DELETE FROM "MemoryImage" WHERE "_pk" NOT IN (SELECT min("_pk") FROM "MemoryImage" GROUP BY "memory", "sha256")
                """)
        }, didMigrate: nil)]
    }
}
