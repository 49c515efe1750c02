import Foundation

// Reads. Verifying reads re-hash the content and report corruption instead of returning it.

extension BlobStore {
    /// Whether the blob file exists (not read, not checked).
    public func contains(_ digest: BlobDigest) -> Bool { access(path(for: digest), F_OK) == 0 }

    /// The blob's size in bytes.
    public func size(of digest: BlobDigest) throws -> Int64 {
        var info = stat()
        guard stat(path(for: digest), &info) == 0 else { throw missingOrIO(digest, "stat") }
        return Int64(info.st_size)
    }

    /// The whole blob. With `verify`, its hash is checked and `BlobStoreError.corrupt` thrown on a mismatch.
    public func read(_ digest: BlobDigest, verify: Bool = false) throws -> Data {
        var data = Data()
        try read(digest, verify: verify) { data.append(contentsOf: $0) }
        return data
    }

    /// Streams the blob in chunks of up to 1 MiB (from the trash if it was removed and not yet pruned). With `verify`, the hash is checked after the
    /// last chunk: a corrupt blob throws, after its chunks were delivered, so a caller writing
    /// them somewhere must discard what it wrote (as `export(_:to:)` does).
    public func read(_ digest: BlobDigest, verify: Bool = false, chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        var path = self.path(for: digest)
        var fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            // Removed, and referenced again (a restored database): the trash still has it.
            fd = open(trashPath(for: digest), O_RDONLY | O_CLOEXEC)
            if fd >= 0 { path = trashPath(for: digest) } else { errno = ENOENT }
        }
        guard fd >= 0 else { throw missingOrIO(digest, "open") }
        defer { close(fd) }
        let hasher = verify ? SHA256() : nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw BlobStoreError.io(path: path, operation: "read", errno: errno)
            }
            if n == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher?.update(bytes)
            try chunk(bytes)
        }
        if let hasher {
            let actual = hasher.finish()
            if actual != digest { throw BlobStoreError.corrupt(digest, actual: actual) }
        }
    }

    /// Copies a blob to `destination`, verifying it: the destination appears (by rename) only when
    /// the content matched its digest, so a damaged blob never produces a file.
    public func export(_ digest: BlobDigest, to destination: URL) throws {
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try check(fd, "create", temporary)
        // Closed exactly once: a second close could close a descriptor another thread has
        // opened under the same number since.
        var open = true
        do {
            try read(digest, verify: true) { try writeAll(fd, $0, temporary) }
            try check(fsync(fd), "fsync", temporary)
            open = false
            try check(close(fd), "close", temporary)
            try check(rename(temporary, destination.path), "rename", destination.path)
        } catch {
            if open { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    func missingOrIO(_ digest: BlobDigest, _ operation: String) -> BlobStoreError {
        errno == ENOENT ? .missing(digest) : .io(path: path(for: digest), operation: operation, errno: errno)
    }
}
