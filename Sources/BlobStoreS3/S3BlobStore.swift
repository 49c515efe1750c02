// S3BlobStore: the content-addressed store kept as objects in an S3 bucket, under the same rules
// as the local BlobStore (its design notes (1)–(8), at the top of BlobStore.swift), mapped onto S3:
//
// Layout under the location's prefix: sha256/ab/abcdef… (as on disk), trash/abcdef… for removed
// blobs, owner for the identity of the database that owns the store. See docs/storage-format.md.
//
// (1) A key only ever names complete content: an S3 PUT is atomic (an object appears only once all
//     of it is stored), so there is no temp name.
// (2) A key never changes content: a put first HEADs the key; an object of the right size whose
//     ETag is the bytes' (their MD5 for one part; for parts of the client's part size, the MD5 of
//     the parts' MD5s and "-N", computed here in the same pass as the SHA-256) is a duplicate hit and
//     nothing is uploaded; one whose size or ETag differs is damaged and is replaced by the upload,
//     as the local store replaces a damaged file (note 7). (A hit on an object older than half the grace period
//     is copied onto itself, server side, so its time is fresh for the sweep's grace period, as the
//     local store refreshes a duplicate's mtime.)
// (3) Durable before `put` returns: the PUT carries the bytes' SHA-256 (`x-amz-content-sha256`) and
//     the service refuses the upload unless what it stored hashes to it; its 200 with an ETag that is
//     the bytes' MD5 is the confirmation (a 200 without one is retried, then a failure).
// (7') A download that does not hash to its name is read again: only two that agree on the same
//     wrong bytes make the object damaged (`verified`).
// (4) The caller commits the SQLite transaction that references a blob only after (3).
// (5) Removing moves: a server-side copy to trash/<hex> (its time, the time of removal) and then
//     the delete of the original; a sweep deletes trashed objects after the trash grace period, and
//     first takes back every referenced one. A read of a missing blob looks in the trash.
// (6) The lock is the library's local lock file, as for the local store: writers hold it shared
//     from their first put until their commit, a sweep exclusive. (Two machines sharing one bucket
//     through two libraries are not supported: the lock does not reach across them.)
// (7) Nothing trusts a name: reads re-hash what they download; `verify` re-hashes every object.
// (8) The owner object holds the identity of the database; sweeps compare before deciding.
import BlobStore
import Foundation

/// A content-addressed blob store in an S3-compatible bucket, with the local store's guarantees.
///
/// ```swift
/// let store = try S3BlobStore(client: s3, lockDirectory: supportFolder)
/// let put = try store.put(data)
/// let back = try store.read(put.digest)      // re-hashed
/// ```
public final class S3BlobStore: @unchecked Sendable {
    /// The client on the bucket and prefix.
    public let client: S3Client
    let lockPath: String

    /// A store on `client`'s location, locked through `lockDirectory/lock` (a local folder).
    public init(client: S3Client, lockDirectory: URL) throws {
        self.client = client
        // A read-only library's folder may not be writable: the lock is then only taken where a
        // writer would need it, and fails there.
        _ = try? Privacy.makeFolders(lockDirectory.path)
        lockPath = lockDirectory.appendingPathComponent("lock").path
    }

    /// The key of a blob (below the location's prefix).
    public static func key(for digest: BlobDigest) -> String { "sha256/\(digest.prefix)/\(digest.hex)" }
    static func trashKey(for digest: BlobDigest) -> String { "trash/\(digest.hex)" }

    /// The lock that writers hold shared from their first put until they commit (design note 6).
    public func writeLock(timeout: TimeInterval = 600) throws -> FileLock {
        try FileLock(path: lockPath, mode: .shared, timeout: timeout)
    }

    // MARK: Writing

    /// Stores `data` (hashed here), unless an object of its size is there already.
    @discardableResult
    public func put(_ data: Data, digest known: BlobDigest? = nil, gracePeriod: TimeInterval = 3600) throws -> BlobStore.PutResult {
        let digest = known ?? SHA256.digest(data)
        if try isStored(digest, size: Int64(data.count), etags: ETagHasher.etags(of: data, partSize: client.partSize), gracePeriod: gracePeriod) {
            return BlobStore.PutResult(digest: digest, size: Int64(data.count), isNew: false)
        }
        try client.put(Self.key(for: digest), data: data, sha256: digest)
        return BlobStore.PutResult(digest: digest, size: Int64(data.count), isNew: true)
    }

    /// Stores the file at `url`, streamed (hashed in one pass over it first, then uploaded with the digest).
    @discardableResult
    public func put(contentsOf url: URL, gracePeriod: TimeInterval = 3600) throws -> BlobStore.PutResult {
        let (digest, size, etags) = try Self.hash(file: url.path, partSize: client.partSize)
        if try isStored(digest, size: size, etags: etags, gracePeriod: gracePeriod) {
            return BlobStore.PutResult(digest: digest, size: size, isNew: false)
        }
        try client.put(Self.key(for: digest), file: url.path, sha256: digest, md5: etags.single)
        if size > client.multipartThreshold {
            // The service checked each part's SHA-256, not the whole: the object's ETag must be
            // the one these bytes in these parts give.
            let stored = try client.head(Self.key(for: digest))
            guard let stored, stored.size == size, ETagHasher.matches(stored.etag, etags) else {
                throw BlobStoreError.corrupt(digest, actual: digest)
            }
        }
        return BlobStore.PutResult(digest: digest, size: size, isNew: true)
    }

    /// A duplicate hit (design note 2): the object exists with this size and, when its ETag is a
    /// single part's, with this MD5. Anything else is damaged and is replaced; an old hit has its
    /// time refreshed.
    private func isStored(_ digest: BlobDigest, size: Int64, etags: (single: String, multipart: String),
                          gracePeriod: TimeInterval) throws -> Bool {
        let key = Self.key(for: digest)
        guard let object = try client.head(key), object.size == size, ETagHasher.matches(object.etag, etags) else { return false }
        if let time = object.lastModified, Date().timeIntervalSince(time) > gracePeriod / 2 {
            try client.copy(from: key, to: key)
        }
        return true
    }

    // MARK: Reading

    /// Whether the blob is stored (not counting the trash).
    public func contains(_ digest: BlobDigest) throws -> Bool { try client.head(Self.key(for: digest)) != nil }

    /// The blob's bytes, re-hashed; from the trash if it is only there. Throws
    /// `BlobStoreError.missing`, or `.corrupt` when two downloads agree on bytes that are not the
    /// blob's (see `verified`).
    public func read(_ digest: BlobDigest) throws -> Data {
        try verified(digest) {
            let data = try get(digest) { try client.get($0) }
            return (data, SHA256.digest(data))
        }
    }

    /// Streams the blob in chunks (from the trash if it is only there), re-hashed before any chunk
    /// is given: it is downloaded into an unnamed file beside the lock first (a body cut short is
    /// downloaded again by the client; bytes that do not hash right, by `verified`), then read
    /// from there. So `chunk` sees only bytes that hash to the digest, once.
    public func read(_ digest: BlobDigest, chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = try Self.unnamedFile(in: (lockPath as NSString).deletingLastPathComponent)
        defer { close(fd) }
        let size = try verified(digest) { () -> (Int64, BlobDigest) in
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw BlobStoreError.io(path: lockPath, operation: "truncate", errno: errno) }
            let written = try get(digest) { try client.get($0, into: fd) }
            return (written, try Self.hash(fd: fd, size: written))
        }
        try forEachChunk(of: fd, length: size, "the download of \(digest.hex)", chunk)
    }

    /// `download` until its bytes hash to `digest`, at most `client.retries + 1` times: bytes
    /// corrupted on their way (a flaky network or proxy) are read again before anything is called
    /// damaged. Two downloads that agree on other bytes are damage in the bucket (`.corrupt`); if
    /// no two agree, the connection is corrupting data (`S3Error.network`).
    func verified<T>(_ digest: BlobDigest, _ download: () throws -> (T, BlobDigest)) throws -> T {
        var wrong = Set<BlobDigest>()
        for _ in 0...client.retries {
            let (value, actual) = try download()
            if actual == digest { return value }
            if !wrong.insert(actual).inserted { throw BlobStoreError.corrupt(digest, actual: actual) }
        }
        throw S3Error.network("each of \(wrong.count) downloads of \(Self.key(for: digest)) arrived with different bytes, none of them the photo's: "
                              + "the connection to the service is corrupting data", request: "GET \(client.location.objectKey(Self.key(for: digest)))")
    }

    /// `fetch` of the blob's key, or of its key in the trash when only the trash holds it.
    private func get<T>(_ digest: BlobDigest, _ fetch: (String) throws -> T) throws -> T {
        do {
            return try fetch(Self.key(for: digest))
        } catch let error as S3Error where error.isMissingObject {
            do {
                return try fetch(Self.trashKey(for: digest))
            } catch let error as S3Error where error.isMissingObject {
                throw BlobStoreError.missing(digest)
            }
        }
    }

    /// A file with no name in `folder` (O_TMPFILE; where the file system lacks it, one made and
    /// unlinked at once), private to this user, gone when closed.
    static func unnamedFile(in folder: String) throws -> Int32 {
        // O_TMPFILE (Linux's __O_TMPFILE with O_DIRECTORY), which Glibc's module does not export.
        let fd = open(folder, O_RDWR | O_DIRECTORY | 0o20000000 | O_CLOEXEC, Privacy.fileMode)
        if fd >= 0 { return fd }
        var template = Array("\(folder)/.download-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { throw BlobStoreError.io(path: folder, operation: "create a download file", errno: errno) }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return made
    }

    /// The SHA-256 of the first `size` bytes of `fd`.
    static func hash(fd: Int32, size: Int64) throws -> BlobDigest {
        let hasher = SHA256()
        try forEachChunk(of: fd, length: size, "a download") { hasher.update($0) }
        return hasher.finish()
    }

    /// Checks the stored object against `data` (size and ETag) and uploads `data` when the object
    /// is missing or differs. Throws `.corrupt` if `data` does not hash to `digest`.
    public func ensure(_ digest: BlobDigest, from data: Data) throws -> BlobStore.EnsureOutcome {
        let actual = SHA256.digest(data)
        guard actual == digest else { throw BlobStoreError.corrupt(digest, actual: actual) }
        let existing = try client.head(Self.key(for: digest))
        if let existing, existing.size == Int64(data.count), ETagHasher.matches(existing.etag, ETagHasher.etags(of: data, partSize: client.partSize)) {
            return .intact
        }
        try client.put(Self.key(for: digest), data: data, sha256: digest)
        return existing == nil ? .restored : .repaired
    }

    /// Copies the blob to `destination`, streamed; the file appears under its name only when
    /// what arrived hashes to the digest.
    public func export(_ digest: BlobDigest, to destination: URL) throws {
        let partial = destination.path + ".part-\(getpid())"
        let fd = open(partial, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BlobStoreError.io(path: partial, operation: "create", errno: errno) }
        var published = false
        defer {
            close(fd)
            if !published { unlink(partial) }
        }
        // Only in the trash (removed, not yet pruned): exported from there, as a read would; bytes
        // that arrive wrong are downloaded again before the blob is called damaged.
        try verified(digest) { () -> (Void, BlobDigest) in
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw BlobStoreError.io(path: partial, operation: "truncate", errno: errno) }
            let written = try get(digest) { try client.get($0, into: fd) }
            return ((), try Self.hash(fd: fd, size: written))
        }
        guard fsync(fd) == 0, rename(partial, destination.path) == 0 else {
            throw BlobStoreError.io(path: destination.path, operation: "publish", errno: errno)
        }
        published = true
    }

    // MARK: Removing

    /// Moves a blob to the trash (design note 5): a server-side copy, then the delete.
    public func moveToTrash(_ digest: BlobDigest) throws {
        let key = Self.key(for: digest)
        do {
            try client.copy(from: key, to: Self.trashKey(for: digest))
        } catch let error as S3Error where error.isMissingObject {
            return  // not there: nothing to move
        }
        try client.delete(key)
    }

    /// Takes a blob back from the trash; false when the trash does not hold it.
    @discardableResult
    public func restoreFromTrash(_ digest: BlobDigest) throws -> Bool {
        let trashed = Self.trashKey(for: digest)
        guard try client.head(trashed) != nil else { return false }
        if try client.head(Self.key(for: digest)) == nil { try client.copy(from: trashed, to: Self.key(for: digest)) }
        try client.delete(trashed)
        return true
    }

    /// Garbage collection with the local store's three steps and rules (`BlobStore.sweep`), under
    /// the exclusive lock: referenced blobs back from the trash; unreferenced ones older than
    /// `gracePeriod` to the trash; trashed ones older than `trashGracePeriod` (or all, with
    /// `pruneNow`) deleted. `referenced` must throw rather than return a set it is unsure of.
    ///
    /// The S3 form of a local store's temp files: multipart uploads of blob keys begun more than
    /// `uploadGracePeriod` ago (a day: a slow upload of a large file may run for hours) and never
    /// completed, left by a process that was killed or lost its network mid-upload, are aborted
    /// (`tempFilesRemoved`). Their parts are stored and billed but belong to no object, so nothing
    /// referenced can be among them; aborting one still running fails the save that made it (a
    /// day-old upload: a process suspended that long). Uploads of other keys (another tool's, in a
    /// bucket shared without a prefix) are left alone. This step is a clean-up: a service that does
    /// not list uploads (no permission, not implemented) leaves a warning, not a failed sweep.
    public func sweep(gracePeriod: TimeInterval = 3600, trashGracePeriod: TimeInterval = 7 * 86400, pruneNow: Bool = false,
                      dryRun: Bool = false, lockTimeout: TimeInterval = 600, uploadGracePeriod: TimeInterval = 86400,
                      referenced: () throws -> Set<BlobDigest>) throws -> BlobStore.SweepReport {
        let lock = try FileLock(path: lockPath, mode: .exclusive, timeout: lockTimeout)
        defer { lock.unlock() }
        let keep = try referenced()
        let now = Date()
        var report = BlobStore.SweepReport(dryRun: dryRun)
        var trashed: [(BlobDigest, S3Object)] = []
        // What the trash will hold: a dry run reports it worked out from what it would do.
        var left = BlobStore.TrashSummary()
        for object in try client.list(prefix: "trash/") {
            left.count += 1
            left.bytes += object.size
            guard let digest = BlobDigest(exactHex: object.key.dropFirst("trash/".count)) else { continue }
            if keep.contains(digest) {
                report.restoredBlobs += 1
                left.count -= 1
                left.bytes -= object.size
                if !dryRun { try restoreFromTrash(digest) }
            } else {
                trashed.append((digest, object))
            }
        }
        var moved: [BlobDigest] = []
        for object in try client.list(prefix: "sha256/") {
            // Stray keys (not a blob name in its folder) are reported by verify, never removed.
            guard let digest = BlobDigest(exactHex: object.key.split(separator: "/").last ?? ""),
                  object.key == Self.key(for: digest), !keep.contains(digest) else { continue }
            guard let time = object.lastModified, now.timeIntervalSince(time) > gracePeriod else {
                report.keptYoung += 1
                continue
            }
            report.orphanBlobs += 1
            report.orphanBytes += object.size
            left.count += 1
            left.bytes += object.size
            moved.append(digest)
        }
        if !dryRun { for digest in moved { try moveToTrash(digest) } }
        report.orphans = moved.sorted()
        for (digest, object) in trashed {
            let old = object.lastModified.map { now.timeIntervalSince($0) > trashGracePeriod } ?? false
            guard pruneNow || old else { continue }
            if !dryRun { try client.delete(Self.trashKey(for: digest)) }
            report.prunedBlobs += 1
            report.bytesFreed += object.size
            left.count -= 1
            left.bytes -= object.size
        }
        do {
            for upload in try client.unfinishedUploads(prefix: "sha256/") {
                guard let digest = BlobDigest(exactHex: upload.key.split(separator: "/").last ?? ""), upload.key == Self.key(for: digest),
                      let begun = upload.initiated, now.timeIntervalSince(begun) > uploadGracePeriod else { continue }
                report.tempFilesRemoved += 1
                if !dryRun { try client.abort(upload) }
            }
        } catch {
            report.warnings.append("unfinished uploads were not cleaned up (\(error)); the rest of the sweep is done")
        }
        report.trash = dryRun ? left : try trashSummary()
        return report
    }

    /// What the trash holds.
    public func trashSummary() throws -> BlobStore.TrashSummary {
        var summary = BlobStore.TrashSummary()
        for object in try client.list(prefix: "trash/") {
            summary.count += 1
            summary.bytes += object.size
        }
        return summary
    }

    // MARK: Verifying

    /// Lists every object and re-hashes them on `jobs` threads (with `quick`, only lists: nothing is
    /// downloaded, `checked` stays 0), and reports what `expected` names but the bucket lacks.
    public func verify(expected: (() throws -> Set<BlobDigest>)? = nil, jobs: Int = 4, quick: Bool = false,
                       progress: ((Int, Int, Int64) -> Void)? = nil) throws -> BlobStore.VerifyReport {
        var report = BlobStore.VerifyReport()
        let lock = try FileLock(path: lockPath, mode: .shared)
        let wanted = try expected?()
        let objects = try client.list(prefix: "sha256/")
        let trash = try client.list(prefix: "trash/")
        lock.unlock()
        var blobs: [(BlobDigest, S3Object)] = []
        for object in objects {
            if let digest = BlobDigest(exactHex: object.key.split(separator: "/").last ?? ""), object.key == Self.key(for: digest) {
                blobs.append((digest, object))
            } else {
                report.stray.append(object.key)
            }
        }
        let present = Set(blobs.map(\.0))
        if let wanted {
            report.missing = wanted.subtracting(present).sorted()
            report.unexpected = present.subtracting(wanted).sorted()
            let trashed = Set(trash.compactMap { BlobDigest(exactHex: $0.key.dropFirst("trash/".count)) })
            report.inTrash = report.missing.filter(trashed.contains)
        }
        report.trash = BlobStore.TrashSummary(count: trash.count, bytes: trash.reduce(0) { $0 + $1.size })
        // Quick: what the listing shows (every expected blob present), nothing downloaded.
        if quick {
            // Nothing is downloaded, but an emptied object is seen from the listing's sizes.
            report.corrupt = blobs.filter { $0.1.size == 0 && $0.0 != BlobStore.emptyDigest }.map(\.0).sorted()
            return report
        }
        let lockResults = NSLock()
        var corrupt: [BlobDigest] = []
        var done = 0
        var bytes: Int64 = 0
        try concurrentForEach(blobs.count, jobs: jobs) { i in
            let (digest, object) = blobs[i]
            // Streamed and hashed as it comes: no object is held whole in memory. A stream cut off
            // part way is not retried by the client (its bytes were handed over), so it is read
            // again here from the start, with a new hasher; so is one whose bytes hash wrong, until
            // two downloads agree on the same wrong bytes (damage in the bucket, as `verified`).
            var size: Int64 = 0
            var attempt = 0
            var wrong = Set<BlobDigest>()
            var ok = false
            while true {
                let hasher = SHA256()
                size = 0
                do {
                    try client.get(object.key) { chunk in
                        hasher.update(chunk)
                        size += Int64(chunk.count)
                    }
                } catch let error as S3Error where error.isMissingObject {
                    return  // removed since the listing (a sweep): by then nothing referenced it
                } catch S3Error.network where attempt < client.retries {
                    attempt += 1
                    usleep(useconds_t(200_000 << attempt))
                    continue
                }
                let actual = hasher.finish()
                ok = actual == digest
                if ok || !wrong.insert(actual).inserted || attempt >= client.retries { break }
                attempt += 1
            }
            lockResults.lock()
            defer { lockResults.unlock() }
            if !ok { corrupt.append(digest) }
            done += 1
            bytes += size
            progress?(done, blobs.count, bytes)
        }
        report.checked = done
        report.bytesChecked = bytes
        report.corrupt = corrupt.sorted()
        return report
    }

    // MARK: Owner

    /// The identity in the owner object, nil when there is none.
    public func owner() throws -> String? {
        try record("owner").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The one-line text of the record object `key` (owner, moved), nil when there is none.
    func record(_ key: String) throws -> String? {
        do {
            return String(decoding: try client.get(key), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch let error as S3Error where error.isMissingObject {
            return nil
        }
    }

    /// Records `identity` as the owner unless an owner is recorded already (a conditional PUT,
    /// `If-None-Match: *`): then it must be `identity` (a retried PUT whose answer was lost), or
    /// this throws `BlobStoreError.ownedByAnother` (two libraries claiming one prefix at once: one wins).
    public func setOwner(_ identity: String) throws {
        let record = Data((identity + "\n").utf8)
        if try client.create("owner", data: record) { return }
        guard let owner = try owner() else {
            // An owner object that is there but empty (damaged) names nobody: replaced.
            return try client.put("owner", data: record)
        }
        if owner != identity { throw BlobStoreError.ownedByAnother(place: locationDescription, owner: owner) }
    }

    /// Deletes the owner object if it names `identity` and no blob is stored. Returns whether it went.
    @discardableResult
    public func releaseOwner(_ identity: String) throws -> Bool {
        guard try owner() == identity, try !hasBlobs() else { return false }
        try client.delete("owner")
        return true
    }

    // MARK: Helpers

    /// The SHA-256, size and possible ETags of a file, read once.
    static func hash(file path: String, partSize: Int64 = 16 << 20) throws -> (digest: BlobDigest, size: Int64, etags: (single: String, multipart: String)) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStoreError.io(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        let hasher = SHA256(), md5 = ETagHasher(partSize: partSize)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var size: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw BlobStoreError.io(path: path, operation: "read", errno: errno) }
            if n == 0 { break }
            buffer.withUnsafeBytes {
                hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n]))
                md5.update(UnsafeRawBufferPointer(rebasing: $0[0..<n]))
            }
            size += Int64(n)
        }
        return (hasher.finish(), size, md5.finish())
    }
}
