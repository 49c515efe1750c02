import BlobStore
import Foundation

extension ModelContainer {
    /// Deletes the store's old trashed blobs that no row refers to (`ModelConfiguration.trashGracePeriod`),
    /// up to 10,000, on a background thread with a read-only connection of its own: the caller does
    /// not wait, and a save or sweep at work longer than two seconds makes it do nothing this time.
    /// Nothing is deleted unless SQLite's `quick_check` passes and every row's digest could be read
    /// from the tables (not an index). Failures are silent: what is not pruned now is by a later
    /// open, or by `collectGarbage`. A clock set far ahead makes recent removals look old, as it
    /// does for `collectGarbage`.
    static func pruneTrash(of backend: any BlobBackend, age: TimeInterval, storePath: String, secondaries: [(path: String, readOnly: Bool)], schema: Schema) {
        let job = PruneJob(backend: backend, schema: schema)
        DispatchQueue.global(qos: .utility).async {
            // Nothing is deleted on the word of a store SQLite finds damaged.
            guard let connection = try? Connection(path: storePath, readOnly: true),
                  (try? attach(secondaries, to: connection)) != nil,
                  let check = try? connection.rows("PRAGMA quick_check(1)"), check.first?.first == .text("ok"),
                  let references = try? BlobReferences(schema: job.schema, connection: connection) else { return }
            // The rows' digests read from the tables themselves (NOT INDEXED, every value parsed, any
            // case), once there is something old to decide on: an index quick_check does not look
            // at could say a referenced blob is not.
            var referenced: Set<BlobDigest>?
            _ = try? job.backend.pruneTrash(olderThan: age, limit: 10_000) { digest in
                if referenced == nil { referenced = try references.all() }
                return referenced!.contains(digest)
            }
        }
    }

    /// What the background prune takes along (used by it alone).
    private final class PruneJob: @unchecked Sendable {
        let backend: any BlobBackend
        let schema: Schema
        init(backend: any BlobBackend, schema: Schema) { (self.backend, self.schema) = (backend, schema) }
    }
}
