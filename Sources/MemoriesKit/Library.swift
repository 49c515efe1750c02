import BlobStore
import Foundation
import OpenSwiftData

/// A journal on disk: the SQLite store (`library.store`) and its blob directory
/// (`.library_SUPPORT/sha256/…`) in one folder.
public final class Library {
    public let directory: URL
    /// Whether this open made the library (its store did not exist).
    public let created: Bool
    public let container: ModelContainer
    public let context: ModelContext

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
    public init(directory: URL, readOnly: Bool = false, create: Bool = true) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue { throw LibraryError.notADirectory(directory.path) }
        let store = directory.appendingPathComponent("library.store")
        created = !(exists && FileManager.default.fileExists(atPath: store.path))
        if readOnly || !create {
            guard exists, FileManager.default.fileExists(atPath: store.path) else {
                throw LibraryError.noLibrary(directory.path, photosLeft: Self.holdsPhotos(directory))
            }
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let schema = Schema(versionedSchema: MemoriesSchemaV3.self)
        var configuration = ModelConfiguration(schema: schema, url: store, allowsSave: !readOnly)
        if let settings = try BlobSettings.load(from: directory) {
            configuration.blobBackend = try settings.backend(lockDirectory: directory.appendingPathComponent(".library_SUPPORT"))
        }
        do {
            container = try ModelContainer(for: schema, migrationPlan: MemoriesMigrationPlan.self, configurations: [configuration])
        } catch ModelError.storeNotMigrated(let missing) where readOnly {
            // An empty store file (or one from an older version): reading cannot create what is missing.
            guard Self.holdsPhotos(directory) else { throw ModelError.storeNotMigrated(missing: missing) }
            throw LibraryError.noLibrary(directory.path, photosLeft: true)
        }
        if let problem = container.identityProblem { throw problem }
        context = ModelContext(container)
        if !readOnly && container.writeRefusal == nil {
            try SearchIndex.install(on: context)
            try MemoryStats.install(on: context)
        }
    }

    /// Makes a new library in `directory` whose photos go where `blobs` says (nil: its own folder).
    /// Refuses a folder that holds a library already; an S3 location that holds another
    /// library's photos is refused when the new library opens (its identity is not the owner's).
    public static func create(directory: URL, blobs: BlobSettings?) throws -> Library {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("library.store").path)
            || FileManager.default.fileExists(atPath: directory.appendingPathComponent(BlobSettings.fileName).path) {
            throw LibraryError.libraryExists(directory.path)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let support = directory.appendingPathComponent(".library_SUPPORT")
        let supportExisted = FileManager.default.fileExists(atPath: support.path)
        if let blobs {
            // The bucket must answer before anything is recorded.
            do {
                _ = try blobs.backend(lockDirectory: support).client.list(prefix: "sha256/", limit: 1)
            } catch {
                if !supportExisted { try? FileManager.default.removeItem(at: support) }
                throw error
            }
            try blobs.write(to: directory)
        }
        do {
            return try Library(directory: directory)
        } catch {
            // Refused (the bucket holds another library's photos, say): the files this call made
            // go, so the folder is as it was and a corrected `init` can run.
            for name in ["library.store", "library.store-wal", "library.store-shm", BlobSettings.fileName] {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            if !supportExisted { try? FileManager.default.removeItem(at: support) }
            throw error
        }
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
        "\(memory.id.uuidString.lowercased())  \(Formats.day(memory.date))  \(memory.title)"
    }
}

/// How dates look in output and are read from arguments: in the user's time zone (`TZ`, else the
/// system's), except a photo's capture time, which keeps the offset it was taken at.
public enum Formats {
    /// The user's time zone.
    public static var zone: TimeZone { TimeZone.current }

    /// `2024-06-13`, in the user's time zone.
    public static func day(_ date: Date) -> String { String(local(date).prefix(10)) }

    /// `2024-06-13 23:30`, in `zone` (the user's by default).
    public static func local(_ date: Date, in zone: TimeZone = Formats.zone) -> String {
        formatters.local(date, in: zone)
    }

    /// An ISO 8601 date-time as `iso` writes it, or nil.
    public static func parseISO(_ text: String) -> Date? { formatters.parseISO(text) }

    /// Made once per time zone: a formatter costs ~300 µs to make (ICU loads its locale's symbols),
    /// which a list of 20,000 memories or a show of 5,000 photos paid per line.
    private static let formatters = FormatterCache()

    /// ISO 8601 with the user's offset (`Z` when it is UTC).
    public static func iso(_ date: Date) -> String { iso(date, in: zone) }

    /// ISO 8601 at a given offset from UTC (seconds east).
    public static func iso(_ date: Date, offset: Int) -> String { formatters.iso(date, offset: offset) }

    static func iso(_ date: Date, in zone: TimeZone) -> String { formatters.iso(date, in: zone) }

    /// `YYYY-MM-DD` (midnight in the user's time zone) or an ISO 8601 date-time (in the user's
    /// time zone unless it gives an offset), in the years 1–9999.
    /// - Throws: `LibraryError.invalidDate` for anything else (the CLI makes it a usage error).
    public static func parseDate(_ text: String) throws -> Date {
        // A four-digit year first: DateFormatter alone also takes "99999-01-01" and "-1-01-01".
        let head = Array(text.utf8.prefix(10))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard head.count == 10, head[4] == UInt8(ascii: "-"), head[7] == UInt8(ascii: "-"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(head[$0]) }),
              let date = parse(text) else { throw LibraryError.invalidDate(text) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.era, .year], from: date)
        guard parts.era == 1, let year = parts.year, (1...9999).contains(year) else { throw LibraryError.invalidDate(text) }
        return date
    }

    private static func parse(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: text) { return date }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        for format in ["yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            f.dateFormat = format
            if let date = f.date(from: text) { return date }
        }
        return nil
    }

    public static func bytes(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        guard unit > 0 else { return "\(count) B" }
        // One decimal, rounded half up as "%.1f" would (String(format:) costs microseconds a call).
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
