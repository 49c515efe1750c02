import Foundation

/// The modes a store creates its folders and files with: only their owner may read them, as
/// ssh, gpg and restic keep theirs, whatever the umask. A store holds people's photos, their
/// places and their notes. (Copies out of a store, `export(_:to:)`, are the caller's files: they
/// follow the umask.)
///
/// "Whatever the umask" both ways: a folder or file is made and then set to exactly 0700 or 0600
/// through its own descriptor, so a umask of 077 does not widen it and one of 0277 (which would
/// leave a folder its owner cannot enter) does not narrow it.
public enum Privacy {
    /// A folder's mode: 0700.
    public static let folderMode: mode_t = 0o700
    /// A file's mode: 0600.
    public static let fileMode: mode_t = 0o600
    /// The bits that let others in: a folder or file with any of them is not private.
    public static let othersBits: mode_t = 0o077

    /// Makes a folder only its owner can open, mode exactly 0700; false when it existed already
    /// (left as it is). On a file system that keeps no modes (FAT through FUSE: ENOSYS), the mode
    /// is what it gives.
    @discardableResult
    public static func makeFolder(_ path: String) throws -> Bool {
        guard mkdir(path, folderMode) == 0 else {
            if errno == EEXIST { return false }
            throw BlobStoreError.io(path: path, operation: "mkdir", errno: errno)
        }
        // By path: a umask of 0777 leaves the new folder 000, which not even its owner can open.
        _ = chmod(path, folderMode)
        return true
    }

    /// Sets a file just created through `fd` to exactly 0600 (the umask narrowed, or would have
    /// widened, the mode it was made with); where the file system keeps no modes, it is left.
    public static func setFileMode(_ fd: Int32, _ path: String) throws {
        _ = fchmod(fd, fileMode)
    }

    /// Makes `path` and every missing folder above it, each new one only its owner may open (the
    /// XDG base directory rule for a data folder's parents); one that exists is left as it is.
    /// Returns whether `path` itself was made.
    @discardableResult
    public static func makeFolders(_ path: String) throws -> Bool {
        var missing: [String] = []
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        var status = stat()
        while current != "/" && !current.isEmpty && stat(current, &status) != 0 && errno == ENOENT {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() { try makeFolder(folder) }
        if missing.isEmpty { try makeFolder(path) }
        return !missing.isEmpty
    }

    /// What `tighten` did.
    public struct Tightening {
        /// Folders and files whose mode was changed.
        public var changed = 0
        /// The first entry that could not be changed, and why (errno).
        public var failure: (path: String, errno: Int32)?
        /// The first folder or file that belongs to another user (left as it is), and its owner.
        public var foreign: (path: String, uid: uid_t)?
    }

    /// Sets every folder under `path` (itself included) to 0700 and every file to 0600, where it
    /// is not so already and belongs to this user; one that belongs to another user is left and
    /// named (`foreign`). The walk goes through open descriptors only (openat with O_NOFOLLOW,
    /// fstat and fchmod on what was opened): a symbolic link is never followed, and a name swapped
    /// for a link between two steps leads nowhere, so nothing outside the folder is ever changed.
    /// What a folder holds is tightened before the folder itself, so a walk stopped part way leaves
    /// `path` as it was, and the next one starts again. Entries neither folders nor files are left.
    public static func tighten(_ path: String) -> Tightening {
        var result = Tightening()
        let top = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard top >= 0 else {
            result.failure = (path, errno)
            return result
        }
        walk(top, shown: path, into: &result)
        return result
    }

    /// Tightens the folder open at `fd` (which this call closes) and what is in it.
    private static func walk(_ fd: Int32, shown: String, into result: inout Tightening) {
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        guard info.st_uid == geteuid() else {
            if result.foreign == nil { result.foreign = (shown, info.st_uid) }
            return
        }
        // The folder itself last (after what it holds), whatever happens below.
        defer {
            if info.st_mode & 0o777 != folderMode {
                if fchmod(fd, folderMode) == 0 { result.changed += 1 } else if result.failure == nil { result.failure = (shown, errno) }
            }
        }
        // Its owner may have been shut out (an old umask): it must be listable to be walked.
        if info.st_mode & 0o500 != 0o500 { _ = fchmod(fd, info.st_mode & 0o777 | 0o700) }
        // The listing reads its own descriptor: `fd` stays for the openat calls.
        let listing = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0, let dir = fdopendir(listing) else {
            if listing >= 0 { close(listing) }
            return
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            // O_NONBLOCK: a FIFO planted here does not block the open; O_NOFOLLOW: a link fails.
            let child = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard child >= 0 else { continue }
            var childInfo = stat()
            guard fstat(child, &childInfo) == 0 else {
                close(child)
                continue
            }
            switch childInfo.st_mode & S_IFMT {
            case S_IFDIR:
                walk(child, shown: shown + "/" + name, into: &result)
            case S_IFREG:
                if childInfo.st_uid != geteuid() {
                    if result.foreign == nil { result.foreign = (shown + "/" + name, childInfo.st_uid) }
                } else if childInfo.st_mode & 0o777 != fileMode {
                    if fchmod(child, fileMode) == 0 { result.changed += 1 } else if result.failure == nil { result.failure = (shown + "/" + name, errno) }
                }
                close(child)
            default:
                close(child)
            }
        }
    }
}
