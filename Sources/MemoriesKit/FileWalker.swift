import Foundation
import Imaging

/// Lists the files under the import's inputs with opendir/readdir on raw byte paths, so names
/// with newlines or invalid UTF-8 are read as they are. Symbolic links to files are followed;
/// links to folders are not (no loops); hidden entries (".…") are skipped.
struct FileWalker {
    struct Entry {
        /// The path as bytes, for open(2).
        var path: [CChar]
        /// The walk found a symbolic link here (to a file), so opening it follows one link.
        var isSymbolicLink = false
        /// The path for people (invalid UTF-8 shown as U+FFFD).
        var display: String
        var name: String
        /// The size the walk saw (the file is checked again when it is read); batches are bounded by it.
        var size: Int64 { identity.size }
        /// What the walk's stat saw (of the file a link leads to, for a link).
        var identity: FileIdentity
        /// The path with its folder's links resolved, as bytes: what the library's record of
        /// imported files (`SourceIndex`) knows it by, however the folder was named.
        var key: Data
        /// Whether the file system keeps the times a write changes, so that the record may be
        /// trusted without reading the file (not through FUSE: see `FileWalker.keepsTimes`).
        var timesKept = true

        init(path: [CChar], isSymbolicLink: Bool = false, display: String, name: String, identity: FileIdentity, key: Data) {
            (self.path, self.isSymbolicLink, self.display, self.name, self.identity, self.key) = (path, isSymbolicLink, display, name, identity, key)
        }

        /// An entry of `size` bytes that no file backs (for tests of batching).
        init(path: [CChar], display: String, name: String, size: Int64) {
            self.init(path: path, display: display, name: name, identity: FileIdentity(inode: 0, size: size, modified: 0, changed: 0), key: Data(display.utf8))
        }
    }

    enum Problem {
        case unreadable(String, String)
        case notFollowed(String, String)
    }

    var maxDepth = 64
    /// Whether folders inside the roots are walked (`import --by-folder` imports each on its own).
    var subfolders = true

    /// Whether the file system holding `path` updates a file's modification and change times when
    /// it is written. Not through FUSE (`FUSE_SUPER_MAGIC`): fusefat wrote a photo's bytes in
    /// place and kept its size, times and inode, and sshfs and phones' MTP mounts are FUSE too.
    static func keepsTimes(_ path: [CChar]) -> Bool {
        // struct statfs begins with f_type (a long) on every 64-bit Linux; 256 bytes hold it all.
        var buffer = [UInt64](repeating: 0, count: 32)
        guard buffer.withUnsafeMutableBytes({ linuxStatfs(path, $0.baseAddress!) }) == 0 else { return false }
        return UInt32(truncatingIfNeeded: buffer[0]) != 0x6573_5546
    }

    func walk(_ roots: [String], visit: (Entry) -> Void, problem: (Problem) -> Void) {
        walk(roots.map { ImportRoot($0) }, visit: visit, problem: problem)
    }

    func walk(_ roots: [ImportRoot], visit: (Entry) -> Void, problem: (Problem) -> Void) {
        for given in roots {
            let bytes = given.path, root = given.display
            var info = stat()
            guard stat(bytes, &info) == 0 else {
                problem(.unreadable(root, String(cString: strerror(errno))))
                continue
            }
            let key = Self.realPath(bytes) ?? Data(root.utf8)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                walkDirectory(bytes, key: key, display: root, depth: 0, visit: visit, problem: problem)
            case S_IFREG:
                var own = stat()
                let isLink = lstat(bytes, &own) == 0 && (own.st_mode & S_IFMT) == S_IFLNK
                var entry = Entry(path: bytes, isSymbolicLink: isLink, display: root, name: (root as NSString).lastPathComponent,
                                  identity: FileIdentity(info), key: key)
                entry.timesKept = Self.keepsTimes(bytes)
                visit(entry)
            default:
                // Named on the command line, so said: a FIFO or device would block or never end.
                problem(.unreadable(root, "not a regular file (\(Self.kind(info.st_mode)))"))
            }
        }
    }

    /// `path` with every link resolved, as bytes; nil when it cannot be.
    static func realPath(_ path: [CChar]) -> Data? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return Data(bytes: resolved, count: strlen(resolved))
    }

    private func walkDirectory(_ path: [CChar], key: Data, display: String, depth: Int, visit: (Entry) -> Void, problem: (Problem) -> Void) {
        guard depth < maxDepth else {
            problem(.notFollowed(display, "folders nested more than \(maxDepth) deep are not imported"))
            return
        }
        guard let dir = opendir(path) else {
            problem(.unreadable(display, String(cString: strerror(errno))))
            return
        }
        let timesKept = Self.keepsTimes(path)
        var children: [(bytes: [CChar], name: String)] = []
        while let entry = readdir(dir) {
            let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [CChar] in
                let p = raw.bindMemory(to: CChar.self).baseAddress!
                return Array(UnsafeBufferPointer(start: p, count: strlen(p)))
            }
            let name = String(decoding: nameBytes.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if nameBytes == [46] || nameBytes == [46, 46] { continue }
            if nameBytes.first == 46 {
                problem(.notFollowed(display + "/" + name, "hidden"))
                continue
            }
            children.append((nameBytes, name))
        }
        closedir(dir)
        // A stable order: byte order of the names.
        children.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        for child in children {
            var childPath = Array(path.dropLast())  // drop the NUL
            childPath.append(47)  // "/"
            childPath += child.bytes
            childPath.append(0)
            let childDisplay = display.hasSuffix("/") ? display + child.name : display + "/" + child.name
            var childKey = key
            if childKey.last != 47 { childKey.append(47) }
            childKey.append(contentsOf: child.bytes.map { UInt8(bitPattern: $0) })
            var info = stat()
            guard lstat(childPath, &info) == 0 else {
                problem(.unreadable(childDisplay, String(cString: strerror(errno))))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                guard subfolders else { continue }
                walkDirectory(childPath, key: childKey, display: childDisplay, depth: depth + 1, visit: visit, problem: problem)
            case S_IFREG:
                var entry = Entry(path: childPath, display: childDisplay, name: child.name, identity: FileIdentity(info), key: childKey)
                entry.timesKept = timesKept
                visit(entry)
            case S_IFLNK:
                var target = stat()
                if stat(childPath, &target) != 0 {
                    problem(.unreadable(childDisplay, "broken symbolic link"))
                } else if (target.st_mode & S_IFMT) == S_IFREG {
                    // A link may lead to another file system: its own is asked.
                    var entry = Entry(path: childPath, isSymbolicLink: true, display: childDisplay, name: child.name, identity: FileIdentity(target), key: childKey)
                    entry.timesKept = Self.keepsTimes(childPath)
                    visit(entry)
                } else {
                    problem(.notFollowed(childDisplay, "symbolic link to a folder, not followed"))
                }
            default:
                problem(.notFollowed(childDisplay, "not a regular file"))
            }
        }
    }

    /// What a file that is not regular is, for people.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }
}

/// A file to import, identified before it is read: opened without blocking (a FIFO swapped in
/// never hangs) and without following a symbolic link the walk did not see, `fstat`ed (only a
/// regular file goes further), its first bytes sniffed; only an image within `maxSize` is then
/// read whole. Nothing that is skipped is read past its header.
enum ImportFile {
    /// The file's bytes and its modification time; its identity when it was the same before and
    /// after the read (nil: it changed while being read, so what was read is not recorded as it).
    case image(Data, modified: Date, identity: FileIdentity?)
    /// Not an image (by content): only its header was read.
    case notAnImage(header: Data, identity: FileIdentity?)
    case rejected(String)

    static let headerLength = 64

    static func read(_ entry: FileWalker.Entry, maxSize: Int64) -> ImportFile {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (entry.isSymbolicLink ? 0 : O_NOFOLLOW)
        let fd = open(entry.path, flags)
        guard fd >= 0 else {
            return .rejected(errno == ELOOP ? "became a symbolic link while being imported; not followed" : "cannot read: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .rejected("cannot read: \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .rejected("not a regular file (\(FileWalker.kind(info.st_mode)))") }
        let size = Int64(info.st_size)
        var header = Data(count: Int(min(size, Int64(headerLength))))
        if let failure = fill(&header, from: fd) { return .rejected("cannot read: \(String(cString: strerror(failure)))") }
        guard ImageFormat.sniff(header) != nil else { return .notAnImage(header: header, identity: unchanged(fd, since: info)) }
        guard size <= maxSize else {
            return .rejected("too large to import: \(Display.bytes(Int(clamping: size))) (the limit is \(Display.bytes(Int(clamping: maxSize))); --max-file-size raises it)")
        }
        // malloc, not Data(count:), which traps when the memory cannot be had (--max-file-size 1T).
        guard let buffer = malloc(max(Int(size), 1)) else {
            return .rejected("too large to read into memory: \(Display.bytes(Int(clamping: size)))")
        }
        var data = Data(bytesNoCopy: buffer, count: Int(size), deallocator: .free)
        data.replaceSubrange(0..<header.count, with: header)
        if let failure = fill(&data, from: fd, startingAt: header.count) { return .rejected("cannot read: \(String(cString: strerror(failure)))") }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return .image(data, modified: modified, identity: unchanged(fd, since: info))
    }

    /// The identity of the open file if it is still what `before` was (nothing wrote it while it
    /// was read), else nil.
    static func unchanged(_ fd: Int32, since before: stat) -> FileIdentity? {
        var after = stat()
        guard fstat(fd, &after) == 0, FileIdentity(after) == FileIdentity(before) else { return nil }
        return FileIdentity(after)
    }

    /// Reads into `data` from `start` until it is full or the file ends (then `data` is shortened:
    /// the file shrank while being read); the errno on failure.
    static func fill(_ data: inout Data, from fd: Int32, startingAt start: Int = 0) -> Int32? {
        var filled = start
        let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
            while filled < raw.count {
                let n = Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { break }
                filled += n
            }
            return nil
        }
        if failure == nil && filled < data.count { data.count = filled }
        return failure
    }
}

/// A file or folder to import, by its path as bytes (a name need not be UTF-8) and as shown.
public struct ImportRoot: Sendable, Equatable {
    /// The path, NUL-terminated, for open(2).
    public var path: [CChar]
    /// The path as messages show it.
    public var display: String

    /// A path given as text (from the command line).
    public init(_ path: String) {
        (self.path, display) = (Array(path.utf8CString), path)
    }

    /// A path as bytes (NUL-terminated), shown as `display`.
    public init(path: [CChar], display: String) {
        (self.path, self.display) = (path, display)
    }
}

/// statfs(2): the Glibc module does not declare it (sys/vfs.h).
@_silgen_name("statfs")
private func linuxStatfs(_ path: UnsafePointer<CChar>, _ buffer: UnsafeMutableRawPointer) -> Int32
