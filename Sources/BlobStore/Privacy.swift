import Foundation

/// The modes a store creates its folders and files with: only their owner may read them, as
/// ssh, gpg and restic keep theirs, whatever the umask. A store holds people's photos, their
/// places and their notes. (Copies out of a store, `export(_:to:)`, are the caller's files: they
/// follow the umask.)
public enum Privacy {
    /// A folder's mode: 0700.
    public static let folderMode: mode_t = 0o700
    /// A file's mode: 0600.
    public static let fileMode: mode_t = 0o600
    /// The bits that let others in: a folder or file with any of them is not private.
    public static let othersBits: mode_t = 0o077

    /// Makes a folder only its owner can open (mkdir's mode is narrowed by the umask, never
    /// widened, so nothing else is needed); false when it existed already.
    @discardableResult
    public static func makeFolder(_ path: String) throws -> Bool {
        if mkdir(path, folderMode) == 0 { return true }
        if errno == EEXIST { return false }
        throw BlobStoreError.io(path: path, operation: "mkdir", errno: errno)
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
}
