// BlobStore: a content-addressed directory of files named by their SHA-256.
//
// DESIGN NOTES: the rules that make crash safety hold
// ===================================================
// Layout: ROOT/sha256/ab/abcdef… (two-hex fan-out, full lower-case digest as the name),
// ROOT/tmp/ for writes in progress, ROOT/lock for the advisory lock, ROOT/trash/ for removed blobs
// waiting out their grace period, ROOT/owner for the identity of the store that owns the folder.
// See docs/storage-format.md.
//
// (1) A blob's final name only ever names a complete file. A write goes to ROOT/tmp/<random>,
//     hashing while it copies; the temp file is fsync'ed before it gets its final name.
// (2) A final name never changes content. The temp file is published with link(2), which fails
//     with EEXIST rather than replace, and then unlinked. An existing name is a duplicate hit:
//     nothing is rewritten; its mtime is refreshed so that the sweep's grace period protects it.
// (3) The directory entry is durable before `put` returns: the fan-out directory (and, when the
//     fan-out directory was created, ROOT/sha256) is fsync'ed. A batch (`BlobBatch`) syncs its
//     data once and its directories once, at `commit()`, instead of after every put; past four
//     files or four directories, "once" is one syncfs(2) of the store's file system. Each temp
//     file's writeback is started as soon as it is written (sync_file_range), so that sync finds
//     little left to do; only the sync makes anything durable.
// (4) The caller commits the SQLite transaction that references a blob only after (3). So a
//     committed reference always names a durable, complete blob. A crash before the commit leaves
//     an unreferenced blob (an orphan) or a temp file: never a dangling reference.
// (5) Deleting: the referencing rows are deleted and committed first, the blobs removed after.
//     A crash in between leaves orphans, which `sweep` removes. "Removed" means moved (rename(2),
//     same file system) into ROOT/trash/, its mtime set to the time of removal first; only a later
//     sweep deletes a trashed blob, once it has been there for the trash grace period (default 7
//     days). A sweep first takes back from the trash every blob that is referenced again, and a
//     read of a blob missing from sha256/ looks in the trash: a restored database finds its photos.
// (6) Writers hold ROOT/lock shared from their first put until their commit (`writeLock()`);
//     `sweep` holds it exclusive while it computes the referenced set and removes. A sweep
//     therefore never sees a blob whose reference is about to commit. Independently, a sweep
//     removes only blobs and temp files older than its grace period (default one hour), which
//     protects writers that do not take the lock.
// (7) Nothing trusts a name: verifying reads and `verify()` re-hash content, and a copy out of
//     the store (`export`) publishes its destination only when the hash matched. A put whose
//     digest is already stored checks the stored file (size, then hash) and replaces it from the
//     new bytes when it is damaged: the one case where a final name gets new content, always
//     content that hashes to the name.
// (8) A store's owner is recorded in ROOT/owner (written once, by temp file and rename). Whoever
//     sweeps compares it with the identity in its database first: an empty, replaced or foreign
//     database must never decide what is unreferenced.
import Foundation

/// A content-addressed, crash-safe blob directory.
///
/// ```swift
/// let store = try BlobStore(root: libraryURL.appendingPathComponent("blobs"))
/// let digest = try store.put(contentsOf: photoURL)
/// let bytes = try store.read(digest, verify: true)
/// ```
public final class BlobStore: @unchecked Sendable {
    /// The store's folder: `sha256/`, `trash/`, `tmp/`, the lock and the owner record inside.
    public let root: URL
    let blobsPath: String
    let tmpPath: String
    let lockPath: String
    let trashPath: String
    let ownerPath: String
    /// Opened without creating anything: writes and sweeps are refused.
    public let isReadOnly: Bool

    /// Opens (creating if needed) the store at `root`; with `readOnly`, creates nothing and takes no lock.
    public init(root: URL, readOnly: Bool = false) throws {
        self.root = root
        blobsPath = root.appendingPathComponent("sha256").path
        tmpPath = root.appendingPathComponent("tmp").path
        lockPath = root.appendingPathComponent("lock").path
        trashPath = root.appendingPathComponent("trash").path
        ownerPath = root.appendingPathComponent("owner").path
        isReadOnly = readOnly
        guard !readOnly else { return }
        for path in [root.path, blobsPath, tmpPath, trashPath] { try Privacy.makeFolder(path) }
    }

    /// Takes back the folders `init` made, when they hold nothing (rmdir only: a folder with
    /// anything in it stays), and the root too unless `keepingRoot` (it existed before: an empty
    /// mount point). For an open that found the store's place gone and must not make a new one there.
    public func removeIfEmpty(keepingRoot: Bool = false) {
        for path in [tmpPath, blobsPath, trashPath] + (keepingRoot ? [] : [root.path]) { rmdir(path) }
    }

    /// The file of a blob (which may not exist).
    public func url(for digest: BlobDigest) -> URL { URL(fileURLWithPath: path(for: digest)) }

    func path(for digest: BlobDigest) -> String { "\(blobsPath)/\(digest.prefix)/\(digest.hex)" }
    func trashPath(for digest: BlobDigest) -> String { "\(trashPath)/\(digest.hex)" }
    func directory(for digest: BlobDigest) -> String { "\(blobsPath)/\(digest.prefix)" }

    /// Takes the store's lock shared: hold it from the first put until the referencing commit.
    public func writeLock(timeout: TimeInterval = 600) throws -> FileLock {
        try FileLock(path: lockPath, mode: .shared, timeout: timeout)
    }

    /// The lock held exclusive: no writer is between a put and its commit, and none starts, until
    /// it is released (what a sweep holds; also a move of every blob to another store).
    public func exclusiveLock(timeout: TimeInterval = 600) throws -> FileLock {
        try FileLock(path: lockPath, mode: .exclusive, timeout: timeout)
    }

    /// fsyncs a directory (or a file) by path.
    static func sync(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open for fsync", path)
        defer { close(fd) }
        try check(fsync(fd), "fsync", path)
    }

    /// Replaces the small file at `path` with `data` durably: written to `temporary` (same file
    /// system), fsync'ed, renamed over `path`, and `path`'s folder fsync'ed. The owner and moved
    /// records, and the journal's blobs.json, are written this way. With `replacing: false` the
    /// file is linked into place instead, which fails if `path` exists: false then, and nothing changed.
    @discardableResult
    public static func writeDurably(_ data: Data, to path: String, temporary: String, replacing: Bool = true) throws -> Bool {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, Privacy.fileMode)
        try check(fd, "create", temporary)
        var open = true
        do {
            try Privacy.setFileMode(fd, temporary)
            try data.withUnsafeBytes { try writeAll(fd, $0, temporary) }
            try check(fsync(fd), "fsync", temporary)
            close(fd)
            open = false
            if replacing {
                try check(rename(temporary, path), "rename", path)
            } else {
                let linked = link(temporary, path)
                let code = errno
                unlink(temporary)
                if linked != 0 && code == EEXIST { return false }
                if linked != 0 { throw BlobStoreError.io(path: path, operation: "link", errno: code) }
            }
            try sync(path: (path as NSString).deletingLastPathComponent)
            return true
        } catch {
            if open { close(fd) }
            unlink(temporary)
            throw error
        }
    }
}
