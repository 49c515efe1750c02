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

    public convenience init(for types: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(types), configurations: configurations)
    }

    public convenience init(for schema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, configurations: configurations)
    }

    public init(for schema: Schema, configurations: [ModelConfiguration]) throws {
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
        try SchemaWriter(schema: schema, connection: anchor).createOrUpdate()
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

    /// Erases every model in the store.
    public func deleteAllData() throws {
        try anchor.transaction {
            for entity in schema.entities { try anchor.execute("DELETE FROM \(entity.table)") }
        }
    }
}
