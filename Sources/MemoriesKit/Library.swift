import BlobStore
import Foundation
import OpenSwiftData

/// A journal on disk: the SQLite store (`library.store`) and its blob directory
/// (`.library_SUPPORT/sha256/…`) in one folder.
public final class Library {
    /// The library's folder.
    public let directory: URL
    /// Whether this open made the library (its store did not exist).
    public let created: Bool
    /// The OpenSwiftData container over `library.store` and the photos' blobs.
    public let container: ModelContainer
    /// The context every method works in (one thread at a time).
    public let context: ModelContext
    /// What could not be read on first access (a relationship whose rows are refused, a value whose
    /// blob is missing): the property read as empty, and the command must not report success.
    public private(set) var loadFailures: [Error] = []
    /// Set when this writing open made a library that others could read private (see
    /// `Library+Privacy.swift`), or could not: a sentence for the user.
    public private(set) var privacyNote: String?
    /// Said when a writing command opens a library whose photo store is there but holds none of
    /// its photos (its `sha256` folder deleted, its owner record kept): what is missing and how to
    /// put it back. The command goes on (an import of the same folders puts them back).
    public private(set) var emptiedStoreNote: String?
    /// Where the photos were kept, when that place is gone (opened with `photoStoreMayBeMissing`).
    public private(set) var photoStoreMissing: String?
    /// Told what a command is waiting for, as it starts waiting (the command line prints it).
    public var notice: ((String) -> Void)?
    /// How long an import waits for another that is making a new memory (`titles.lock`).
    public var titleLockTimeout: TimeInterval = 600

    /// `library.store` in `directory`.
    public var storeURL: URL { directory.appendingPathComponent("library.store") }
    /// Where the photos are stored: the folder `.library_SUPPORT/`, or the S3 bucket the library
    /// was made with (`blobs.json`, see `BlobSettings`).
    public var blobs: any BlobBackend { container.blobBackend! }

    /// The library folder: `--library`, else `$MEMORIES_LIBRARY`, else `$XDG_DATA_HOME/memories`
    /// (`~/.local/share/memories`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["MEMORIES_LIBRARY"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("memories") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/memories")
    }

    /// Opens the library. A writing open with `create` makes it on first use (`created` then says
    /// so); without `create`, or read-only, a library that does not exist is an error. A read-only
    /// open creates, migrates and writes nothing (and works on a folder that cannot be written).
    ///
    /// Either way the store must be the one its photo folder belongs to: an emptied, deleted or
    /// replaced `library.store` beside stored photos is refused with what to do, before anything
    /// could conclude that the photos are unused.
    ///
    /// A library whose photo store is gone while its store records photos
    /// (`LibraryError.photoStoreMissing`) is refused, and nothing is made in its place, unless
    /// `photoStoreMayBeMissing` (verify, which says so, and repair, which restores it):
    /// `photoStoreMissing` then says where it was.
    public init(directory: URL, readOnly: Bool = false, create: Bool = true, photoStoreMayBeMissing: Bool = false) throws {
        try Self.refuseTooLongPath(directory)
        self.directory = directory
        // A folder that cannot be reached at all (its disk gone: ENOTCONN) is not a missing one.
        var reached = stat()
        if stat(directory.path, &reached) != 0 && errno != ENOENT && errno != ENOTDIR {
            throw BlobStoreError.io(path: directory.path, operation: "reach", errno: errno)
        }
        // Before anything is made in it: another user's folder or store would be theirs to read.
        if !readOnly { try Self.refuseOtherOwners(directory) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue { throw LibraryError.notADirectory(directory.path) }
        let store = directory.appendingPathComponent("library.store")
        try Self.refuseUnopenableStore(store)
        let support = directory.appendingPathComponent(".library_SUPPORT")
        try Self.refuseUnusablePhotoFolder(support)
        created = !(exists && FileManager.default.fileExists(atPath: store.path))
        if readOnly || !create {
            guard exists, FileManager.default.fileExists(atPath: store.path) else {
                throw LibraryError.noLibrary(directory.path, photosLeft: Self.holdsPhotos(directory))
            }
            // An empty store is not opened (opening would make its tables): an unfinished one (an
            // init stopped before its first write) is a library not made yet (`import` and `init`
            // make it); one with anything of a library beside it (photos, in the trash too, a
            // bucket's settings) is a library whose store was emptied.
            if Self.isEmptyStore(store) {
                throw LibraryError.noLibrary(directory.path, photosLeft: !Self.isUnfinishedStore(in: directory))
            }
        } else {
            try Privacy.makeFolders(directory.path)
            if !FileManager.default.fileExists(atPath: store.path) { try Self.makePrivateStore(store, exclusive: false) }
        }
        if !readOnly { privacyNote = try Self.makePrivate(directory) }
        let supportExisted = FileManager.default.fileExists(atPath: support.path)
        let schema = Schema(versionedSchema: MemoriesSchemaV4.self)
        var configuration = ModelConfiguration(schema: schema, url: store, allowsSave: !readOnly)
        // The trash is emptied by `gc` alone, after its checks (docs/reliability.md), never by a
        // container opening the library.
        configuration.trashGracePeriod = nil
        if let settings = try BlobSettings.load(from: directory) {
            configuration.blobBackend = try settings.backend(lockDirectory: support)
        }
        do {
            container = try ModelContainer(for: schema, migrationPlan: MemoriesMigrationPlan.self, configurations: [configuration])
        } catch ModelError.storeNotMigrated(let missing) where readOnly {
            // An empty store file (or one from an older version): reading cannot create what is missing.
            // A store that holds none of the library's tables is one an import or init was killed
            // while making (its log begun, its tables not yet committed): no library yet.
            let photosLeft = Self.holdsPhotos(directory)
            let holdsNoTable = Set(missing).isSuperset(of: schema.entities.map(\.name))
            guard photosLeft || holdsNoTable else { throw ModelError.storeNotMigrated(missing: missing) }
            throw LibraryError.noLibrary(directory.path, photosLeft: photosLeft)
        }
        context = ModelContext(container)
        if case .blobStoreMissing(_, let place)? = container.identityProblem {
            let photos = (try? context.fetchCount(FetchDescriptor<MemoryImage>())) ?? 0
            guard photoStoreMayBeMissing else {
                // A writing open made the folder's skeleton again: taken back (empty folders only;
                // the folder itself when it did not exist, not an empty mount point).
                (container.blobBackend as? BlobStore)?.removeIfEmpty(keepingRoot: supportExisted)
                throw LibraryError.photoStoreMissing(directory.path, place: place, photos: photos)
            }
            photoStoreMissing = place
        } else if let problem = container.identityProblem {
            throw problem
        }
        if !readOnly, photoStoreMissing == nil, let backend = container.blobBackend {
            emptiedStoreNote = try Self.emptiedStoreNote(context, backend: backend)
        }
        let printing = context.loadErrorHandler
        context.loadErrorHandler = { [weak self] error in
            printing(error)
            self?.loadFailures.append(error)
        }
        if !readOnly && container.writeRefusal == nil {
            try SearchIndex.install(on: context)
            try MemoryStats.install(on: context)
            try SourceIndex.install(on: context)
            try RemovedPhotos.install(on: context)
            try SourceFolders.install(on: context)
            try SourceEvents.install(on: context)
        }
    }

    /// Makes a new library in `directory` whose photos go where `blobs` says (nil: its own folder).
    /// Refuses a folder that holds a library already; an S3 location that holds another
    /// library's photos is refused when the new library opens (its identity is not the owner's).
    public static func create(directory: URL, blobs: BlobSettings?) throws -> Library {
        try refuseTooLongPath(directory)
        try refuseOtherOwners(directory)
        try Privacy.makeFolders(directory.path)
        // Every init holds the folder's lock (flock on the folder itself) to its end, so two inits
        // never both take up an unfinished store.
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if folder >= 0 { close(folder) } }
        let locked = folder >= 0 && flock(folder, LOCK_EX | LOCK_NB) == 0
        if folder >= 0 && !locked && errno == EWOULDBLOCK { throw LibraryError.libraryExists(directory.path) }
        let store = directory.appendingPathComponent("library.store")
        try refuseUnopenableStore(store)
        // An unfinished store (an init stopped before its first write) is taken up where it is:
        // opened and made, never removed (an `import` may be making it at this moment; SQLite's
        // own locks let both go on). Only for a library in its own folder: such an import, finding
        // no `blobs.json`, makes one there, and a bucket named now would split the two.
        let unfinished = locked && isUnfinishedStore(in: directory)
        if unfinished && blobs != nil { throw LibraryError.unfinishedStore(directory.path) }
        if !unfinished && (FileManager.default.fileExists(atPath: store.path)
                           || FileManager.default.fileExists(atPath: directory.appendingPathComponent(BlobSettings.fileName).path)) {
            throw LibraryError.libraryExists(directory.path)
        }
        let support = directory.appendingPathComponent(".library_SUPPORT")
        let supportExisted = FileManager.default.fileExists(atPath: support.path)
        if let blobs {
            // The bucket must answer before anything is recorded (an answer can take the
            // client's whole timeout: an init stopped meanwhile leaves no store file behind).
            do {
                _ = try blobs.backend(lockDirectory: support).client.list(prefix: "sha256/", limit: 1)
            } catch {
                if !supportExisted { try? FileManager.default.removeItem(at: support) }
                throw error
            }
        }
        // The store stays whatever happens (another process may be making it).
        if unfinished { return try Library(directory: directory) }
        // The store file is made exclusively: of two inits in one folder at once, exactly one
        // goes on, and the other is told the folder holds a library (it must not go on to open,
        // or on failure remove, the store the first is making).
        try makePrivateStore(store, exclusive: true)
        do {
            try blobs?.write(to: directory)
            return try Library(directory: directory)
        } catch {
            // Refused (the bucket holds another library's photos, say) or failed (a full disk):
            // the files this call made go, so the folder is as it was and a corrected `init` can
            // run. A claim the new store made on the photo place goes too, when nothing was stored
            // under it: kept, it would name a store that no longer exists and refuse the retry.
            if let identity = ModelContainer.storeIdentifier(at: store),
               let backend: any BlobBackend = try? blobs.map({ try $0.backend(lockDirectory: support) }) ?? BlobStore(root: support) {
                _ = try? backend.releaseOwner(identity)
            }
            for name in ["library.store", "library.store-wal", "library.store-shm", BlobSettings.fileName] {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            if !supportExisted { try? FileManager.default.removeItem(at: support) }
            throw error
        }
    }

    /// The longest path SQLite opens a database at (its Unix VFS's MAX_PATHNAME), and Linux's
    /// longest name (NAME_MAX).
    static let longestPath = 512, longestName = 255
    /// The longest name SQLite makes within a library's folder, beside the store: its rollback journal.
    static let longestFileWithin = "/library.store-journal".utf8.count

    /// A folder whose store SQLite could not open (its path, with the journal's name, over 512
    /// bytes: 490 for the folder) or with a name longer than the system allows is said as such,
    /// before anything is made: it failed as "unable to open database file", or as
    /// NSCocoaErrorDomain 518. (The blob folder's paths, 92 bytes longer, are within Linux's 4,096.)
    static func refuseTooLongPath(_ directory: URL) throws {
        // The path SQLite opens is the folder's with its links resolved: a short link to a deep
        // folder is deep, and so is a new folder in one (its own path cannot be resolved yet).
        let given = directory.standardizedFileURL.path, resolved = resolvedPath(given)
        let path = resolved.utf8.count > given.utf8.count ? resolved : given
        let longestComponent = path.split(separator: "/").map(\.utf8.count).max() ?? 0
        if path.utf8.count + longestFileWithin > longestPath || longestComponent > longestName {
            throw LibraryError.pathTooLong(path, bytes: path.utf8.count)
        }
    }

    /// `path` with its links resolved: its deepest existing folder's real path, and the names
    /// below it that do not exist yet.
    static func resolvedPath(_ path: String) -> String {
        var existing = path, rest: [String] = []
        while existing.count > 1 {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                return ([String(cString: real)] + rest.reversed()).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
            }
            rest.append((existing as NSString).lastPathComponent)
            existing = (existing as NSString).deletingLastPathComponent
        }
        return path
    }

    /// A `library.store` that is a symbolic link to nothing is said as such: `init` would see a
    /// library there (its name is taken) and every other command none (nothing can be opened).
    /// One that is not a file (a folder) is said as such too, not as a failing disk.
    static func refuseUnopenableStore(_ store: URL) throws {
        var followed = stat()
        if stat(store.path, &followed) == 0, (followed.st_mode & S_IFMT) != S_IFREG {
            throw LibraryError.storeNotAFile(store.path, kind: kind(of: followed.st_mode))
        }
        var status = stat()
        guard lstat(store.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK,
              !FileManager.default.fileExists(atPath: store.path) else { return }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: store.path)) ?? "?"
        throw LibraryError.danglingStore(store.path, target: target)
    }

    /// The note for a photo store that holds not one blob, in it or its trash, while rows name
    /// some (the second outside attack's: an import went on storing into it and gc said nothing);
    /// nil otherwise. One listing of a key in a bucket, only when the library has photos.
    static func emptiedStoreNote(_ context: ModelContext, backend: any BlobBackend) throws -> String? {
        guard try context.query(LibrarySQL.anyPhoto).first != nil, try !backend.hasBlobs(), try !backend.hasTrashedBlobs() else { return nil }
        let photos = try context.fetchCount(FetchDescriptor<MemoryImage>())
        return "the photo store \(backend.locationDescription) holds none of this library's \(photos) photo\(photos == 1 ? "" : "s") "
            + "(deleted, or moved out of it): `memories verify` lists them; importing their folders again, or "
            + "`memories repair FOLDER…`, puts them back"
    }

    /// A photo folder that is a link to nothing (a disk not mounted), or a file (anything but a
    /// folder), is said as such before anything is made or changed, not as a failing mkdir inside
    /// it or a photo store gone.
    static func refuseUnusablePhotoFolder(_ support: URL) throws {
        var link = stat(), followed = stat()
        let reached = stat(support.path, &followed) == 0
        if !reached, lstat(support.path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
            throw LibraryError.danglingPhotoFolder(support.path, target: (try? FileManager.default.destinationOfSymbolicLink(atPath: support.path)) ?? "?")
        }
        if reached, (followed.st_mode & S_IFMT) != S_IFDIR {
            throw LibraryError.photoFolderNotAFolder(support.path, kind: kind(of: followed.st_mode))
        }
    }

    /// What a file of this mode is, in a word or two.
    static func kind(of mode: mode_t) -> String {
        let kinds: [mode_t: String] = [S_IFREG: "file", S_IFDIR: "folder", S_IFIFO: "named pipe", S_IFSOCK: "socket", S_IFCHR: "device", S_IFBLK: "device"]
        return kinds[mode & S_IFMT] ?? "special file"
    }

    /// Whether the store holds nothing: an empty file (or a link to one), or a database of one
    /// page whose schema is empty (a process stopped between SQLite writing the file's header and
    /// the first table), with no write-ahead log beside it (one may hold every table).
    static func isEmptyStore(_ store: URL) -> Bool {
        // SQLite keeps the log and the journal beside the file a link names, not beside the link.
        guard let resolved = realpath(store.path, nil) else { return false }
        let path = String(cString: resolved)
        free(resolved)
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
              !FileManager.default.fileExists(atPath: path + "-wal") else { return false }
        if status.st_size == 0 { return true }
        // The empty schema: no journal (whose pages could bring tables back), the file is one
        // page, by its size and by its header (sqlite.org/fileformat2.html: the page size at
        // offset 16, 1 meaning 65536; the page count at 28), and page 1 is a table leaf (0x0D)
        // with no cells (offset 103).
        guard status.st_size <= 65_536, !FileManager.default.fileExists(atPath: path + "-journal"),
              let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 108), head.count == 108 else { return false }
        let b = [UInt8](head)
        let pageSize = Int(b[16]) << 8 | Int(b[17])
        let pages = Int(b[28]) << 24 | Int(b[29]) << 16 | Int(b[30]) << 8 | Int(b[31])
        return b[0..<16].elementsEqual("SQLite format 3\0".utf8) && (pageSize == 1 ? 65_536 : pageSize) == Int(status.st_size)
            && pages == 1 && b[100] == 0x0D && b[103] == 0 && b[104] == 0
    }

    /// Whether `library.store` is what an init stopped between making the file and its first
    /// write leaves: an empty store (`isEmptyStore`), and beside it nothing a library makes once
    /// its store is written: no `blobs.json` (a bucket's photos cannot be seen from
    /// here), and a photo folder that is absent or holds no file but its lock (no photo, none in
    /// the trash or half-written, no `owner` record). A folder that cannot be read is not taken
    /// for empty. Anything else is a library whose store was emptied, and is treated as one.
    static func isUnfinishedStore(in directory: URL) -> Bool {
        guard isEmptyStore(directory.appendingPathComponent("library.store")) else { return false }
        // A journal beside an empty file holds nothing committed (its pages are what the file held
        // before: nothing), so an init killed mid-creation that left one is unfinished too.
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(BlobSettings.fileName).path) { return false }
        let support = directory.appendingPathComponent(".library_SUPPORT").path
        guard FileManager.default.fileExists(atPath: support) else { return true }
        guard access(support, R_OK | X_OK) == 0, let walk = FileManager.default.enumerator(atPath: support) else { return false }
        var unreadable = false
        for case let path as String in walk {
            let full = support + "/" + path
            var entry = stat()
            guard lstat(full, &entry) == 0 else { return false }
            if (entry.st_mode & S_IFMT) == S_IFDIR {
                if access(full, R_OK | X_OK) != 0 { unreadable = true }
            } else if path != "lock" && path != "titles.lock" {
                return false
            }
        }
        return !unreadable
    }

    /// Whether the library's photo folder holds stored photos (with or without a store beside it).
    static func holdsPhotos(_ directory: URL) -> Bool {
        let root = directory.appendingPathComponent(".library_SUPPORT")
        guard FileManager.default.fileExists(atPath: root.path) else { return false }
        return (try? BlobStore(root: root, readOnly: true).hasBlobs()) ?? false
    }

    // MARK: Finding memories

    /// A memory by id, unique id prefix (4 characters or more, case ignored), or exact title.
    /// Every reading is tried: a query that names more than one memory in any of these ways (a
    /// title that is also another memory's id prefix) is ambiguous, and the error lists them all.
    public func resolve(_ query: String) throws -> Memory {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        var found: [Memory] = []
        func add(_ memories: [Memory]) {
            for memory in memories where !found.contains(where: { $0 === memory }) { found.append(memory) }
        }
        if let id = UUID(uuidString: trimmed), let memory = try fetchMemory(id: id) { add([memory]) }
        add(try context.fetch(FetchDescriptor<Memory>(predicate: #Predicate { $0.title == trimmed }, sortBy: [SortDescriptor(\.date)])))
        let prefix = trimmed.uppercased()
        let hex = prefix.unicodeScalars.allSatisfy { "0123456789ABCDEF-".unicodeScalars.contains($0) }
        if hex && prefix.count >= 4 {
            add(try context.fetch(FetchDescriptor<Memory>(predicate: #Predicate { $0.id.uuidString.starts(with: prefix) })))
        }
        if found.count == 1 { return found[0] }
        if found.count > 1 { throw LibraryError.ambiguousMemory(query, candidates: found.map(describe)) }
        // No exact match: the title with case and surrounding spaces ignored, when that is unique;
        // else the closest titles as a suggestion.
        var titles = FetchDescriptor<Memory>(sortBy: [SortDescriptor(\.date)])
        titles.propertiesToFetch = [\.title]
        let all = try context.fetch(titles)
        let folded = trimmed.lowercased()
        let loose = all.filter { $0.title.trimmingCharacters(in: .whitespaces).lowercased() == folded }
        if loose.count == 1 { return loose[0] }
        if loose.count > 1 { throw LibraryError.ambiguousMemory(query, candidates: loose.map(describe)) }
        let closest = all.map(\.title).filter { Suggestion.distance(folded, $0.lowercased()) <= max(2, folded.count / 4) }
        throw LibraryError.memoryNotFound(query, closest: Array(Set(closest)).sorted().prefix(3).map { $0 })
    }

    func fetchMemory(id: UUID) throws -> Memory? {
        try context.fetch(FetchDescriptor<Memory>(predicate: #Predicate { $0.id == id })).first
    }

    func describe(_ memory: Memory) -> String {
        "\(memory.id.uuidString.lowercased())  \(Display.day(memory.date))  \(memory.title)"
    }
}
