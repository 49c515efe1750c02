// ExportFolder: an export's destination, held open by descriptor.
//
// DESIGN NOTES: the rules that keep an export inside its folder and its files whole
// ===================================================================================
// (1) The destination is opened once, O_DIRECTORY | O_NOFOLLOW, and that descriptor is held for
//     the whole export. A destination that is a symbolic link is refused. Renaming the folder
//     away, or putting a symbolic link in its place, mid-export changes nothing: every later
//     write is relative to the descriptor, so it lands in the folder that was opened.
// (2) Subfolders (`thumbs`) are made with mkdirat and opened with openat(O_DIRECTORY |
//     O_NOFOLLOW) relative to their parent's descriptor, which is held too. A subfolder that is
//     a symbolic link is refused.
// (3) A file is written under a temporary hidden name (`.NAME.partial-RANDOM`), created with
//     openat(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW), fsync'ed, closed, and only then renamed
//     (renameat2 with RENAME_NOREPLACE, same descriptor) to its final name. So a final name only
//     ever names a complete file, and never replaces one another program put there (two exports
//     into one new folder); on any failure, the temporary file is removed.
// (4) Failures of the destination throw `ExportError.destination` with the errno and the final
//     name, never a library error; errors of the content producer (a corrupt blob) pass through
//     unchanged, after the temporary file was removed.
import BlobStore
import Foundation

/// A folder an export writes into: a held descriptor, and writes that never follow a link or
/// leave a partial file under a final name.
///
/// ```swift
/// let folder = try ExportFolder(creatingEmpty: "/home/me/Rome")
/// try folder.write("manifest.json", data)
/// try folder.sync()
/// ```
final class ExportFolder {
    /// The path the folder was opened at, for messages.
    let path: String
    let fd: Int32

    /// Opens `path` as an empty folder, creating it (and missing parents) if needed.
    /// - Throws: `ExportError.symbolicLink` if it is a symbolic link, `LibraryError.notADirectory`
    ///   if it is something else, `LibraryError.destinationNotEmpty`, `ExportError.destination`.
    convenience init(creatingEmpty path: String) throws {
        try self.init(creating: path)
        guard try entries().allSatisfy(Self.isPartial) else { throw LibraryError.destinationNotEmpty(path) }
    }

    /// Opens `path` as a folder, creating it (and missing parents) if needed, and takes away what
    /// an export killed mid-file left (its hidden partial files).
    /// - Throws: as `init(creatingEmpty:)`, but for a folder that holds files.
    convenience init(creating path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        var found = stat()
        if !parent.isEmpty && stat(parent, &found) != 0 {
            // Only a missing parent is made; one that cannot be reached (a medium gone: ENOTCONN)
            // is said with its own reason.
            guard errno == ENOENT else { throw ExportError.destination(path: parent, operation: "reaching the folder", errno: errno) }
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw ExportError.destination(path: parent, operation: "creating the folder", errno: Self.posixCode(of: error))
            }
        }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw ExportError.destination(path: path, operation: "creating the folder", errno: errno)
        }
        try self.init(opening: path, at: AT_FDCWD, shownAs: path)
        // What an export killed mid-file leaves (its hidden partial file) is taken away.
        for name in try entries() where Self.isPartial(name) { unlinkat(fd, name, 0) }
    }

    /// Opens `name` in `parent`, creating it if needed; a symbolic link is refused.
    convenience init(subfolder name: String, of parent: ExportFolder) throws {
        let shown = parent.path + "/" + name
        if mkdirat(parent.fd, name, 0o755) != 0 && errno != EEXIST {
            throw ExportError.destination(path: shown, operation: "creating the folder", errno: errno)
        }
        try self.init(opening: name, at: parent.fd, shownAs: shown)
    }

    private init(opening name: String, at base: Int32, shownAs shown: String) throws {
        let fd = openat(base, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            var info = stat()
            if code == ELOOP || code == ENOTDIR, fstatat(base, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                if info.st_mode & S_IFMT == S_IFLNK { throw ExportError.symbolicLink(path: shown) }
                if info.st_mode & S_IFMT != S_IFDIR { throw LibraryError.notADirectory(shown) }
            }
            throw ExportError.destination(path: shown, operation: "opening the folder", errno: code)
        }
        self.fd = fd
        self.path = shown
    }

    deinit { close(fd) }

    /// The names in the folder (not "." and "..").
    /// Whether `name` is a file this type writes before renaming it into place (`.NAME.partial-HEX`).
    static func isPartial(_ name: String) -> Bool {
        guard name.hasPrefix("."), let mark = name.range(of: ".partial-", options: .backwards) else { return false }
        let tail = name[mark.upperBound...]
        return !tail.isEmpty && tail.allSatisfy(\.isHexDigit)
    }

    func entries() throws -> [String] {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let dir = fdopendir(copy) else {
            let code = errno
            if copy >= 0 { close(copy) }
            throw ExportError.destination(path: path, operation: "reading the folder", errno: code)
        }
        defer { closedir(dir) }
        rewinddir(dir)  // the copy shares the descriptor's position with every earlier listing
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Writing

    /// Writes `data` as the new file `name`.
    func write(_ name: String, _ data: Data) throws {
        try write(name) { sink in try data.withUnsafeBytes { try sink($0) } }
    }

    /// Writes the new file `name` from what `produce` passes to its sink, chunk by chunk: under a
    /// temporary name, synced, then renamed (rule 3). An error thrown by `produce` is rethrown as is.
    func write(_ name: String, _ produce: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let shown = path + "/" + name
        let temporary = ".\(name).partial-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let file = openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw ExportError.destination(path: shown, operation: "writing", errno: errno) }
        var open = true
        do {
            try produce { bytes in try Self.writeAll(file, bytes, shown) }
            guard fsync(file) == 0 else { throw ExportError.destination(path: shown, operation: "writing", errno: errno) }
            open = false
            guard close(file) == 0 else { throw ExportError.destination(path: shown, operation: "writing", errno: errno) }
            guard Self.renameWithoutReplacing(fd, temporary, name) == 0 else {
                throw ExportError.destination(path: shown, operation: "writing", errno: errno)
            }
        } catch {
            if open { close(file) }
            unlinkat(fd, temporary, 0)
            throw error
        }
    }

    /// renameat(2) that fails with EEXIST instead of replacing a file already at `name`: the
    /// folder was empty when opened, so a file there now was written by another program (two
    /// exports into one new folder each replaced the other's photos). RENAME_NOREPLACE where the
    /// file system has it; elsewhere (it answers EINVAL) a check just before the rename, which
    /// leaves only the instant between the two.
    static func renameWithoutReplacing(_ folder: Int32, _ from: String, _ to: String) -> Int32 {
        if let renameat2 = Self.renameat2 {
            let result = renameat2(folder, from, folder, to, 1 /* RENAME_NOREPLACE */)
            if result == 0 || errno != EINVAL { return result }
        }
        if faccessat(folder, to, F_OK, AT_SYMLINK_NOFOLLOW) == 0 {
            errno = EEXIST
            return -1
        }
        return renameat(folder, from, folder, to)
    }

    /// glibc's renameat2 (2.28 on), looked up by name: the Glibc module does not declare it.
    private static let renameat2 = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map {
        unsafeBitCast($0, to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)
    }

    /// Writes `data` as `name`, replacing the file there (the manifest and the gallery of an
    /// export updated in place): under a temporary name, synced, then renamed over it.
    func replace(_ name: String, _ data: Data) throws {
        let temporary = ".\(name).partial-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        try write(temporary, data)
        guard renameat(fd, temporary, fd, name) == 0 else {
            let code = errno
            unlinkat(fd, temporary, 0)
            throw ExportError.destination(path: path + "/" + name, operation: "writing", errno: code)
        }
    }

    /// The size of the regular file `name` in this folder (not following a link); nil when there
    /// is none, or it is something else.
    func size(of name: String) -> Int? {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Whether `name` in this folder is a folder (not a link to one).
    func isFolder(_ name: String) -> Bool {
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The SHA-256 of the regular file `name` in this folder (not following a link), read in
    /// chunks; nil when it cannot be read.
    func sha256(of name: String) -> String? {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let hasher = SHA256()
        // A file that shrinks while read is a read error: nil, so nothing is decided on it.
        guard (try? forEachChunk(of: file, length: Int64(info.st_size), path + "/" + name, { hasher.update($0) })) != nil else { return nil }
        return hasher.finish().hex
    }

    /// The bytes of the regular file `name` in this folder (not following a link), when it holds
    /// at most `limit`; nil otherwise.
    func read(_ name: String, limit: Int) -> Data? {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
        var data = Data(count: Int(info.st_size))
        guard ImportFile.fill(&data, from: file) == nil else { return nil }
        return data
    }

    /// Deletes the file `name` in this folder (a link itself, never what it points to).
    func remove(_ name: String) throws {
        guard unlinkat(fd, name, 0) == 0 || errno == ENOENT else {
            throw ExportError.destination(path: path + "/" + name, operation: "deleting", errno: errno)
        }
    }

    /// Makes the folder's entries durable (after the renames).
    func sync() throws {
        guard fsync(fd) == 0 else { throw ExportError.destination(path: path, operation: "syncing the folder", errno: errno) }
    }

    static func writeAll(_ file: Int32, _ bytes: UnsafeRawBufferPointer, _ shown: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(file, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.destination(path: shown, operation: "writing", errno: errno)
            }
            offset += n
        }
    }

    /// The errno under a Foundation error, or EIO.
    static func posixCode(of error: Error) -> Int32 {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix = underlying, posix.domain == NSPOSIXErrorDomain { return Int32(posix.code) }
        if (error as NSError).domain == NSPOSIXErrorDomain { return Int32((error as NSError).code) }
        return EIO
    }
}
