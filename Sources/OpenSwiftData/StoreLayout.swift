import Foundation

/// Which store holds which models, when a container has several configurations (SwiftData keeps a
/// store per configuration, each with its own URL and models).
///
/// An entity belongs to the first configuration whose `schema` holds it (a configuration's schema
/// holds the types it names and those their relationships reach), else to the first configuration
/// without a schema, else to the first. Configurations with the same URL are one store. A model
/// held by two configurations with different stores is refused: its relationships would cross
/// stores, which SwiftData refuses too. The first configuration's store is the main one: its file
/// holds the store's record, history and identity, and its folder the external-storage values of
/// every store; the others are attached to each connection (SQLite `ATTACH`), so SQL names their
/// tables as if they were one database.
struct StoreLayout {
    struct Store {
        var configuration: ModelConfiguration
        var types: [any PersistentModel.Type]
        var schema: Schema { Schema(types) }
    }

    /// The configurations as given (or the default one), for `ModelContainer.configurations`.
    let configurations: [ModelConfiguration]
    private(set) var main: Store
    private(set) var secondaries: [Store]

    /// Keeps in the main store the models whose tables its file already holds (written when every
    /// model went there): their rows stay where they are, and the main store migrates them.
    mutating func keepInMain(tables: Set<String>) {
        for index in secondaries.indices {
            let kept = secondaries[index].types.filter { tables.contains(String(describing: $0)) }
            guard !kept.isEmpty else { continue }
            main.types += kept
            secondaries[index].types.removeAll { tables.contains(String(describing: $0)) }
        }
    }

    init(schema: Schema, configurations given: [ModelConfiguration]) throws {
        let configurations = given.isEmpty ? [ModelConfiguration(schema: schema)] : given
        self.configurations = configurations
        guard configurations.count > 1 else {
            main = Store(configuration: configurations[0], types: schema.entities.map(\.type))
            secondaries = []
            return
        }
        // One store per location; an in-memory configuration is a store of its own.
        func location(_ configuration: ModelConfiguration, _ index: Int) -> String {
            // The same file by another spelling (`..`, a symlinked folder) is the same store.
            // (The folder is resolved: the file itself may not exist yet, and then is not.)
            guard !configuration.isStoredInMemoryOnly else { return "memory \(index)" }
            let url = configuration.url.standardizedFileURL
            if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
            return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
        }
        var stores: [(location: String, configuration: ModelConfiguration)] = []
        var storeOf: [Int] = []
        for (index, configuration) in configurations.enumerated() {
            let place = location(configuration, index)
            if let existing = stores.firstIndex(where: { $0.location == place }) {
                storeOf.append(existing)
            } else {
                storeOf.append(stores.count)
                stores.append((place, configuration))
            }
        }
        var assigned = Array(repeating: [any PersistentModel.Type](), count: stores.count)
        let fallback = configurations.firstIndex { $0.schema == nil } ?? 0
        for entity in schema.entities {
            let claims = configurations.indices.filter { configurations[$0].schema?.entity(for: entity.type) != nil }
            let claimingStores = Set(claims.map { storeOf[$0] })
            if claimingStores.count > 1 {
                let places = claimingStores.sorted().map { stores[$0].location }
                throw ModelError.severalStores(reason: "\(entity.name) is in the models of configurations with different stores (\(places.joined(separator: ", "))): "
                                               + "a relationship cannot cross stores; give each store models that relate only to each other")
            }
            assigned[claimingStores.first ?? storeOf[fallback]].append(entity.type)
        }
        // A connection to an in-memory database attaches others in memory too (SQLite gives an
        // attached file the main database's VFS): a file store after an in-memory one would be empty.
        if stores[0].configuration.isStoredInMemoryOnly, stores.dropFirst().contains(where: { !$0.configuration.isStoredInMemoryOnly }) {
            throw ModelError.severalStores(reason: "the first configuration is in memory and a later one is a file; list the file's configuration first")
        }
        main = Store(configuration: stores[0].configuration, types: assigned[0])
        secondaries = stores.indices.dropFirst().filter { !assigned[$0].isEmpty }.map { Store(configuration: stores[$0].configuration, types: assigned[$0]) }
    }
}

extension ModelContainer {
    /// Opens (and migrates, automatically) a secondary store; returns the path to attach and the
    /// connection, which the container keeps (an in-memory store lives while one is open).
    static func openSecondary(_ store: StoreLayout.Store) throws -> (path: String, connection: Connection)? {
        let types = store.types
        guard !types.isEmpty else { return nil }
        let configuration = store.configuration
        let path: String
        if configuration.isStoredInMemoryOnly {
            path = "file:/openswiftdata-\(UUID().uuidString)?vfs=memdb"
        } else {
            path = configuration.url.path
            if configuration.allowsSave {
                try FileManager.default.createDirectory(at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } else if !FileManager.default.fileExists(atPath: path) {
                throw ModelError.storeNotFound(path: path)
            }
        }
        let schema = Schema(types)
        let connection = try Connection(path: path, readOnly: !configuration.allowsSave && !configuration.isStoredInMemoryOnly)
        if connection.isReadOnly {
            try SchemaWriter(schema: schema, connection: connection).checkReadable()
        } else {
            try Migrator(connection: connection, storePath: path, storeURL: configuration.isStoredInMemoryOnly ? nil : configuration.url)
                .migrate(to: schema, plan: nil)
            try StoreRecord(connection: connection).record(SchemaDescription(schema))
        }
        return (path, connection)
    }

    /// Attaches the secondary stores to `connection` (`store1`, `store2`, …); a store whose
    /// configuration does not allow saves read-only (`mode=ro`), so nothing can write it.
    static func attach(_ stores: [(path: String, readOnly: Bool)], to connection: Connection) throws {
        for (index, store) in stores.enumerated() {
            var path = store.path
            if store.readOnly { path = "file:\(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)?mode=ro" }
            try connection.statement("ATTACH DATABASE ? AS \(quoted("store\(index + 1)"))").run([.text(path)])
        }
    }
}
