import Foundation

/// Lists the files under the import's inputs with opendir/readdir on raw byte paths, so names
/// with newlines or invalid UTF-8 are read as they are. Symbolic links to files are followed;
/// links to folders are not (no loops); hidden entries (".…") are skipped.
struct FileWalker {
    struct Entry {
        /// The path as bytes, for open(2).
        var path: [CChar]
        /// The path for people (invalid UTF-8 shown as U+FFFD).
        var display: String
        var name: String
    }

    enum Problem {
        case unreadable(String, String)
        case notFollowed(String, String)
    }

    var maxDepth = 64

    func walk(_ roots: [String], visit: (Entry) -> Void, problem: (Problem) -> Void) {
        for root in roots {
            let bytes = Array(root.utf8CString)
            var info = stat()
            guard stat(bytes, &info) == 0 else {
                problem(.unreadable(root, String(cString: strerror(errno))))
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                walkDirectory(bytes, display: root, depth: 0, visit: visit, problem: problem)
            } else {
                visit(Entry(path: bytes, display: root, name: (root as NSString).lastPathComponent))
            }
        }
    }

    private func walkDirectory(_ path: [CChar], display: String, depth: Int, visit: (Entry) -> Void, problem: (Problem) -> Void) {
        guard depth < maxDepth else {
            problem(.notFollowed(display, "folders nested more than \(maxDepth) deep are not imported"))
            return
        }
        guard let dir = opendir(path) else {
            problem(.unreadable(display, String(cString: strerror(errno))))
            return
        }
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
            var info = stat()
            guard lstat(childPath, &info) == 0 else {
                problem(.unreadable(childDisplay, String(cString: strerror(errno))))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                walkDirectory(childPath, display: childDisplay, depth: depth + 1, visit: visit, problem: problem)
            case S_IFREG:
                visit(Entry(path: childPath, display: childDisplay, name: child.name))
            case S_IFLNK:
                var target = stat()
                if stat(childPath, &target) != 0 {
                    problem(.unreadable(childDisplay, "broken symbolic link"))
                } else if (target.st_mode & S_IFMT) == S_IFREG {
                    visit(Entry(path: childPath, display: childDisplay, name: child.name))
                } else {
                    problem(.notFollowed(childDisplay, "symbolic link to a folder, not followed"))
                }
            default:
                problem(.notFollowed(childDisplay, "not a regular file"))
            }
        }
    }
}

/// Reads a whole file by byte path, with read(2) into one buffer of the file's size.
func readFile(_ path: [CChar], display: String) throws -> Data {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ReadError(reason: "cannot read: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw ReadError(reason: "cannot read: \(String(cString: strerror(errno)))") }
    var data = Data(count: Int(info.st_size))
    var filled = 0
    let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
        while filled < raw.count {
            let n = read(fd, raw.baseAddress! + filled, raw.count - filled)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { break }
            filled += n
        }
        return nil
    }
    if let failure { throw ReadError(reason: "cannot read: \(String(cString: strerror(failure)))") }
    if filled < data.count { data.count = filled }  // the file shrank while being read
    return data
}

struct ReadError: Error { var reason: String }
