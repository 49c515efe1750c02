import Foundation

// Writes: temp file, hash while copying, sync, link into place, sync the directory.
// The rules are in the design notes at the top of BlobStore.swift.

extension BlobStore {
    /// What a put did.
    public struct PutResult: Equatable, Sendable {
        /// The blob's name.
        public let digest: BlobDigest
        /// Its size in bytes.
        public let size: Int64
        /// False when the blob was already stored (nothing was rewritten).
        public let isNew: Bool

        package init(digest: BlobDigest, size: Int64, isNew: Bool) {
            (self.digest, self.size, self.isNew) = (digest, size, isNew)
        }
    }

    /// Stores `data`; durable when it returns.
    @discardableResult
    public func put(_ data: Data) throws -> PutResult {
        let batch = BlobBatch(store: self)
        let result = try batch.put(data)
        try batch.commit()
        return result
    }

    /// Stores a file's content, streaming (never holding the whole file); durable when it returns.
    @discardableResult
    public func put(contentsOf file: URL) throws -> PutResult {
        let batch = BlobBatch(store: self)
        let result = try batch.put(contentsOf: file)
        try batch.commit()
        return result
    }

    /// A temp file in ROOT/tmp, open for writing.
    func makeTemporaryFile() throws -> (fd: Int32, path: String) {
        try refuseIfReadOnly()
        let path = "\(tmpPath)/\(UUID().uuidString).part"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Privacy.fileMode)
        try check(fd, "create", path)
        do {
            try Privacy.setFileMode(fd, path)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        CrashPoint.reach(.tempCreated)
        return (fd, path)
    }

    enum Published { case new, duplicate, repaired }

    /// Publishes a complete, synced temp file under its digest (rule 2). A name already taken is
    /// a duplicate hit: the stored file is checked (size, then hash) and replaced from the temp
    /// file when it is damaged (rule 7).
    func publish(temporary path: String, as digest: BlobDigest, createdDirectories: inout Set<String>) throws -> Published {
        let directory = self.directory(for: digest)
        if try Privacy.makeFolder(directory) { createdDirectories.insert(directory) }
        let final = self.path(for: digest)
        if link(path, final) == 0 {
            CrashPoint.reach(.linked)
            unlink(path)
            CrashPoint.reach(.tempUnlinked)
            return .new
        }
        let code = errno
        guard code == EEXIST else {
            unlink(path)
            throw BlobStoreError.io(path: final, operation: "link", errno: code)
        }
        var info = stat()
        if stat(path, &info) == 0, isIntact(digest, size: Int64(info.st_size)) {
            unlink(path)
            touch(final)
            return .duplicate
        }
        // The stored copy is damaged: the new bytes hash to the name, so they take its place.
        guard rename(path, final) == 0 else {
            let code = errno
            unlink(path)
            throw BlobStoreError.io(path: final, operation: "repair", errno: code)
        }
        return .repaired
    }

    /// Whether the stored blob has `size` bytes and hashes to its name.
    func isIntact(_ digest: BlobDigest, size: Int64) -> Bool {
        var info = stat()
        guard stat(path(for: digest), &info) == 0, Int64(info.st_size) == size else { return false }
        do {
            try read(digest, verify: true) { _ in }
            return true
        } catch {
            return false
        }
    }

    /// Refreshes a blob's mtime so that a sweep's grace period protects it.
    func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }
}

/// Several puts made durable together: at `commit()` the data of every put is synced at once
/// (one `syncfs(2)` for a batch of more than a few files, else one `fdatasync` each), then the
/// blobs are published, then each touched directory is synced once.
///
/// Blobs are visible under their names only after `commit()`; commit the SQLite transaction that
/// references them after it returns. Temp files of a batch that is never committed are swept.
public final class BlobBatch {
    let store: BlobStore
    private var pending: [(path: String, digest: BlobDigest)] = []
    private let lock = NSLock()
    private static let chunkSize = 1 << 20
    /// Below this, hashing on a second thread costs more than it saves.
    private static let parallelHashThreshold = 64 << 10

    /// Stored blobs that were found damaged by a duplicate put and rewritten from its bytes.
    public private(set) var repaired: [BlobDigest] = []

    /// A batch on `store`; nothing is visible until `commit()`.
    public init(store: BlobStore) { self.store = store }

    deinit {
        for item in pending { unlink(item.path) }
        for buffers in spareBuffers { buffers.deallocate() }
    }

    /// Copy buffers are reused across the batch's puts: a fresh 2 MB allocation per put costs
    /// 512 page faults.
    private var spareBuffers: [UnsafeMutableRawBufferPointer] = []

    private func takeBuffers() -> UnsafeMutableRawBufferPointer {
        lock.lock()
        defer { lock.unlock() }
        return spareBuffers.popLast() ?? .allocate(byteCount: 2 * Self.chunkSize, alignment: 4096)
    }

    private func giveBack(_ buffers: UnsafeMutableRawBufferPointer) {
        lock.lock()
        spareBuffers.append(buffers)
        lock.unlock()
    }

    /// Writes `data` to a temp file and hashes it. Thread-safe: several threads may put into one batch.
    /// With `digest`, the caller's SHA-256 of these very bytes, they are not hashed again.
    /// If a blob of that name is stored already, the bytes are hashed all the same: a wrong digest
    /// would otherwise make these bytes vanish behind another blob's name.
    public func put(_ data: Data, digest given: BlobDigest? = nil) throws -> BlobStore.PutResult {
        var known = given
        if let name = given, access(store.path(for: name), F_OK) == 0 {
            let actual = SHA256.digest(data)
            guard actual == name else { throw BlobStoreError.corrupt(name, actual: actual) }
            known = actual
        }
        let (fd, path) = try store.makeTemporaryFile()
        let hasher = SHA256()
        do {
            try data.withUnsafeBytes { raw in
                if known != nil { return try writeAll(fd, raw, path) }
                try hashing(raw, with: hasher) { try writeAll(fd, raw, path) }
            }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        return try enqueue(path: path, fd: fd, digest: known ?? hasher.finish(), size: Int64(data.count))
    }

    /// Streams a file into a temp file, hashing as it copies: each chunk is hashed on a second
    /// thread while this one writes it and reads the next. Thread-safe.
    public func put(contentsOf file: URL) throws -> BlobStore.PutResult {
        let source = open(file.path, O_RDONLY | O_CLOEXEC)
        try check(source, "open", file.path)
        defer { close(source) }
        let (fd, path) = try store.makeTemporaryFile()
        let hasher = SHA256()
        var size: Int64 = 0
        let buffers = takeBuffers()
        defer { giveBack(buffers) }
        var current = UnsafeMutableRawBufferPointer(rebasing: buffers[0..<Self.chunkSize])
        var next = UnsafeMutableRawBufferPointer(rebasing: buffers[Self.chunkSize...])
        do {
            var count = try readChunk(source, into: current, file.path)
            while count > 0 {
                let chunk = UnsafeRawBufferPointer(rebasing: current[0..<count])
                var nextCount = 0
                try hashing(chunk, with: hasher) {
                    try writeAll(fd, chunk, path)
                    nextCount = try readChunk(source, into: next, file.path)
                }
                size += Int64(count)
                swap(&current, &next)
                count = nextCount
            }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        return try enqueue(path: path, fd: fd, digest: hasher.finish(), size: size)
    }

    /// Hashes `bytes` on a second thread while `body` runs on this one (SHA-256 and copying take
    /// about the same time, so a put takes the time of one of them, not both). Returns when both are done.
    private func hashing(_ bytes: UnsafeRawBufferPointer, with hasher: SHA256, while body: () throws -> Void) throws {
        guard bytes.count >= Self.parallelHashThreshold else {
            hasher.update(bytes)
            return try body()
        }
        // The bytes stay valid and unchanged until `done.wait()` below.
        struct Chunk: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }
        let chunk = Chunk(bytes: bytes)
        let done = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: done) { hasher.update(chunk.bytes) }
        defer { done.wait() }
        try body()
    }

    private func enqueue(path: String, fd: Int32, digest: BlobDigest, size: Int64) throws -> BlobStore.PutResult {
        CrashPoint.reach(.tempWritten)
        // Start writing the data back now, so that commit's sync mostly finds it done.
        _ = syncFileRange(fd, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */)
        close(fd)
        let exists = access(store.path(for: digest), F_OK) == 0
        lock.lock()
        pending.append((path, digest))
        lock.unlock()
        return BlobStore.PutResult(digest: digest, size: size, isNew: !exists)
    }

    /// Publishes every put under its digest and syncs the directories once.
    public func commit() throws {
        lock.lock()
        let items = pending
        pending = []
        lock.unlock()
        guard !items.isEmpty else { return }
        do {
            try syncData(items.map(\.path))
        } catch {
            for item in items { unlink(item.path) }
            throw error
        }
        CrashPoint.reach(.tempSynced)
        var created = Set<String>()
        var touched = Set<String>()
        do {
            for (index, item) in items.enumerated() {
                do {
                    if try store.publish(temporary: item.path, as: item.digest, createdDirectories: &created) == .repaired {
                        lock.lock()
                        repaired.append(item.digest)
                        lock.unlock()
                    }
                    touched.insert(store.directory(for: item.digest))
                } catch {
                    for rest in items[(index + 1)...] { unlink(rest.path) }
                    throw error
                }
            }
        }
        // Rule 3: names durable before the caller commits its references. Many directories are
        // synced with one syncfs (a new store's first batch touches up to 256 fan-out folders).
        if touched.count + created.count > 4 {
            try syncFileSystem(of: store.blobsPath)
        } else {
            if !created.isEmpty { try BlobStore.sync(path: store.blobsPath) }
            for directory in touched.sorted() { try BlobStore.sync(path: directory) }
        }
        CrashPoint.reach(.directorySynced)
    }

    /// Rule 1: the data is durable before any temp file gets its final name.
    private func syncData(_ paths: [String]) throws {
        if paths.count > 4 { return try syncFileSystem(of: store.tmpPath) }
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            try check(fd, "open", path)
            defer { close(fd) }
            try check(fdatasync(fd), "fdatasync", path)
        }
    }

}

/// syncfs(2) of the file system holding `path`: all its data and metadata.
func syncFileSystem(of path: String) throws {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try check(fd, "open", path)
    defer { close(fd) }
    try check(syncfs(fd), "syncfs", path)
}

/// syncfs(2): Glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not set.
@_silgen_name("syncfs")
func syncfs(_ fd: Int32) -> Int32

/// Reads up to `buffer.count` bytes (fewer only at the end of the file), retrying EINTR.
func readChunk(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ path: String) throws -> Int {
    var filled = 0
    while filled < buffer.count {
        let n = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
        if n < 0 {
            if errno == EINTR { continue }
            throw BlobStoreError.io(path: path, operation: "read", errno: errno)
        }
        if n == 0 { break }
        filled += n
    }
    return filled
}

/// Gives `length` bytes of `fd` from `offset` to `body`, a MiB at a time, read with pread (the
/// file's position is neither used nor moved), retrying EINTR; a file that ends before them is
/// an I/O error on `path`.
package func forEachChunk(of fd: Int32, offset: Int64 = 0, length: Int64, _ path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var done: Int64 = 0
    while done < length {
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, Int(length - done)), off_t(offset + done)) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw BlobStoreError.io(path: path, operation: "read", errno: n < 0 ? errno : EIO) }
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        done += Int64(n)
    }
}

/// sync_file_range(2), declared only under _GNU_SOURCE like syncfs.
@_silgen_name("sync_file_range")
func syncFileRange(_ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ path: String) throws {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            throw BlobStoreError.io(path: path, operation: "write", errno: errno)
        }
        offset += n
    }
}

extension BlobStore {
    /// What `ensure(_:from:)` found.
    public enum EnsureOutcome: Equatable, Sendable {
        /// The stored blob was whole.
        case intact
        /// It was damaged, and rewritten.
        case repaired
        /// It was missing (or only in the trash), and written.
        case restored
    }

    /// Checks the stored blob `digest` (size, then hash) against bytes that hash to it, and
    /// rewrites it from them when it is damaged or missing. Throws `corrupt` if `data` does not
    /// hash to `digest`.
    public func ensure(_ digest: BlobDigest, from data: Data) throws -> EnsureOutcome {
        if isIntact(digest, size: Int64(data.count)) { return .intact }
        let existed = access(path(for: digest), F_OK) == 0
        let batch = BlobBatch(store: self)
        let result = try batch.put(data)
        guard result.digest == digest else { throw BlobStoreError.corrupt(digest, actual: result.digest) }
        try batch.commit()
        return existed ? .repaired : .restored
    }
}
