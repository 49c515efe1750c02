import BlobStore
import Foundation

/// Where a container keeps `@Attribute(.externalStorage)` values: a BlobStore next to the store
/// file (`.NAME_SUPPORT/`, as SwiftData keeps `.default_SUPPORT`), or memory for in-memory stores.
final class ExternalStorage: @unchecked Sendable {
    let blobs: BlobStore?
    private var memory: [BlobDigest: Data] = [:]
    private let lock = NSLock()

    init(storeURL: URL?, readOnly: Bool = false) throws {
        if let storeURL {
            let name = storeURL.deletingPathExtension().lastPathComponent
            blobs = try BlobStore(root: storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT"), readOnly: readOnly)
        } else {
            blobs = nil
        }
    }

    /// A write session: puts are durable at `commit()`, and the write lock is held until `finish()`.
    final class Writer {
        let storage: ExternalStorage
        let batch: BlobBatch?
        let lock: FileLock?
        var memory: [BlobDigest: Data] = [:]

        init(_ storage: ExternalStorage) throws {
            self.storage = storage
            if let blobs = storage.blobs {
                lock = try blobs.writeLock()
                batch = BlobBatch(store: blobs)
            } else {
                lock = nil
                batch = nil
            }
        }

        func put(_ data: Data) throws -> BlobDigest {
            if let batch { return try batch.put(data).digest }
            let digest = SHA256.digest(data)
            memory[digest] = data
            return digest
        }

        /// Makes every put durable (before the SQLite commit that references them).
        func commit() throws {
            try batch?.commit()
            if let repaired = batch?.repaired, !repaired.isEmpty {
                storage.lock.lock()
                storage.repaired += repaired
                storage.lock.unlock()
            }
            if !memory.isEmpty {
                storage.lock.lock()
                storage.memory.merge(memory) { a, _ in a }
                storage.lock.unlock()
            }
        }

        /// Releases the write lock (after the SQLite commit).
        func finish() { lock?.unlock() }
    }

    /// Stored blobs found damaged by a save that wrote the same bytes, and rewritten from them.
    private(set) var repaired: [BlobDigest] = []

    /// How many external values were read (tests check that fetches read none).
    private(set) var readCount = 0

    func read(_ digest: BlobDigest) throws -> Data {
        lock.lock()
        readCount += 1
        lock.unlock()
        if let blobs { return try blobs.read(digest, verify: true) }
        lock.lock()
        defer { lock.unlock() }
        guard let data = memory[digest] else { throw BlobStoreError.missing(digest) }
        return data
    }

    /// Removes the digests no row references any more. Runs under the store's exclusive lock so
    /// that no writer commits a new reference to one of them in between; skipped (left to garbage
    /// collection) if the lock is not free within a few seconds.
    func removeUnreferenced(_ candidates: Set<BlobDigest>, isReferenced: (BlobDigest) throws -> Bool) {
        guard !candidates.isEmpty else { return }
        if let blobs {
            _ = try? blobs.remove(candidates, lockTimeout: 5) { try isReferenced($0) }
        } else {
            lock.lock()
            defer { lock.unlock() }
            for digest in candidates where !((try? isReferenced(digest)) ?? true) { memory[digest] = nil }
        }
    }
}

/// An external-storage value not loaded yet: the digest its row holds.
struct ExternalFault {
    let digest: BlobDigest
}
