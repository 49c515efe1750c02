import BlobStore
import Foundation
import Imaging
import OpenSwiftData

/// What `import` is asked to do.
public struct ImportOptions {
    /// The memory's title: a new memory, or the one with exactly this title (default: the folder's name).
    public var title: String?
    /// An existing memory (id, id prefix or title) to add the photos to.
    public var into: String?
    /// The memory's date (default: its earliest photo's capture time).
    public var date: Date?
    /// The new memory's notes.
    public var notes: String?
    /// Reads, validates and reports; stores nothing.
    public var dryRun = false
    /// Decoding and hashing threads (default: the core count). SQLite sees one writer.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Images committed per transaction, at most.
    public var batchSize = 24
    /// A batch holds at most this many bytes of originals (a file over `maxFileSize` counts as
    /// nothing: it is refused unread), and always one file: two batches are in memory at once (one
    /// stored while the next is decoded), so this bounds the import's memory, not the photo count.
    public var batchBytes: Int64 = 24 << 20
    /// What the decodes running at once may hold together (`DecodeBudget`): with the two batches
    /// of originals (48 MB) and the program's own (~36 MB), this bounds the import's memory at any
    /// `jobs`, under 200 MB. (At 128 MB with 32 MB batches, two 22-megapixel progressive photos
    /// decoding at once took the import to 198-209 MB.) A single decode larger than this runs alone.
    public var decodeBytes = 112 << 20
    /// The thumbnail's longest side in pixels.
    public var thumbnailSide = 256
    /// What a photo may declare before it is refused unread (decompression bombs).
    public var limits = ImageLimits.default
    /// A photo larger than this is rejected with its size, unread (files that are not photos are
    /// skipped whatever their size, after reading their first bytes).
    public var maxFileSize: Int64 = ImportOptions.defaultMaxFileSize

    /// The bytes a file of `size` holds in memory while imported: none when it is over
    /// `maxFileSize` (refused unread). Batches and the workers' lead are bounded by it.
    func heldBytes(_ size: Int64) -> Int64 { size <= maxFileSize ? size : 0 }
    /// 512 MiB.
    public static let defaultMaxFileSize: Int64 = 512 << 20
    /// Where the time goes, when set (`MEMORIES_IMPORT_STAGES=1` in the command line program).
    public var stages: ImportStages?

    /// The defaults: a memory titled after the folder, every core.
    public init() {}
}

/// What `import` did, as printed with `--json`.
public struct ImportReport: Codable, Equatable {
    /// The memory the photos went into.
    public struct MemoryRef: Codable, Equatable {
        /// Its id, lower-case.
        public var id: String
        /// Its title.
        public var title: String
    }
    /// A file not imported, and why.
    public struct Rejection: Codable, Equatable {
        /// The path as given (for messages).
        public var path: String
        /// Why, in words: the decoder's reason for a damaged photo, the kind of file for a skipped one.
        public var reason: String
    }
    /// nil when nothing went in and the memory made for it was removed again.
    public var memory: MemoryRef?
    /// Photos added.
    public var imported = 0
    /// Photos not added again: `alreadyInMemory` plus `repeatedInFolders`.
    public var duplicates = 0
    /// Photos the memory held before this import.
    public var alreadyInMemory = 0
    /// Photos found more than once in what was imported (the same bytes under two names).
    public var repeatedInFolders = 0
    /// Files that are not photos (videos, GIFs, hidden files…), skipped.
    public var skipped = 0
    /// Every skipped file with the reason (a video, a GIF, hidden, not an image…).
    public var skippedFiles: [Rejection] = []
    /// Photos that could not be imported (damaged, too large, unreadable), with the reason.
    public var rejected: [Rejection] = []
    /// Photos whose stored copy was damaged or missing and was rewritten from the file imported.
    public var repaired: [String] = []
    /// Photos imported whose file gives a capture time outside the years 1–9999 (after its
    /// offset), which was not used: the path, and what was not used and what the photo went by.
    public var unusableDates: [Rejection] = []
}

extension Library {
    /// Imports photos: every JPEG, PNG, HEIC, AVIF and WebP (by content) under `paths`, validated, thumbnailed and
    /// stored once; other files skipped; invalid images rejected with their reason.
    ///
    /// Work happens in batches: worker threads decode, thumbnail and hash a batch; this thread
    /// inserts it and saves (blobs durable first, then one SQLite transaction). A killed import
    /// leaves whole batches; running it again skips what is there and adds the rest.
    /// `progress` is told, from the worker threads, each time a file has been read and checked:
    /// files done, files in all, bytes read so far.
    public func importPhotos(_ paths: [String], options: ImportOptions,
                             progress: (@Sendable (_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> ImportReport {
        var report = ImportReport()
        var files: [FileWalker.Entry] = []
        FileWalker().walk(paths, visit: { files.append($0) }, problem: { problem in
            switch problem {
            case .unreadable(let path, let reason): report.rejected.append(.init(path: path, reason: reason))
            case .notFollowed(let path, let reason):
                report.skipped += 1
                report.skippedFiles.append(.init(path: path, reason: reason))
            }
        })
        var memory: Memory?
        var created = false
        if options.dryRun {
            memory = try options.into.map(resolve)
        } else {
            let target = try targetMemory(for: paths, options: options)
            (memory, created) = (target.0, target.1)
        }
        if let memory { report.memory = .init(id: memory.id.uuidString.lowercased(), title: memory.title) }
        let preexisting = try memory.map(storedDigests(of:)) ?? []
        var known = preexisting
        var done = 0
        var start = 0
        let sizes = files.map(\.size)
        let counter = ProgressCounter(total: files.count, report: progress)
        // The files are read, validated and hashed on the worker threads, ahead of this thread's
        // saves by at most two batches of originals: decoding never waits for a save to finish.
        let budget = DecodeBudget(bytes: options.decodeBytes)
        let pipeline = PreparePipeline(files: files, sizes: sizes.map(options.heldBytes),
                                       jobs: options.jobs, limit: 2 * options.batchBytes, stages: options.stages) { file in
            let item = Self.prepare(file, options: options, budget: budget)
            if case .image(let photo) = item { counter.add(bytes: Int64(photo.data.count)) } else { counter.add(bytes: 0) }
            return item
        }
        // A failure (a full disk) must not leave files being decoded on other threads while the
        // process exits: the workers finish first.
        defer {
            pipeline.stop()
            // Counted inside the decodes' time; shown on its own.
            options.stages?.move(budget.secondsWaited, from: .thumbnail, to: .decodeMemory)
        }
        var importedHere = Set<String>()
        while start < files.count {
            let batch = start..<Self.batchEnd(sizes, from: start, options: options)
            start = batch.upperBound
            let prepared = timed(options.stages, .waiting) { pipeline.take(batch) }
            // Its originals count against the workers' lead until it is saved (or skipped).
            defer { pipeline.release(batch) }
            let recording = DispatchTime.now().uptimeNanoseconds
            let stored = try memory.map { options.dryRun ? [] : try storedDigests(of: $0) } ?? []
            known.formUnion(stored)
            var inserted: [String: String] = [:]  // SHA-256 → path, to name what a save repaired
            let repairedBefore = container.repairedBlobs.count
            for item in prepared {
                done += 1
                switch item {
                case .skipped(let path, let reason):
                    report.skipped += 1
                    report.skippedFiles.append(.init(path: path, reason: reason))
                case .rejected(let path, let reason):
                    report.rejected.append(.init(path: path, reason: reason))
                case .image(let photo):
                    guard known.insert(photo.sha256).inserted else {
                        report.duplicates += 1
                        // A photo this import added (in an earlier batch, so now stored) is a
                        // repeat within the folders, not one the memory had.
                        if !importedHere.contains(photo.sha256) && (stored.contains(photo.sha256) || preexisting.contains(photo.sha256)) {
                            report.alreadyInMemory += 1
                        } else {
                            report.repeatedInFolders += 1
                        }
                        // Already committed to the memory: the import still proves its stored copy
                        // whole (a duplicate costs one re-hash) and repairs it from these bytes if it
                        // is not. A repeat within this batch is not stored yet: nothing to check.
                        if stored.contains(photo.sha256), try blobs.ensure(photo.digest, from: photo.data) != .intact {
                            report.repaired.append(photo.path)
                        }
                        continue
                    }
                    report.imported += 1
                    importedHere.insert(photo.sha256)
                    if let note = Self.unusableDateNote(photo.info.exif) { report.unusableDates.append(.init(path: photo.path, reason: note)) }
                    guard let memory, !options.dryRun else { continue }
                    let image = MemoryImage(filename: photo.filename, sha256: photo.sha256, format: photo.info.format.rawValue,
                                            width: photo.info.width, height: photo.info.height, byteCount: photo.data.count)
                    image.imageData = photo.data
                    context.noteExternalDigest(photo.digest, of: photo.data)  // hashed once, above
                    image.thumbnailData = photo.thumbnail
                    let capture = photo.info.exif.capture
                    image.takenAt = capture?.date
                    image.takenAtOffset = capture?.offset
                    image.fileModifiedAt = photo.modified
                    image.orientation = photo.info.exif.orientation
                    image.cameraMake = photo.info.exif.make
                    image.cameraModel = photo.info.exif.model
                    context.insert(image)
                    image.memory = memory
                    inserted[photo.sha256] = photo.path
                }
            }
            options.stages?.add(.records, since: recording)
            guard let memory, !options.dryRun else { continue }
            do {
                try timed(options.stages, .save) { try context.save() }
            } catch let error as SQLiteError where error.code == 787 /* SQLITE_CONSTRAINT_FOREIGNKEY */ {
                // The memory's row went away under this import (a concurrent delete).
                context.rollback()
                throw LibraryError.memoryDeletedDuringImport(memory.title)
            }
            // A photo stored by another memory whose copy was damaged: the save's put rewrote it.
            for digest in container.repairedBlobs.dropFirst(repairedBefore) {
                if let path = inserted[digest.hex] { report.repaired.append(path) }
            }
        }
        if let memory, !options.dryRun, options.date == nil { try dateFromPhotos(memory) }
        if let memory, created, report.imported == 0, report.duplicates == 0 {
            // Nothing went in: the memory made for it goes, unless photos reached it meanwhile
            // (another import of the same title), in one statement.
            let key = memory.persistentModelID.primaryKey
            try context.execute(LibrarySQL.deleteIfEmpty, [.integer(key)])
            if try context.query(LibrarySQL.memoryExists, [.integer(key)]).isEmpty { report.memory = nil }
        }
        return report
    }

    /// `--into` names an existing memory; `--title` creates one, or continues the one with that exact title.
    ///
    /// Two imports creating the same title at once both insert; each then looks again, and the one
    /// whose row is not the oldest of that title deletes it and continues the oldest. Both agree
    /// on the oldest (the lowest key): its row committed before any other of the title.
    /// Also says whether this call created it.
    func targetMemory(for paths: [String], options: ImportOptions) throws -> (Memory, Bool) {
        if let into = options.into { return (try resolve(into), false) }
        let title = options.title ?? URL(fileURLWithPath: paths.first ?? "Import").standardizedFileURL.lastPathComponent
        var existing = try memories(titled: title)
        // Two imports racing to create this title leave two rows for a moment, until the younger
        // sees the older and deletes its own: wait that out before calling the title ambiguous.
        for _ in 0..<100 where existing.count > 1 {
            usleep(20_000)
            existing = try memories(titled: title)
        }
        if existing.count == 1 { return (existing[0], false) }
        if existing.count > 1 { throw LibraryError.ambiguousMemory(title, candidates: existing.map(describe)) }
        let now = Date()
        let memory = Memory(title: title, date: options.date ?? now, notes: options.notes ?? "")
        memory.createdAt = now
        context.insert(memory)
        try context.save()
        let raced = try memories(titled: title)
        guard let oldest = raced.first, oldest !== memory else { return (memory, true) }
        context.delete(memory)
        try context.save()
        return (oldest, false)
    }

    /// The memories with exactly this title, oldest row first.
    func memories(titled title: String) throws -> [Memory] {
        try context.fetch(FetchDescriptor<Memory>(predicate: #Predicate { $0.title == title }))
            .sorted { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }
    }

    /// A memory whose date was never given (it still equals its creation time, as the import set
    /// it) takes its earliest photo's capture time. Read and set in one write transaction, the
    /// update conditional: a date set meanwhile by `edit` in another process is never
    /// overwritten, and photos another import adds cannot come between the two.
    ///
    /// A camera that records no time zone gives its clock's reading, stored as if it were UTC
    /// (and shown as written, marked `*`). For the memory's date that reading is taken in the
    /// user's time zone: stored as UTC, the memory of a photo taken at 03:00 was dated the day
    /// before everywhere west of Greenwich, and `show` contradicted itself.
    func dateFromPhotos(_ memory: Memory, zone: TimeZone = Display.zone) throws {
        let key = memory.persistentModelID.primaryKey
        try context.immediateTransaction {
            var earliest: Date?
            for row in try context.query(LibrarySQL.captureTimesOfMemory, [.integer(key)]) {
                guard row.count == 2, let seconds = row[0].doubleValue else { continue }
                let stored = Date(timeIntervalSinceReferenceDate: seconds)
                let instant = row[1] == .null ? Self.instant(ofClockReading: stored, in: zone) : stored
                if earliest.map({ instant < $0 }) ?? true { earliest = instant }
            }
            guard let earliest else { return }
            try context.execute(LibrarySQL.dateIfNeverSet, [.integer(key), .real(earliest.timeIntervalSinceReferenceDate)])
        }
    }

    /// The instant a clock in `zone` reads as `reading` shows in UTC (a reading daylight saving
    /// skips: the end of the gap, as Calendar moves it).
    static func instant(ofClockReading reading: Date, in zone: TimeZone) -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        var local = utc
        local.timeZone = zone
        let parts = utc.dateComponents([.era, .year, .month, .day, .hour, .minute, .second, .nanosecond], from: reading)
        return local.date(from: parts) ?? reading
    }

    /// What a file's capture times outside the years 1–9999 come to: not used, and what the photo
    /// is dated by instead (nil when there are none).
    static func unusableDateNote(_ exif: ExifInfo) -> String? {
        let unusable = exif.unusableDates
        guard !unusable.isEmpty else { return nil }
        let used = exif.captureSource.map { "dated by its \($0) instead" } ?? "it has no other capture time"
        return "its capture time \(unusable.joined(separator: " and ")) is outside the years 1-9999 and was not used; \(used)"
    }

    func storedDigests(of memory: Memory) throws -> Set<String> {
        Set(try context.query(LibrarySQL.digestsOfMemory, [.integer(memory.persistentModelID.primaryKey)])
            .compactMap { $0.first?.stringValue })
    }

    enum PreparedFile {
        case image(Photo)
        case skipped(String, String)
        case rejected(String, String)
    }

    struct Photo {
        var filename: String
        /// The path as given, for messages.
        var path: String
        var data: Data
        var thumbnail: Data
        var info: ImageInfo
        /// The original's SHA-256, computed once here: the save stores the bytes under it.
        var digest: BlobDigest
        var sha256: String { digest.hex }
        var modified: Date
    }

    /// Where the batch that begins at `start` ends: at most `batchSize` files and `batchBytes` bytes
    /// (a file over `maxFileSize` counts as none: it is refused unread), and at least one file.
    static func batchEnd(_ sizes: [Int64], from start: Int, options: ImportOptions) -> Int {
        var end = start, bytes: Int64 = 0
        while end < sizes.count && end - start < max(1, options.batchSize) {
            let size = options.heldBytes(sizes[end])
            if end > start && bytes + size > options.batchBytes { break }
            bytes += size
            end += 1
        }
        return end
    }

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "jfif", "png", "heic", "heif", "hif", "avif", "webp"]

    static func prepare(_ file: FileWalker.Entry, options: ImportOptions, budget: DecodeBudget? = nil) -> PreparedFile {
        let claimsImage = imageExtensions.contains((file.name as NSString).pathExtension.lowercased())
        let data: Data
        let modified: Date
        switch timed(options.stages, .read, { ImportFile.read(file, maxSize: options.maxFileSize) }) {
        case .rejected(let reason):
            return .rejected(file.display, reason)
        case .notAnImage(let header):
            // Content decides: a file that says it is a photo but is not one is rejected; others are skipped.
            let kind = ImageFormat.unsupportedKind(header)
            guard claimsImage else { return .skipped(file.display, kind ?? "not an image") }
            return .rejected(file.display, header.isEmpty ? "empty file (0 bytes)" : ImageError.unrecognized(kind ?? "not \(ImageFormat.acceptedNames)").reason)
        case .image(let bytes, let mtime):
            data = bytes
            modified = mtime
        }
        do {
            let thumbnail = try timed(options.stages, .thumbnail) {
                try Imaging.thumbnail(of: data, maxSide: options.thumbnailSide, quality: 80, limits: options.limits, budget: budget)
            }
            let digest = timed(options.stages, .hash) { SHA256.digest(data) }
            return .image(Photo(filename: file.name, path: file.display, data: data, thumbnail: thumbnail.jpeg, info: thumbnail.info,
                                digest: digest, modified: modified))
        } catch let error as ImageError {
            return .rejected(file.display, error.reason)
        } catch {
            return .rejected(file.display, "\(error)")
        }
    }
}

/// Counts files as the workers finish them, for a progress display.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    private var bytes: Int64 = 0
    let total: Int
    let report: (@Sendable (Int, Int, Int64) -> Void)?

    init(total: Int, report: (@Sendable (Int, Int, Int64) -> Void)?) {
        self.total = total
        self.report = report
    }

    func add(bytes read: Int64) {
        guard let report else { return }
        lock.lock()
        done += 1
        bytes += read
        let (d, b) = (done, bytes)
        lock.unlock()
        report(d, total, b)
    }
}
