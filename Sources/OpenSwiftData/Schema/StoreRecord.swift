import Foundation

/// What a store records about itself, beside the models' tables: its identity (a UUID written
/// once, also written into its blob folder, so that an emptied, replaced or foreign store is
/// recognised) and every schema that has written to it, in order (so that code older than the
/// store is recognised, and nothing it does not know is dropped or overwritten).
///
/// Kept in `_osd_metadata` (key/value) and `_osd_schemas` (one row per schema, oldest first).
struct StoreRecord {
    let connection: Connection

    static let metadataTable = "_osd_metadata"
    static let schemasTable = "_osd_schemas"

    /// The tables, created if missing (not on a read-only connection).
    func create() throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(Self.metadataTable) (key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE IF NOT EXISTS \(Self.schemasTable) (seq INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, description TEXT NOT NULL, recordedAt REAL NOT NULL)
            """)
    }

    func hasTable(_ name: String) throws -> Bool {
        try connection.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]).first?.first != .integer(0)
    }

    func value(_ key: String) throws -> String? {
        guard try hasTable(Self.metadataTable) else { return nil }
        guard case .text(let text)? = try connection.rows("SELECT value FROM \(Self.metadataTable) WHERE key = ?", [.text(key)]).first?.first else { return nil }
        return text
    }

    func setValue(_ value: String, for key: String) throws {
        try create()
        try connection.statement("INSERT INTO \(Self.metadataTable) (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(key), .text(value)])
    }

    /// The store's identity; nil for a store made before identities were recorded, or an empty one.
    func identifier() throws -> String? { try value("storeIdentifier") }

    /// Writes an identity if the store has none; returns the identity it has.
    func ensureIdentifier() throws -> String {
        // The common case reads only: no write lock is taken on every open.
        if let existing = try identifier() { return existing }
        return try connection.transaction {
            if let existing = try identifier() { return existing }
            let id = UUID().uuidString.lowercased()
            try setValue(id, for: "storeIdentifier")
            return id
        }
    }

    /// The schemas recorded, oldest first.
    func history() throws -> [SchemaDescription] {
        guard try hasTable(Self.schemasTable) else { return [] }
        return try connection.rows("SELECT description FROM \(Self.schemasTable) ORDER BY seq").compactMap { row in
            guard case .text(let json) = row[0] else { return nil }
            return try? JSONDecoder().decode(SchemaDescription.self, from: Data(json.utf8))
        }
    }

    /// Appends `description` the first time it writes to the store (the order is the order in
    /// which schemas first appeared, which is what tells an older schema from a newer one).
    func record(_ description: SchemaDescription) throws {
        if try hasTable(Self.schemasTable),
           try !connection.rows("SELECT 1 FROM \(Self.schemasTable) WHERE fingerprint = ?", [.text(description.fingerprint)]).isEmpty {
            return  // already recorded: nothing to write on an ordinary open
        }
        try create()
        try connection.statement("INSERT OR IGNORE INTO \(Self.schemasTable) (fingerprint, description, recordedAt) VALUES (?, ?, ?)")
            .run([.text(description.fingerprint), .text(description.json), .real(Date().timeIntervalSince1970)])
    }

    /// What the store holds that `current` does not declare, when the record shows the store was
    /// written by a newer schema: a later version identifier than `current`'s, or `current` seen
    /// earlier in the history and a later schema declaring entities or properties it lacks.
    /// Nil when nothing shows the store is newer.
    func newerThan(_ current: SchemaDescription, storedVersion: Schema.Version?) throws -> [String]? {
        let history = try history()
        if let stored = storedVersion, let mine = current.version.flatMap(Schema.Version.init), stored > mine {
            let names = history.last.map { current.missing(from: $0) } ?? []
            return names.isEmpty ? ["schema version \(stored)"] : names
        }
        guard let position = history.firstIndex(where: { $0.fingerprint == current.fingerprint }) else { return nil }
        var names = Set<String>()
        for later in history[(position + 1)...] { names.formUnion(current.missing(from: later)) }
        return names.isEmpty ? nil : names.sorted()
    }
}

/// A schema as a store records it: each entity's persisted properties and how they are stored.
struct SchemaDescription: Codable, Equatable {
    /// Entity name → property name → "attribute TYPE", "external", "toOne", "toMany".
    var entities: [String: [String: String]]
    /// `VersionedSchema.versionIdentifier`, when the schema has one.
    var version: String?

    init(_ schema: Schema) {
        var entities: [String: [String: String]] = [:]
        for entity in schema.entities {
            var properties: [String: String] = [:]
            for property in entity.properties {
                switch property.kind {
                case .attribute: properties[property.name] = property.isExternalStorage ? "external" : "attribute \(property.codec?.columnType ?? "")"
                case .toOne: properties[property.name] = "toOne"
                case .toMany: properties[property.name] = "toMany"
                case .unsupported: break
                }
            }
            entities[entity.name] = properties
        }
        self.entities = entities
        version = schema.version?.description
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    var fingerprint: String { json }

    /// The entities and their properties alone, without the version identifier: what a store's
    /// version is recognised by in a migration plan (as Core Data recognises a model version by its
    /// entities' hashes), so that two versions sharing an identifier are still told apart.
    var shape: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(entities)) ?? Data(), as: UTF8.self)
    }

    /// What `other` declares that this description does not: "Entity" or "Entity.property".
    func missing(from other: SchemaDescription) -> [String] {
        var names: [String] = []
        for (entity, properties) in other.entities.sorted(by: { $0.key < $1.key }) {
            guard let mine = entities[entity] else {
                names.append(entity)
                continue
            }
            names += properties.keys.filter { mine[$0] == nil }.sorted().map { "\(entity).\($0)" }
        }
        return names
    }
}
