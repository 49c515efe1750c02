import Foundation
import OpenSwiftData

/// What a file on disk was when an import last read it: enough to know, from a directory walk's
/// `stat` alone, that it has not changed since (as git's index and restic's parent snapshot do).
struct FileIdentity: Equatable, Sendable {
    var inode: UInt64
    var size: Int64
    /// Modification and status-change times, in nanoseconds since 1970.
    var modified: Int64
    var changed: Int64

    init(inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        (self.inode, self.size, self.modified, self.changed) = (inode, size, modified, changed)
    }

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}

/// The library's record of the files imported, by real path (`source_file`, beside the model's
/// tables): each file's identity when it was read and what it turned out to be (a photo's SHA-256,
/// or why it is not a photo). A re-sync skips, unread, a file whose identity is the recorded one;
/// everything else is read as before. The record is a cache: a missing or wrong row costs a read,
/// never a photo, since what decides a photo's place in a memory is its digest, checked against
/// the memory's rows.
///
/// A row is trusted only if the file's times are at least `racyMargin` older than the row: a file
/// written again within its file system's time resolution of being read (two seconds on FAT) can
/// keep its size and times (git's "racily clean" entries). Rows are written before the batch
/// they describe is saved, in a transaction of their own: a row is trusted only for a photo the
/// memory holds, so a batch that never commits costs a read next time. That the table holds rows
/// also tells `verify` that stored files no photo names are what an import left, not the photos
/// of a store that lost its rows (`hasRows`).
enum SourceIndex {
    static let table = "source_file"
    /// Two seconds: FAT's time resolution, the coarsest of the file systems photos come from.
    static let racyMargin: Int64 = 2_000_000_000
    /// Paths looked up per query.
    static let lookupBatch = 500
    /// The version of what an import accepts. Raise it whenever a kind of file that was skipped
    /// can be imported (videos, GIFs): a file recorded as skipped under other rules is read again.
    static let rules: Int64 = 1

    /// What a row says.
    struct Entry: Equatable {
        var identity: FileIdentity
        /// The photo's SHA-256, or nil for a file that is not a photo (`skipped` says what it is).
        var sha256: String?
        var skipped: String?
        /// When the row was written, in nanoseconds since 1970.
        var recorded: Int64
        /// The `rules` it was skipped under (0: a row from before they were recorded).
        var rules: Int64 = 0

        /// Whether a file whose walk found `identity` is the one this row describes, unchanged.
        func matches(_ identity: FileIdentity) -> Bool {
            self.identity == identity && identity.modified < recorded - SourceIndex.racyMargin
                && identity.changed < recorded - SourceIndex.racyMargin
        }
    }

    static func install(on context: ModelContext) throws {
        try context.installOnce(table, """
            CREATE TABLE \(table) (path BLOB PRIMARY KEY NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
              modified INTEGER NOT NULL, changed INTEGER NOT NULL, sha256 TEXT, skipped TEXT, recorded INTEGER NOT NULL,
              rules INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID
            """)
        // A table made before the rules were recorded gets the column (its rows: rules 0).
        let hasRules = "SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = 'rules'"
        guard try context.query(hasRules).first?.first == .integer(0) else { return }
        try context.immediateTransaction {
            if try context.query(hasRules).first?.first == .integer(0) {
                try context.execute("ALTER TABLE \(table) ADD COLUMN rules INTEGER NOT NULL DEFAULT 0")
            }
        }
    }

    static func exists(in context: ModelContext) throws -> Bool {
        try context.tableExists(table)
    }

    /// Whether any import ever recorded a file here.
    static func hasRows(in context: ModelContext) throws -> Bool {
        guard try exists(in: context) else { return false }
        return try !context.query("SELECT 1 FROM \(table) LIMIT 1").isEmpty
    }

    /// The rows of these paths, a batch of them a query.
    static func lookup(_ paths: [Data], in context: ModelContext) throws -> [Data: Entry] {
        guard try exists(in: context) else { return [:] }
        var found: [Data: Entry] = [:]
        var start = 0
        while start < paths.count {
            let batch = paths[start..<min(paths.count, start + lookupBatch)]
            start += batch.count
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
            let rows = try context.query("SELECT path, inode, size, modified, changed, sha256, skipped, recorded, rules FROM \(table) WHERE path IN (\(marks))",
                                         batch.map { .blob($0) })
            for row in rows {
                guard row.count == 9, case .blob(let path) = row[0], let inode = row[1].int64Value, let size = row[2].int64Value,
                      let modified = row[3].int64Value, let changed = row[4].int64Value, let recorded = row[7].int64Value else { continue }
                found[path] = Entry(identity: FileIdentity(inode: UInt64(bitPattern: inode), size: size, modified: modified, changed: changed),
                                    sha256: row[5].stringValue, skipped: row[6].stringValue, recorded: recorded, rules: row[8].int64Value ?? 0)
            }
        }
        return found
    }

    /// Records what these files were, replacing what was recorded of them.
    static func record(_ entries: [(path: Data, identity: FileIdentity, sha256: String?, skipped: String?)], in context: ModelContext) throws {
        guard !entries.isEmpty else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let recorded = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        try context.immediateTransaction {
            for entry in entries {
                try context.execute("INSERT OR REPLACE INTO \(table) (path, inode, size, modified, changed, sha256, skipped, recorded, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    [.blob(entry.path), .integer(Int64(bitPattern: entry.identity.inode)), .integer(entry.identity.size),
                                     .integer(entry.identity.modified), .integer(entry.identity.changed),
                                     entry.sha256.map { .text($0) } ?? .null, entry.skipped.map { .text($0) } ?? .null, .integer(recorded), .integer(rules)])
            }
        }
    }
}
