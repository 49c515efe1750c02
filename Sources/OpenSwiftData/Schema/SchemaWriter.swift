import Foundation

/// Creates the tables and indexes of a schema, and brings an existing store up to date
/// for the changes that need no decision: a new model, a new property (NULL or its default
/// for existing rows), a rename through `originalName`, `.unique` added or removed.
struct SchemaWriter {
    let schema: Schema
    let connection: Connection

    func createOrUpdate() throws {
        try connection.transaction {
            for entity in schema.entities {
                let existing = try columns(of: entity.name)
                if existing.isEmpty {
                    try create(entity)
                } else {
                    try update(entity, existing: existing)
                }
                try syncIndexes(entity)
            }
        }
    }

    func columnDefinition(_ property: Schema.Property) -> String {
        switch property.kind {
        case .attribute:
            guard let codec = property.codec else { return "" }
            if property.isExternalStorage { return "\(property.column) TEXT" }
            var sql = "\(property.column) \(codec.columnType)"
            if let collation = codec.collation { sql += " COLLATE \(collation)" }
            return sql
        case .toOne(let target):
            let table = quoted(String(describing: target))
            return "\(property.column) INTEGER REFERENCES \(table)(\"_pk\") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"
        case .toMany, .unsupported:
            return ""
        }
    }

    func create(_ entity: Schema.Entity) throws {
        let columns = ["\"_pk\" INTEGER PRIMARY KEY"] + entity.columns.map(columnDefinition)
        try connection.execute("CREATE TABLE \(entity.table) (\(columns.joined(separator: ", ")))")
    }

    func update(_ entity: Schema.Entity, existing: Set<String>) throws {
        for property in entity.columns where !existing.contains(property.name) {
            if let old = property.attribute?.originalName ?? property.relationship?.originalName, existing.contains(old) {
                try connection.execute("ALTER TABLE \(entity.table) RENAME COLUMN \(quoted(old)) TO \(property.column)")
                continue
            }
            try connection.execute("ALTER TABLE \(entity.table) ADD COLUMN \(columnDefinition(property))")
            if let makeDefault = property.metadata.defaultValue, let codec = property.codec {
                let value = codec.encode(makeDefault())
                try connection.statement("UPDATE \(entity.table) SET \(property.column) = ?").run([value])
            }
        }
    }

    /// One unique index per `.unique` property and one index per to-one foreign key; stale ones are dropped.
    func syncIndexes(_ entity: Schema.Entity) throws {
        var wanted: [String: String] = [:]
        for property in entity.columns {
            if property.isUnique {
                let name = "\(entity.name)_\(property.name)_unique"
                wanted[name] = "CREATE UNIQUE INDEX \(quoted(name)) ON \(entity.table)(\(property.column))"
            } else if property.isExternalStorage {
                let name = "\(entity.name)_\(property.name)_blob"
                wanted[name] = "CREATE INDEX \(quoted(name)) ON \(entity.table)(\(property.column))"
            } else if case .toOne = property.kind {
                let name = "\(entity.name)_\(property.name)_fk"
                wanted[name] = "CREATE INDEX \(quoted(name)) ON \(entity.table)(\(property.column))"
            }
        }
        let present = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [.text(entity.name)]
        ).compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } }
        for name in present where wanted[name] == nil && (name.hasSuffix("_unique") || name.hasSuffix("_fk") || name.hasSuffix("_blob")) {
            try connection.execute("DROP INDEX \(quoted(name))")
        }
        for (name, sql) in wanted where !present.contains(name) { try connection.execute(sql) }
    }

    func columns(of table: String) throws -> Set<String> {
        Set(try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap {
            if case .text(let name) = $0[0] { return name } else { return nil }
        })
    }
}
