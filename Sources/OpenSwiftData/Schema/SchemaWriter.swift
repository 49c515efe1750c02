import Foundation

/// Creates the tables and indexes of a schema, and migrates an existing store automatically for
/// the changes that need no decision: a new model, a new property (NULL or its default for existing
/// rows), a rename through `originalName`, `.unique` added or removed (the index really changes).
/// Delete rules live in code and need nothing.
///
/// A column or table the models do not declare is never dropped automatically: it may be a
/// property this version removed, or one a newer version of the app added (a downgrade), and the
/// store cannot always tell which. Its values stay; rows inserted by this version leave it NULL.
/// Only a stage of a `SchemaMigrationPlan` (lightweight or custom), which names the version it migrates from,
/// drops the columns of properties that version declared and the next one does not.
///
/// The whole plan is made first, from the store's own description of itself; if any change needs a
/// decision (a property's type changed, a required property with no default on a table with rows,
/// `.unique` on a column holding duplicates) nothing is touched and `MigrationError` says what to do.
/// Otherwise the store file is backed up (`VACUUM INTO`) and the plan is made again and run inside
/// one write transaction, so two processes opening a new or old store at once cannot both apply it.
struct SchemaWriter {
    let schema: Schema
    let connection: Connection
    /// The store file, for the backup; nil for in-memory stores.
    var storeURL: URL?
    /// In a custom migration stage a changed type is allowed: the column is rebuilt with the new type,
    /// its values converted by SQLite's column affinity where they can be, and the stage's
    /// willMigrate/didMigrate carry or fix the rest.
    var allowsTypeChanges = false
    /// Columns ("Entity.property") that may be dropped when the models no longer declare them: a
    /// migration stage's earlier version declared them. Empty for automatic migration.
    var droppable: Set<String> = []

    enum Step: Equatable {
        case sql(String)
        /// Sets a new column to the property's default value in existing rows.
        case fillDefault(entity: String, property: String)
    }

    /// Brings the store to the schema; returns the backup file made, if any.
    @discardableResult
    func createOrUpdate() throws -> URL? {
        let steps = try plan()
        guard !steps.isEmpty else { return nil }
        let isNewStore = try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_osd%' ESCAPE '\\'").first?.first == .integer(0)
        var backup: URL?
        if !isNewStore, let storeURL {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "-")
            var url = storeURL.deletingLastPathComponent().appendingPathComponent("\(storeURL.lastPathComponent).backup-\(stamp)")
            var n = 2
            while FileManager.default.fileExists(atPath: url.path) {
                url = storeURL.deletingLastPathComponent().appendingPathComponent("\(storeURL.lastPathComponent).backup-\(stamp)-\(n)")
                n += 1
            }
            try connection.statement("VACUUM INTO ?").run([.text(url.path)])
            backup = url
        }
        try connection.transaction {
            // Planned again under the write lock: another process may have migrated meanwhile.
            for step in try plan() {
                switch step {
                case .sql(let sql):
                    try connection.execute(sql)
                case .fillDefault(let entityName, let propertyName):
                    guard let entity = schema.entity(named: entityName), let property = entity.property(named: propertyName),
                          let makeDefault = property.metadata.defaultValue, let codec = property.codec else { continue }
                    try connection.statement("UPDATE \(entity.table) SET \(property.column) = ?").run([codec.encode(makeDefault())])
                }
            }
        }
        return backup
    }

    /// Every change the store needs, without changing anything.
    func plan() throws -> [Step] {
        var steps: [Step] = []
        var plannedJoinTables = Set<String>()
        for entity in schema.entities {
            let existing = try describe(entity.name)
            if existing.isEmpty {
                let columns = ["\"_pk\" INTEGER PRIMARY KEY"] + entity.columns.map(columnDefinition)
                steps.append(.sql("CREATE TABLE \(entity.table) (\(columns.joined(separator: ", ")))"))
                steps += try indexSteps(entity, present: [], dropping: [])
                steps += try joinTableSteps(entity, planned: &plannedJoinTables)
                continue
            }
            steps += try joinTableSteps(entity, planned: &plannedJoinTables)
            let rowCount = try connection.rows("SELECT count(*) FROM \(entity.table)").first?.first
            let hasRows = rowCount != .integer(0)
            var kept = Set<String>()
            var dropped: [String] = []
            var columnSteps: [Step] = []
            for property in entity.columns {
                let expected = declaredType(property)
                if let type = existing[property.name] {
                    kept.insert(property.name)
                    if type.uppercased() != expected {
                        guard allowsTypeChanges else {
                            throw MigrationError.incompatibleChange(
                                model: entity.name, property: property.name,
                                change: "its stored type is \(type) but the model now needs \(expected)",
                                fix: "keep the old type, or add a VersionedSchema and a SchemaMigrationPlan whose custom stage carries the values across")
                        }
                        // Rebuild the column; values convert by the new column's affinity where they can.
                        let old = quoted(property.name + "__osd_old")
                        dropped.append(property.name)
                        columnSteps.append(.sql("ALTER TABLE \(entity.table) RENAME COLUMN \(property.column) TO \(old)"))
                        columnSteps.append(.sql("ALTER TABLE \(entity.table) ADD COLUMN \(columnDefinition(property))"))
                        columnSteps.append(.sql("UPDATE \(entity.table) SET \(property.column) = \(old)"))
                        columnSteps.append(.sql("ALTER TABLE \(entity.table) DROP COLUMN \(old)"))
                    }
                    continue
                }
                if let old = property.attribute?.originalName ?? property.relationship?.originalName, existing[old] != nil {
                    kept.insert(old)
                    columnSteps.append(.sql("ALTER TABLE \(entity.table) RENAME COLUMN \(quoted(old)) TO \(property.column)"))
                    continue
                }
                let required = !property.isOptional && property.codec != nil && property.metadata.defaultValue == nil
                if required && hasRows && !allowsTypeChanges {
                    throw MigrationError.incompatibleChange(
                        model: entity.name, property: property.name,
                        change: "it is new, required and has no default value, and \(entity.name) already has rows",
                        fix: "give it a default value (`var \(property.name): … = …`) or make it optional")
                }
                columnSteps.append(.sql("ALTER TABLE \(entity.table) ADD COLUMN \(columnDefinition(property))"))
                if property.metadata.defaultValue != nil && hasRows {
                    columnSteps.append(.fillDefault(entity: entity.name, property: property.name))
                }
            }
            let removed = existing.keys.filter { $0 != "_pk" && !kept.contains($0) && droppable.contains("\(entity.name).\($0)") }.sorted()
            for name in removed {
                dropped.append(name)
                columnSteps.append(.sql("ALTER TABLE \(entity.table) DROP COLUMN \(quoted(name))"))
            }
            // Indexes on dropped columns must go before the columns do.
            let present = try indexes(of: entity.name)
            steps += present.filter { index in dropped.contains { index.columns.contains($0) } }.map { .sql("DROP INDEX \(quoted($0.name))") }
            steps += columnSteps
            steps += try indexSteps(entity, present: present, dropping: dropped, hasRows: hasRows)
        }
        return steps
    }

    /// Checks, without changing anything, that the store holds every table and column the schema
    /// reads (for a store opened read-only, or written by a newer version and not migrated).
    func checkReadable() throws {
        var missing: [String] = []
        for entity in schema.entities {
            let existing = try describe(entity.name)
            guard !existing.isEmpty else {
                missing.append(entity.name)
                continue
            }
            missing += entity.columns.filter { existing[$0.name] == nil }.map { "\(entity.name).\($0.name)" }
        }
        if !missing.isEmpty { throw ModelError.storeNotMigrated(missing: missing) }
    }

    /// The join tables of many-to-many (and inverse-less to-many) relationships, created once per pair.
    func joinTableSteps(_ entity: Schema.Entity, planned: inout Set<String>) throws -> [Step] {
        var steps: [Step] = []
        for property in entity.relationships {
            guard let link = RelationshipGraph.link(of: property, in: entity),
                  case .joinTable(let table, let ownerColumn, let targetColumn) = link,
                  case .toMany(let targetType) = property.kind, !planned.contains(table) else { continue }
            planned.insert(table)
            let exists = try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]).first?.first != .integer(0)
            guard !exists else { continue }
            // Written the same way whichever side plans it: the first column first.
            var columns = [(ownerColumn, entity.table), (targetColumn, quoted(String(describing: targetType)))]
            columns.sort { $0.0 < $1.0 }
            let definitions = columns.map { "\(quoted($0.0)) INTEGER NOT NULL REFERENCES \($0.1)(\"_pk\") ON DELETE CASCADE" }
            steps.append(.sql("CREATE TABLE \(quoted(table)) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(quoted(columns[0].0)), \(quoted(columns[1].0))))"))
            steps.append(.sql("CREATE INDEX \(quoted(table + "_" + columns[1].0)) ON \(quoted(table))(\(quoted(columns[1].0)))"))
        }
        return steps
    }

    func declaredType(_ property: Schema.Property) -> String {
        switch property.kind {
        case .attribute: return property.isExternalStorage ? "TEXT" : (property.codec?.columnType ?? "")
        case .toOne: return "INTEGER"
        default: return ""
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

    /// One unique index per `.unique` property and per `#Unique` constraint, one per `#Index`, one per to-one
    /// foreign key and one per external-storage column; stale ones (a `.unique` removed) are dropped.
    func indexSteps(_ entity: Schema.Entity, present: [IndexInfo], dropping: [String], hasRows: Bool = false) throws -> [Step] {
        var wanted: [String: String] = [:]
        var uniques = entity.compoundUniques
        for property in entity.columns {
            let name: String
            if property.isUnique {
                uniques.append([property])
                continue
            } else if property.isExternalStorage {
                name = "\(entity.name)_\(property.name)_blob"
            } else if case .toOne = property.kind {
                name = "\(entity.name)_\(property.name)_fk"
            } else {
                continue
            }
            wanted[name] = "CREATE INDEX \(quoted(name)) ON \(entity.table)(\(property.column))"
        }
        for columns in entity.indexes {
            let name = "\(entity.name)_\(columns.map(\.name).joined(separator: "_"))_index"
            wanted[name] = "CREATE INDEX \(quoted(name)) ON \(entity.table)(\(columns.map(\.column).joined(separator: ", ")))"
        }
        for columns in uniques {
            let name = "\(entity.name)_\(columns.map(\.name).joined(separator: "_"))_unique"
            let list = columns.map(\.column).joined(separator: ", ")
            guard wanted[name] == nil else { continue }
            wanted[name] = "CREATE UNIQUE INDEX \(quoted(name)) ON \(entity.table)(\(list))"
            if hasRows && !present.contains(where: { $0.name == name }) {
                let notNull = columns.map { "\($0.column) IS NOT NULL" }.joined(separator: " AND ")
                let duplicates = try connection.rows("SELECT count(*) FROM (SELECT 1 FROM \(entity.table) WHERE \(notNull) GROUP BY \(list) HAVING count(*) > 1)")
                if duplicates.first?.first != .integer(0) {
                    throw MigrationError.incompatibleChange(
                        model: entity.name, property: columns.map(\.name).joined(separator: ", "),
                        change: columns.count == 1 ? "it is now .unique but stored rows share values" : "it is now #Unique but stored rows share values",
                        fix: "remove the duplicates first (in a custom migration stage's willMigrate), or keep it without the constraint")
                }
            }
        }
        var steps: [Step] = []
        let ours = present.filter { index in ["_unique", "_fk", "_blob", "_index"].contains { index.name.hasSuffix($0) } }
        for index in ours where wanted[index.name] == nil && !index.columns.contains(where: dropping.contains) {
            steps.append(.sql("DROP INDEX \(quoted(index.name))"))
        }
        let kept = Set(ours.filter { index in !index.columns.contains(where: dropping.contains) }.map { $0.name })
        for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where !kept.contains(name) { steps.append(.sql(sql)) }
        return steps
    }

    struct IndexInfo { var name: String; var columns: [String] }

    func indexes(of table: String) throws -> [IndexInfo] {
        try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [.text(table)])
            .compactMap { row -> IndexInfo? in
                guard case .text(let name) = row[0] else { return nil }
                let columns = try connection.rows("SELECT name FROM pragma_index_info(?)", [.text(name)]).compactMap { r -> String? in
                    if case .text(let c) = r[0] { return c } else { return nil }
                }
                return IndexInfo(name: name, columns: columns)
            }
    }

    /// Column name → declared type, as the store has them.
    func describe(_ table: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try connection.rows("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) {
            if case .text(let name) = row[0], case .text(let type) = row[1] { result[name] = type }
        }
        return result
    }
}

/// A store that cannot be brought to the current models automatically. The store file is untouched.
public enum MigrationError: Error, Equatable, LocalizedError {
    case incompatibleChange(model: String, property: String, change: String, fix: String)
    /// A SchemaMigrationPlan has no stage from the store's version.
    case noStage(from: String)

    /// Why the store cannot take the schema, naming the table or column.
    public var errorDescription: String? {
        switch self {
        case .incompatibleChange(let model, let property, let change, let fix):
            return "cannot migrate \(model).\(property) automatically: \(change). To fix: \(fix). The store was not changed."
        case .noStage(let version):
            return "the migration plan has no stage from schema version \(version). The store was not changed."
        }
    }
}
