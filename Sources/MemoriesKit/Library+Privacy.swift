import BlobStore
import Foundation

/// A library is private, as ssh, gpg and restic keep theirs: its folder and every folder in it
/// 0700, its files 0600, whatever the umask (the store, its log, the photos, the trash, the lock,
/// `blobs.json`). New ones are made so; one made before (or loosened by hand) is tightened the next
/// time it is opened for writing, and `privacyNote` says so, once. A library in a folder, or with
/// a store, that another user owns is refused for writing: that user could read everything put in
/// it, whatever its modes (as ssh refuses a key file another user owns).
extension Library {
    /// `library.store` made empty and private (exactly 0600), before SQLite opens it: SQLite would
    /// make it 0644 less the umask, and its log and shared-memory files take the store's mode.
    static func makePrivateStore(_ store: URL, exclusive: Bool) throws {
        let made = open(store.path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0), Privacy.fileMode)
        guard made >= 0 else {
            if errno == EEXIST && exclusive { throw LibraryError.libraryExists(store.deletingLastPathComponent().path) }
            throw BlobStoreError.io(path: store.path, operation: "create", errno: errno)
        }
        defer { close(made) }
        try Privacy.setFileMode(made, store.path)
    }

    /// The library's folder and what is at its top, as a writing open checks them.
    static func topEntries(_ directory: URL) -> [String] {
        [directory.path] + ["library.store", "library.store-wal", "library.store-shm", BlobSettings.fileName, ".library_SUPPORT"]
            .map { directory.appendingPathComponent($0).path }
    }

    /// Refuses a library whose folder, or any file or folder at its top (followed through links),
    /// belongs to another user.
    static func refuseOtherOwners(_ directory: URL) throws {
        for path in topEntries(directory) {
            var info = stat()
            guard stat(path, &info) == 0, info.st_uid != geteuid() else { continue }
            let name = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
            throw LibraryError.ownedByAnother(path, owner: name, uid: Int(info.st_uid))
        }
    }

    /// Whether a folder or file's mode is not exactly a private one's: others let in, or (made
    /// under an odd umask) its owner shut out of it.
    static func isLoose(_ info: stat) -> Bool {
        let mode = info.st_mode & 0o777
        return (info.st_mode & S_IFMT) == S_IFDIR ? mode != Privacy.folderMode : mode & Privacy.othersBits != 0 || mode & 0o600 != 0o600
    }

    /// Tightens a library whose folder, or a file or folder at its top, is loose (`isLoose`): every
    /// folder and file under it, through open descriptors only (`Privacy.tighten`). Returns the
    /// note for the user, or nil when nothing had to change.
    static func makePrivate(_ directory: URL) throws -> String? {
        var status = stat()
        guard let loose = topEntries(directory).first(where: { lstat($0, &status) == 0 && (status.st_mode & S_IFMT) != S_IFLNK && isLoose(status) })
        else { return nil }
        _ = lstat(loose, &status)
        let was = String(status.st_mode & 0o777, radix: 8)
        let done = Privacy.tighten(directory.path)
        // Another user's folder or file inside: they have been in this library, and may read it still.
        if let (path, uid) = done.foreign {
            let name = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
            throw LibraryError.ownedByAnother(path, owner: name, uid: Int(uid))
        }
        if let failed = done.failure {
            return "the library at \(directory.path) is not private (\(loose): mode \(was)) and could not be made so "
                + "(\(failed.path): \(String(cString: strerror(failed.errno)))); keep it on a file system that keeps permissions, "
                + "or mount this one for you alone (uid=\(geteuid()),umask=077)"
        }
        return "the library at \(directory.path) was not private (\(loose): mode \(was)); it is now: only you can read it "
            + "(folders 0700, files 0600)"
    }
}
