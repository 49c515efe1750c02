import OpenSwiftData

extension ModelContext {
    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: the write lock is taken first, so two
    /// processes making the same once-only change to a library take turns, and the second finds it
    /// made. Committed when `body` returns, rolled back when it throws.
    func immediateTransaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Whether the store has a table of this name (the journal's own tables are made by the first
    /// writing open that finds them missing; a read-only open of an older library goes without).
    func tableExists(_ name: String) throws -> Bool {
        try query(LibrarySQL.tableExists, [.text(name)]).first?.first == .integer(1)
    }

    /// Runs `sql` (which makes `table`, and whatever keeps it) unless the table exists: once, when
    /// two processes open an older library at once.
    func installOnce(_ table: String, _ sql: String) throws {
        guard try !tableExists(table) else { return }
        try immediateTransaction {
            if try !tableExists(table) { try execute(sql) }
        }
    }
}
