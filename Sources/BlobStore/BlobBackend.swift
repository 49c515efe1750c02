import Foundation

/// Where blobs are kept, as OpenSwiftData's external storage and the journal's commands use it:
/// a local folder (`BlobStore`) or an S3 bucket (`S3BlobStore`). Both keep the same rules (the
/// design notes at the top of BlobStore.swift and S3BlobStore.swift): a blob is durable before a
/// write session's `commit()` returns, which comes before the SQLite commit that references it;
/// removal moves to a trash; a sweep deletes only what its caller's referenced set leaves out.
public protocol BlobBackend: AnyObject, Sendable {
    /// Where the blobs are, for messages: a folder's path or an `s3://` location.
    var locationDescription: String { get }
    /// Whether writes and sweeps are refused.
    var isReadOnly: Bool { get }
    /// A write session: it holds the write lock (shared) until `finish()`.
    func makeWriter() throws -> any BlobWriter
    /// A blob's bytes, re-hashed. Throws `BlobStoreError.missing` or `.corrupt`.
    func readVerified(_ digest: BlobDigest) throws -> Data
    /// A blob's bytes in chunks, without holding it whole; re-hashed, and `.corrupt` thrown after
    /// the last chunk if it does not match (a caller writing the chunks must then discard them).
    func readVerified(_ digest: BlobDigest, chunk: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Checks the stored blob against `data` (which must hash to `digest`) and stores it again when
    /// it is missing or damaged.
    func ensure(_ digest: BlobDigest, from data: Data) throws -> BlobStore.EnsureOutcome
    /// Moves to the trash those of `candidates` that `isReferenced` says nothing refers to, under
    /// the exclusive lock. Returns how many went.
    @discardableResult
    func remove(_ candidates: Set<BlobDigest>, lockTimeout: TimeInterval, isReferenced: (BlobDigest) throws -> Bool) throws -> Int
    /// Garbage collection (see `BlobStore.sweep`).
    func sweep(gracePeriod: TimeInterval, trashGracePeriod: TimeInterval, pruneNow: Bool, dryRun: Bool,
               referenced: () throws -> Set<BlobDigest>) throws -> BlobStore.SweepReport
    /// Deletes old trashed blobs nothing refers to, if the store is free at once (see
    /// `BlobStore.pruneTrash`); a backend without it prunes nothing (a bucket: `sweep` does).
    func pruneTrash(olderThan age: TimeInterval, limit: Int, isReferenced: (BlobDigest) throws -> Bool) throws -> Int
    /// Re-hashes every blob on `jobs` threads (with `quick`, only lists them); `expected` are the
    /// digests that must be present. `progress` is called one call at a time.
    func verify(expected: (() throws -> Set<BlobDigest>)?, jobs: Int, quick: Bool, progress: ((Int, Int, Int64) -> Void)?) throws -> BlobStore.VerifyReport
    /// The identity of the database that owns these blobs (design note 8).
    func owner() throws -> String?
    /// Records `identity` as the owner unless one is recorded; throws `BlobStoreError.ownedByAnother`
    /// when another identity is (two stores claiming one place at once: exactly one wins).
    func setOwner(_ identity: String) throws
    /// Removes the owner record if it names `identity` and no blob is stored: a store that claimed
    /// the place and then could not be made gives it back. Returns whether the record went.
    @discardableResult
    func releaseOwner(_ identity: String) throws -> Bool
    /// Whether at least one blob is stored.
    func hasBlobs() throws -> Bool
    /// Whether the trash holds at least one blob.
    func hasTrashedBlobs() throws -> Bool
    /// Where the blobs were moved to, if they were (the `moved` record, written under the
    /// exclusive lock by a move): writers refuse a store that has one.
    func movedTo() throws -> String?
    /// Records (or, with nil, clears) that the blobs were moved to `place`.
    func setMoved(_ place: String?) throws
}

/// One save's blobs: each `put` returns the digest; all are durable once `commit()` returns.
public protocol BlobWriter: AnyObject {
    /// Stores `data`; with `digest` (its SHA-256, computed by the caller from these bytes) it is
    /// not hashed again (a bucket still has the service check the bytes against it).
    func put(_ data: Data, digest: BlobDigest?) throws -> BlobDigest
    func commit() throws
    /// Releases the write lock (after the SQLite commit).
    func finish()
    /// Stored blobs found damaged by a put of the same bytes, and rewritten from them.
    var repaired: [BlobDigest] { get }
}

extension BlobStore: BlobBackend {
    /// The blob folder's path.
    public var locationDescription: String { root.path }

    /// A write session on this folder: a batch synced once at commit, under the shared lock.
    public func makeWriter() throws -> any BlobWriter { try LocalBlobWriter(self) }

    /// The blob's bytes, re-hashed: `.missing` or `.corrupt` otherwise.
    public func readVerified(_ digest: BlobDigest) throws -> Data { try read(digest, verify: true) }

    /// The blob streamed in chunks, re-hashed; `.corrupt` after the last chunk if it does not match.
    public func readVerified(_ digest: BlobDigest, chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        try read(digest, verify: true, chunk: chunk)
    }

    /// Garbage collection with the lock waited for up to 10 minutes (see `BlobStore.sweep`).
    public func sweep(gracePeriod: TimeInterval, trashGracePeriod: TimeInterval, pruneNow: Bool, dryRun: Bool,
                      referenced: () throws -> Set<BlobDigest>) throws -> SweepReport {
        try sweep(gracePeriod: gracePeriod, trashGracePeriod: trashGracePeriod, pruneNow: pruneNow, dryRun: dryRun,
                  lockTimeout: 600, referenced: referenced)
    }

    /// Re-hashes every blob on `jobs` threads (see `verify(expected:only:jobs:quick:progress:)`).
    public func verify(expected: (() throws -> Set<BlobDigest>)?, jobs: Int, quick: Bool, progress: ((Int, Int, Int64) -> Void)?) throws -> VerifyReport {
        try verify(expected: expected, only: nil, jobs: jobs, quick: quick, progress: progress)
    }
}

/// A local store's write session: a batch (data synced once at commit) under the shared lock.
final class LocalBlobWriter: BlobWriter {
    let batch: BlobBatch
    let lock: FileLock

    init(_ store: BlobStore) throws {
        lock = try store.writeLock()
        // Checked under the lock: a move holds it exclusive, so it is either done or not begun.
        if let place = try store.movedTo() {
            lock.unlock()
            throw BlobStoreError.moved(to: place)
        }
        batch = BlobBatch(store: store)
    }

    func put(_ data: Data, digest: BlobDigest?) throws -> BlobDigest { try batch.put(data, digest: digest).digest }
    func commit() throws { try batch.commit() }
    func finish() { lock.unlock() }
    var repaired: [BlobDigest] { batch.repaired }
}

/// Moves to the trash those of `candidates` that `isReferenced` says nothing refers to any more,
/// under the exclusive lock at `lockPath` (so no writer commits a new reference in between): the
/// removal both stores share. Returns how many went.
package func trashUnreferenced(_ candidates: Set<BlobDigest>, lockPath: String, lockTimeout: TimeInterval,
                       isReferenced: (BlobDigest) throws -> Bool, moveToTrash: (BlobDigest) throws -> Void) throws -> Int {
    let lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
    defer { lock.unlock() }
    var removed = 0
    for digest in candidates.sorted() where try !isReferenced(digest) {
        try moveToTrash(digest)
        removed += 1
    }
    return removed
}

extension BlobStore {
    var movedPath: String { root.appendingPathComponent("moved").path }

    /// Where the blobs were moved to, from the `moved` record in the folder.
    public func movedTo() throws -> String? {
        guard let data = FileManager.default.contents(atPath: movedPath) else {
            if access(movedPath, F_OK) == 0 { throw BlobStoreError.io(path: movedPath, operation: "read", errno: EIO) }
            return nil
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? root.path : text
    }

    /// Writes (or with nil removes) the `moved` record, durably.
    public func setMoved(_ place: String?) throws {
        try refuseIfReadOnly()
        guard let place else {
            if unlink(movedPath) != 0 && errno != ENOENT { throw BlobStoreError.io(path: movedPath, operation: "remove", errno: errno) }
            try BlobStore.sync(path: root.path)
            return
        }
        try BlobStore.writeDurably(Data((place + "\n").utf8), to: movedPath, temporary: movedPath + ".\(UUID().uuidString).part")
    }
}

extension BlobBackend {
    /// Nothing: this backend's trash is emptied by `sweep` only.
    public func pruneTrash(olderThan age: TimeInterval, limit: Int, isReferenced: (BlobDigest) throws -> Bool) throws -> Int { 0 }
}
