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
}
