import BlobStore
import Foundation

/// A library is private, as ssh, gpg and restic keep theirs: its folder and every folder in it
/// 0700, its files 0600, whatever the umask (the store, its log, the photos, the trash, the lock,
/// `blobs.json`). New ones are made so; one made before (or loosened by hand) is tightened the next
/// time it is opened for writing, and `privacyNote` says so, once.
extension Library {
    /// `library.store` made empty and private, before SQLite opens it: SQLite would make it 0644
    /// less the umask, and its log and shared-memory files take the store's mode. False when it
    /// existed already.
    @discardableResult
    static func makePrivateStore(_ store: URL, exclusive: Bool) throws -> Bool {
        let made = open(store.path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0), Privacy.fileMode)
        guard made >= 0 else {
            if errno == EEXIST && exclusive { throw LibraryError.libraryExists(store.deletingLastPathComponent().path) }
            throw BlobStoreError.io(path: store.path, operation: "create", errno: errno)
        }
        close(made)
        return true
    }

    /// Tightens a library that others can read or enter: when its folder, or a file or folder at
    /// its top (the store and its side files, `blobs.json`, `.library_SUPPORT`), lets others in,
    /// every folder and file under it that this user owns, not through a symbolic link. Returns the
    /// note for the user, or nil when nothing had to change.
    static func makePrivate(_ directory: URL) -> String? {
        let top = [directory.path] + ["library.store", "library.store-wal", "library.store-shm", BlobSettings.fileName, ".library_SUPPORT"]
            .map { directory.appendingPathComponent($0).path }
        var status = stat()
        guard let loose = top.first(where: { lstat($0, &status) == 0 && (status.st_mode & S_IFMT) != S_IFLNK
                                                && status.st_mode & Privacy.othersBits != 0 }) else { return nil }
        _ = lstat(loose, &status)
        let was = String(status.st_mode & 0o777, radix: 8)
        var failed: (path: String, errno: Int32)?
        func tighten(_ path: String) {
            var entry = stat()
            guard lstat(path, &entry) == 0, entry.st_uid == geteuid(), entry.st_mode & Privacy.othersBits != 0 else { return }
            let kind = entry.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return }
            let mode = kind == S_IFDIR ? Privacy.folderMode : Privacy.fileMode
            if chmod(path, mode | (entry.st_mode & 0o700 & ~mode)) != 0, failed == nil { failed = (path, errno) }
        }
        // The folder first: from then on no one else can enter it, whatever the files' modes.
        tighten(directory.path)
        if let walk = FileManager.default.enumerator(atPath: directory.path) {
            while let name = walk.nextObject() as? String { tighten(directory.appendingPathComponent(name).path) }
        }
        if let failed {
            return "the library at \(directory.path) can be read by other users (\(loose): mode \(was)) and could not be made private "
                + "(\(failed.path): \(String(cString: strerror(failed.errno)))); keep it on a file system that keeps permissions, "
                + "or mount this one for you alone (uid=\(geteuid()),umask=077)"
        }
        return "the library at \(directory.path) could be read by other users (\(loose): mode \(was)); it is private now: only you "
            + "can read it (folders 0700, files 0600)"
    }
}
