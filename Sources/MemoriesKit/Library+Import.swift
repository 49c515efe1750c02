import BlobStore
import Foundation
import Imaging
import OpenSwiftData

/// What `import` is asked to do.
public struct ImportOptions {
    public var title: String?
    public var into: String?
    public var date: Date?
    public var notes: String?
    public var dryRun = false
    /// Decoding and hashing threads (default: the core count). SQLite sees one writer.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Images committed per transaction.
    public var batchSize = 24
    public var thumbnailSide = 256
    public var limits = ImageLimits.default

    public init() {}
}

/// What `import` did, as printed with `--json`.
public struct ImportReport: Codable, Equatable {
    public struct MemoryRef: Codable, Equatable {
        public var id: String
        public var title: String
    }
    public struct Rejection: Codable, Equatable {
        public var path: String
        public var reason: String
    }
    public var memory: MemoryRef?
    public var imported = 0
    public var duplicates = 0
    public var skipped = 0
    public var rejected: [Rejection] = []
}

extension Library {
    /// Imports photos: every JPEG and PNG (by content) under `paths`, validated, thumbnailed and
    /// stored once; other files skipped; invalid images rejected with their reason.
    ///
    /// Work happens in batches: worker threads decode, thumbnail and hash a batch; this thread
    /// inserts it and saves (blobs durable first, then one SQLite transaction). A killed import
    /// leaves whole batches; running it again skips what is there and adds the rest.
    public func importPhotos(_ paths: [String], options: ImportOptions, progress: ((Int, Int) -> Void)? = nil) throws -> ImportReport {
        var report = ImportReport()
        var files: [FileWalker.Entry] = []
        FileWalker().walk(paths, visit: { files.append($0) }, problem: { problem in
            switch problem {
            case .unreadable(let path, let reason): report.rejected.append(.init(path: path, reason: reason))
            case .notFollowed: report.skipped += 1
            }
        })
        let memory = try options.dryRun ? (try options.into.map(resolve)) : targetMemory(for: paths, options: options)
        if let memory { report.memory = .init(id: memory.id.uuidString.lowercased(), title: memory.title) }
        var known = try memory.map(storedDigests(of:)) ?? []
        var done = 0
        var start = 0
        let batch = max(1, options.batchSize)
        // The next batch is read, validated and hashed on the worker threads while this thread
        // stores the current one: decoding never waits for a save to finish.
        func nextBatch() -> PendingBatch? {
            guard start < files.count else { return nil }
            let slice = Array(files[start..<min(start + batch, files.count)])
            start += slice.count
            return PendingBatch(slice) { Self.prepareBatch($0, options: options) }
        }
        var pending = nextBatch()
        while let current = pending {
            let prepared = current.wait()
            pending = nextBatch()
            for item in prepared {
                done += 1
                progress?(done, files.count)
                switch item {
                case .skipped:
                    report.skipped += 1
                case .rejected(let path, let reason):
                    report.rejected.append(.init(path: path, reason: reason))
                case .image(let photo):
                    guard known.insert(photo.sha256).inserted else {
                        report.duplicates += 1
                        continue
                    }
                    report.imported += 1
                    guard let memory, !options.dryRun else { continue }
                    let image = MemoryImage(filename: photo.filename, sha256: photo.sha256, format: photo.info.format.rawValue,
                                            width: photo.info.width, height: photo.info.height, byteCount: photo.data.count)
                    image.imageData = photo.data
                    image.thumbnailData = photo.thumbnail
                    image.takenAt = photo.info.exif.capturedAt
                    image.orientation = photo.info.exif.orientation
                    image.cameraMake = photo.info.exif.make
                    image.cameraModel = photo.info.exif.model
                    context.insert(image)
                    image.memory = memory
                }
            }
            if !options.dryRun { try context.save() }
        }
        // A memory whose date was never given (it still equals its creation time) takes its earliest photo's.
        if let memory, !options.dryRun, options.date == nil, memory.date == memory.createdAt {
            try dateFromPhotos(memory)
        }
        return report
    }

    /// `--into` names an existing memory; `--title` creates one, or continues the one with that exact title.
    func targetMemory(for paths: [String], options: ImportOptions) throws -> Memory {
        if let into = options.into { return try resolve(into) }
        let title = options.title ?? URL(fileURLWithPath: paths.first ?? "Import").standardizedFileURL.lastPathComponent
        let existing = try context.fetch(FetchDescriptor<Memory>(predicate: #Predicate { $0.title == title }))
        if existing.count == 1 { return existing[0] }
        if existing.count > 1 { throw LibraryError.ambiguousMemory(title, candidates: existing.map(describe)) }
        let now = Date()
        let memory = Memory(title: title, date: options.date ?? now, notes: options.notes ?? "")
        memory.createdAt = now
        context.insert(memory)
        try context.save()
        return memory
    }

    /// The memory's date becomes its earliest photo's capture time.
    func dateFromPhotos(_ memory: Memory) throws {
        let rows = try context.query("SELECT min(takenAt) FROM MemoryImage WHERE memory = ?", [.integer(memory.persistentModelID.primaryKey)])
        if let seconds = rows.first?.first?.doubleValue {
            memory.date = Date(timeIntervalSinceReferenceDate: seconds)
            try context.save()
        }
    }

    func storedDigests(of memory: Memory) throws -> Set<String> {
        Set(try context.query("SELECT sha256 FROM MemoryImage WHERE memory = ?", [.integer(memory.persistentModelID.primaryKey)])
            .compactMap { $0.first?.stringValue })
    }

    enum Prepared {
        case image(Photo)
        case skipped
        case rejected(String, String)
    }

    struct Photo {
        var filename: String
        var data: Data
        var thumbnail: Data
        var info: ImageInfo
        var sha256: String
    }

    /// Reads, validates, thumbnails and hashes a batch on `jobs` threads; results in input order.
    static func prepareBatch(_ files: [FileWalker.Entry], options: ImportOptions) -> [Prepared] {
        let results = UnsafeMutableBufferPointer<Prepared>.allocate(capacity: files.count)
        results.initialize(repeating: .skipped)
        defer {
            _ = results.deinitialize()  // releases each photo's bytes
            results.deallocate()
        }
        let jobs = max(1, min(options.jobs, files.count))
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            while let i = next.take(below: files.count) {
                results[i] = Self.prepare(files[i], options: options)
            }
        }
        return Array(results)
    }

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "jfif", "png"]

    static func prepare(_ file: FileWalker.Entry, options: ImportOptions) -> Prepared {
        let data: Data
        do {
            data = try readFile(file.path, display: file.display)
        } catch let error as ReadError {
            return .rejected(file.display, error.reason)
        } catch {
            return .rejected(file.display, "\(error)")
        }
        let claimsImage = imageExtensions.contains((file.name as NSString).pathExtension.lowercased())
        guard ImageFormat.sniff(data) != nil else {
            // Content decides: a file that says it is a photo but is not one is rejected; others are skipped.
            guard claimsImage else { return .skipped }
            return .rejected(file.display, data.isEmpty ? "empty file (0 bytes)" : ImageError.unrecognized("not a JPEG or PNG image").reason)
        }
        do {
            let thumbnail = try Imaging.thumbnail(of: data, maxSide: options.thumbnailSide, quality: 80, limits: options.limits)
            return .image(Photo(filename: file.name, data: data, thumbnail: thumbnail.jpeg, info: thumbnail.info,
                                sha256: SHA256.digest(data).hex))
        } catch let error as ImageError {
            return .rejected(file.display, error.reason)
        } catch {
            return .rejected(file.display, "\(error)")
        }
    }
}

/// A batch being prepared in the background; `wait()` gives its results.
final class PendingBatch: @unchecked Sendable {
    private let group = DispatchGroup()
    private var results: [Library.Prepared] = []

    init(_ files: [FileWalker.Entry], work: @escaping ([FileWalker.Entry]) -> [Library.Prepared]) {
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            self.results = work(files)
            self.group.leave()
        }
    }

    func wait() -> [Library.Prepared] {
        group.wait()
        defer { results = [] }
        return results
    }
}

/// Hands out indexes to worker threads.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}
