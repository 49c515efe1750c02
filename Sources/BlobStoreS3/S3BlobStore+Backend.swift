import BlobStore
import Foundation

extension S3BlobStore: BlobBackend {
    /// `s3://bucket/prefix`.
    public var locationDescription: String {
        "s3://\(client.location.bucket)" + (client.location.prefix.isEmpty ? "" : "/" + client.location.prefix)
    }

    /// A bucket is written through the service: never read-only here.
    public var isReadOnly: Bool { false }

    /// A write session: uploads in the background, all confirmed at commit.
    public func makeWriter() throws -> any BlobWriter { try S3BlobWriter(self) }

    /// The object's bytes, re-hashed (from the trash if only there).
    public func readVerified(_ digest: BlobDigest) throws -> Data { try read(digest) }

    /// The object streamed in chunks, re-hashed.
    public func readVerified(_ digest: BlobDigest, chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        try read(digest, chunk: chunk)
    }

    /// Moves the candidates that nothing references to the trash prefix, under the exclusive lock.
    @discardableResult
    public func remove(_ candidates: Set<BlobDigest>, lockTimeout: TimeInterval, isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
        try trashUnreferenced(candidates, lockPath: lockPath, lockTimeout: lockTimeout, isReferenced: isReferenced, moveToTrash: moveToTrash)
    }

    /// Garbage collection with the lock waited for up to 10 minutes (see `S3BlobStore.sweep`).
    public func sweep(gracePeriod: TimeInterval, trashGracePeriod: TimeInterval, pruneNow: Bool, dryRun: Bool,
                      referenced: () throws -> Set<BlobDigest>) throws -> BlobStore.SweepReport {
        try sweep(gracePeriod: gracePeriod, trashGracePeriod: trashGracePeriod, pruneNow: pruneNow, dryRun: dryRun,
                  lockTimeout: 600, referenced: referenced)
    }

    /// Whether the bucket holds at least one blob under the prefix.
    public func hasBlobs() throws -> Bool { try !client.list(prefix: "sha256/", limit: 1).isEmpty }
    /// Whether the trash holds an object (one listing of at most one key).
    public func hasTrashedBlobs() throws -> Bool { try !client.list(prefix: "trash/", limit: 1).isEmpty }
}

/// An S3 store's write session, under the shared lock: each put is hashed at once and uploaded in
/// the background (up to `inFlight` at a time); `commit()` returns when every upload has been
/// confirmed, and throws the first failure. So a save's photos go up in parallel, and none is
/// referenced by a commit before the service has it.
final class S3BlobWriter: BlobWriter {
    let store: S3BlobStore
    let lock: FileLock
    private let uploads = DispatchGroup()
    private let slots: DispatchSemaphore
    private let state = NSLock()
    private var failure: Error?

    init(_ store: S3BlobStore, inFlight: Int = 8) throws {
        self.store = store
        slots = DispatchSemaphore(value: max(1, inFlight))
        lock = try store.writeLock()
        // Checked under the lock: a move holds it exclusive, so it is either done or not begun.
        if let place = try store.movedTo() {
            lock.unlock()
            throw BlobStoreError.moved(to: place)
        }
    }

    func put(_ data: Data, digest known: BlobDigest?) throws -> BlobDigest {
        let digest = known ?? SHA256.digest(data)
        state.lock()
        let failed = failure
        state.unlock()
        if let failed { throw failed }
        slots.wait()
        uploads.enter()
        DispatchQueue.global(qos: .userInitiated).async { [store, slots, uploads] in
            defer {
                slots.signal()
                uploads.leave()
            }
            do {
                _ = try store.put(data, digest: digest)
            } catch {
                self.state.lock()
                if self.failure == nil { self.failure = error }
                self.state.unlock()
            }
        }
        return digest
    }

    func commit() throws {
        uploads.wait()
        state.lock()
        defer { state.unlock() }
        if let failure { throw failure }
    }

    func finish() {
        uploads.wait()
        lock.unlock()
    }

    var repaired: [BlobDigest] { [] }
}

extension S3BlobStore {
    /// Where the blobs were moved to, from the `moved` object.
    public func movedTo() throws -> String? {
        try record("moved").map { $0.isEmpty ? locationDescription : $0 }
    }

    /// Writes (or with nil deletes) the `moved` object.
    public func setMoved(_ place: String?) throws {
        if let place { try client.put("moved", data: Data((place + "\n").utf8)) } else { try client.delete("moved") }
    }
}
