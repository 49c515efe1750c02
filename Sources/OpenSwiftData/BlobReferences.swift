import BlobStore
import Foundation

/// The blob digests a store's rows reference: the one place that SQL is written, for garbage
/// collection, verification, and a save deciding whether a blob it released is still used.
///
/// Declared external-storage columns hold a digest or NULL. Columns and tables the schema does
/// not declare (a newer version's, a removed property's: automatic migration keeps them) may hold
/// digests too; any 64-character text in them counts, so a blob that only they reference is kept.
struct BlobReferences {
    let connection: Connection
    /// Every column that may hold a digest, listed once from the store's own description.
    let sources: [Source]

    init(schema: Schema, connection: Connection) throws {
        self.connection = connection
        sources = try Self.sources(schema: schema, connection: connection)
    }

    /// A column to read: its table and column (quoted), and whether the schema declares it as external storage.
    struct Source {
        var table: String
        var column: String
        var declared: (entity: String, property: String)?
    }

    /// Every model table of every database on the connection: the store and the other stores a
    /// container with several configurations attaches (their rows' blobs are in this store's folder).
    static func sources(schema: Schema, connection: Connection) throws -> [Source] {
        var sources: [Source] = []
        let databases = try connection.rows("SELECT name FROM pragma_database_list WHERE name <> 'temp'")
            .compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } }
        for database in databases {
            let tables = try connection.rows("SELECT name FROM \(quoted(database)).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_osd%' ESCAPE '\\'")
                .compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } }
            for table in tables {
                let columns = try connection.rows("SELECT name FROM pragma_table_info(?, ?)", [.text(table), .text(database)])
                    .compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } }
                guard columns.contains("_pk") else { continue }  // not a model's table (a join table, an app's own)
                let entity = schema.entity(named: table)
                let declared = Set(entity?.columns.map(\.name) ?? [])
                let qualified = quoted(database) + "." + quoted(table)
                for property in entity?.externals ?? [] {
                    sources.append(Source(table: qualified, column: property.column, declared: (table, property.name)))
                }
                for column in columns where column != "_pk" && !declared.contains(column) {
                    sources.append(Source(table: qualified, column: quoted(column), declared: nil))
                }
            }
        }
        return sources
    }

    /// Every referenced digest, each table read row by row (`NOT INDEXED`).
    func all() throws -> Set<BlobDigest> {
        var result = Set<BlobDigest>()
        for source in sources {
            if let (entity, property) = source.declared {
                for row in try connection.rows("SELECT \(source.column) FROM \(source.table) NOT INDEXED WHERE \(source.column) IS NOT NULL") {
                    guard case .text(let hex) = row[0], let digest = BlobDigest(hex: hex) else {
                        throw ModelError.corruptValue(model: entity, property: property, stored: "\(row[0]) (not a blob digest)")
                    }
                    result.insert(digest)
                }
            } else {
                let sql = "SELECT \(source.column) FROM \(source.table) NOT INDEXED WHERE typeof(\(source.column)) = 'text' AND length(\(source.column)) = 64"
                for row in try connection.rows(sql) {
                    if case .text(let hex) = row[0], let digest = BlobDigest(hex: hex) { result.insert(digest) }
                }
            }
        }
        return result
    }

    /// Whether any row references a blob at all (a declared external-storage column that is not
    /// NULL, or digest-shaped text in an undeclared one).
    func any() throws -> Bool {
        for source in sources {
            let condition = source.declared != nil ? "\(source.column) IS NOT NULL"
                : "typeof(\(source.column)) = 'text' AND length(\(source.column)) = 64"
            if try !connection.rows("SELECT 1 FROM \(source.table) WHERE \(condition) LIMIT 1").isEmpty { return true }
        }
        return false
    }

    /// Whether any row references `digest` (through the indexes: for a save's quick check; a
    /// blob wrongly judged unused goes to the trash, and garbage collection, which reads the
    /// tables themselves, takes it back).
    func contains(_ digest: BlobDigest) throws -> Bool {
        for source in sources {
            let statement = try connection.statement("SELECT 1 FROM \(source.table) WHERE \(source.column) = ? LIMIT 1")
            try statement.bind([.text(digest.hex)])
            let found = try statement.step()
            statement.reset()
            if found { return true }
        }
        return false
    }
}
