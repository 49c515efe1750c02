import Foundation

/// An advisory `flock(2)` lock on a file, shared or exclusive, released on `unlock()` or deinit.
///
/// Writers hold it shared from their first `put` until the record that references the blob has
/// committed; a sweep holds it exclusive. So a sweep never runs between a writer's put and its commit.
public final class FileLock {
    /// Shared (many holders at once) or exclusive (one).
    public enum Mode { case shared, exclusive }
    private var fd: Int32
    /// The lock file.
    public let path: String

    /// Blocks until the lock is granted, or throws after `timeout` seconds.
    public init(path: String, mode: Mode, timeout: TimeInterval = 600) throws {
        self.path = path
        // Never through a link (one planted in a loosened store would have this chmod, or create,
        // a file elsewhere), and only a file.
        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, Privacy.fileMode)
        try check(fd, "open lock", path)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw BlobStoreError.io(path: path, operation: "open lock (not a file)", errno: ELOOP)
        }
        // Exactly 0600 whatever the umask (a lock of another user's is left as it is).
        if info.st_uid == geteuid() { _ = fchmod(fd, Privacy.fileMode) }
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX)
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let code = errno
                close(fd)
                throw BlobStoreError.io(path: path, operation: "flock", errno: code)
            }
            if Date() > deadline {
                close(fd)
                throw BlobStoreError.lockTimeout(path: path)
            }
            usleep(2_000)
        }
    }

    /// Releases the lock (closing its descriptor); idempotent.
    public func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
