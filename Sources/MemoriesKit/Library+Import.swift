import BlobStore
import BlobStoreS3
import Foundation
import Imaging
import OpenSwiftData

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
        try importPhotos(roots: paths.map { ImportRoot($0) }, options: options, progress: progress)
    }

    /// `importPhotos(_:options:progress:)` for paths given as bytes (`eventFolders` finds them).
    public func importPhotos(roots paths: [ImportRoot], options: ImportOptions,
                             progress: (@Sendable (_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> ImportReport {
        var report = ImportReport()
        var files: [FileWalker.Entry] = []
        var walker = FileWalker()
        walker.subfolders = options.subfolders
        walker.walk(paths, visit: { files.append($0) }, problem: { problem in
            switch problem {
            case .unreadable(let path, let reason): report.rejected.append(.init(path: path, reason: reason))
            case .notFollowed(let path, let reason):
                report.skipped += 1
                report.skippedFiles.append(.init(path: path, reason: reason))
            }
        })
        // The memory: one named by --into or by its title, or a new one, made with the first photo
        // that goes in (`newTitle` until then), so that no import, failed or killed, leaves an
        // empty memory behind.
        var memory: Memory?
        var newTitle: String?
        var apart = false
        // A memory titled by its folder's name is linked to that folder (`SourceFolders`).
        let folder = options.title == nil && options.into == nil && options.event == nil ? paths.first.flatMap { FileWalker.realPath($0.path) } : nil
        switch try targetMemory(for: paths.map(\.display), options: options, folder: folder, report: &report) {
        case .existing(let found): memory = found
        // The memory the real run would add to, if there is one: its photos are not new.
        case .new(let title, let other) where !options.dryRun: (newTitle, apart) = (title, other)
        case .new(let title, let other): report.titledApartFrom = other ? title : nil
        }
        if let memory { report.memory = .init(id: memory.id.uuidString.lowercased(), title: memory.title) }
        // Held from the moment a new memory's title is claimed to the commit of its first photos.
        var titleLock: FileLock?
        defer { titleLock?.unlock() }
        // A new event's memory: linked to its roll with the first batch's records, before the save.
        var madeEvent: (rolls: [Data], id: UUID, title: String)?
        let preexisting = try memory.map(storedDigests(of:)) ?? []
        // Photos removed from the memory earlier: left out, unless asked for (then forgotten).
        var removedBefore = try memory.map { try RemovedPhotos.digests(of: $0.persistentModelID.primaryKey, in: context) } ?? []
        var removed = options.includeRemoved ? [] : removedBefore
        // Nothing is taken as stored when asked to read everything, or when the store holds none of
        // the library's photos (its objects deleted): every file is read and decoded, and puts back
        // what it can.
        let whole = options.rehash || emptiedStoreNote != nil ? { _ in false } : try storedWhole(of: memory)
        if !options.rehash { files = try skipUnchanged(files, holding: preexisting, removed: removed, stored: whole, report: &report) }
        // A file read whose digest is a photo the memory holds whole, or one removed from it, is
        // hashed and not decoded (its bytes were proven when first imported): a renamed or moved
        // photo costs a hash. --rehash decodes everything, to remake damaged thumbnails too.
        let heldWhole = preexisting, leftOut = removed
        let undecoded: @Sendable (String) -> Bool = { leftOut.contains($0) || (heldWhole.contains($0) && whole($0)) }
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
            let item = Self.prepare(file, options: options, budget: budget, undecoded: undecoded)
            switch item {
            case .image(let photo): counter.add(bytes: Int64(photo.data.count))
            case .known(let photo): counter.add(bytes: Int64(photo.data.count))
            default: counter.add(bytes: 0)
            }
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
            var stored = try memory.map { options.dryRun ? [] : try storedDigests(of: $0) } ?? []
            known.formUnion(stored)
            var inserted: [String: String] = [:]  // SHA-256 → path, to name what a save repaired
            let repairedBefore = container.repairedBlobs.count
            // What each file read was, recorded once this batch is committed.
            var records: [(path: Data, identity: FileIdentity, sha256: String?, skipped: String?)] = []
            for item in prepared {
                done += 1
                switch item {
                case .skipped(let path, let reason, let source):
                    report.skipped += 1
                    report.skippedFiles.append(.init(path: path, reason: reason))
                    if let source { records.append((source.key, source.identity, nil, reason)) }
                case .rejected(let path, let reason):
                    report.rejected.append(.init(path: path, reason: reason))
                case .known(let photo):
                    if let identity = photo.identity { records.append((photo.key, identity, photo.sha256, nil)) }
                    if removed.contains(photo.sha256) && !known.contains(photo.sha256) {
                        report.removedEarlier += 1
                        continue
                    }
                    known.insert(photo.sha256)
                    report.duplicates += 1
                    report.alreadyInMemory += 1
                    // Its stored copy proven whole from these bytes, as any duplicate's (its
                    // thumbnail was found there before it was read).
                    if stored.contains(photo.sha256), !options.dryRun, try blobs.ensure(photo.digest, from: photo.data) != .intact {
                        report.repaired.append(photo.path)
                    }
                case .image(let photo):
                    if let identity = photo.identity { records.append((photo.key, identity, photo.sha256, nil)) }
                    if memory == nil, let title = newTitle {
                        // The first photo to go in: the title is claimed now (another import may
                        // have made it meanwhile: then that memory is the one, with its photos).
                        let claim = try options.event.map { try claimEvent(title, of: $0, options: options) }
                            ?? claimTitle(title, options: options, apartFrom: apart ? folder : nil,
                                          year: Self.year(of: photo.info.exif.capture?.date ?? photo.modified))
                        if let event = options.event, claim.memory.persistentModelID.isTemporary { madeEvent = (event.rolls, claim.memory.id, claim.memory.title) }
                        (memory, titleLock, newTitle) = (claim.memory, claim.lock, nil)
                        if claim.memory.title != title && options.event == nil { report.titledApartFrom = title }
                        report.memory = .init(id: claim.memory.id.uuidString.lowercased(), title: claim.memory.title)
                        stored = try storedDigests(of: claim.memory)
                        known.formUnion(stored)
                        removedBefore = try RemovedPhotos.digests(of: claim.memory.persistentModelID.primaryKey, in: context)
                        if !options.includeRemoved { removed = removedBefore }
                    }
                    if removed.contains(photo.sha256) && !known.contains(photo.sha256) {
                        report.removedEarlier += 1
                        continue
                    }
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
                        if stored.contains(photo.sha256), let memory {
                            if try blobs.ensure(photo.digest, from: photo.data) != .intact { report.repaired.append(photo.path) }
                            if try restoreThumbnail(of: photo, in: memory) { report.thumbnailsRemade.append(photo.path) }
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
            guard !options.dryRun else { continue }
            // Recorded before the save writes a photo: a row is checked against the memory's
            // photos before it is trusted, so one whose batch never commits costs a read, and it
            // tells verify that photos stored by a killed first import are an import's leftovers.
            try SourceIndex.record(records, in: context)
            if let made = madeEvent {
                try context.immediateTransaction { try SourceEvents.link(made.rolls, to: made.id, given: made.title, in: context) }
                madeEvent = nil
            }
            guard let memory else { continue }
            // Saved under titles.lock (held already for a new memory's first photos): a merge,
            // move or remove reads a memory's photos and saves under it, so no batch is committed
            // in between (a merge then deleted the memory, and left the batch in no memory).
            let batchLock = titleLock == nil ? try lockMemberships() : nil
            defer { batchLock?.unlock() }
            do {
                try timed(options.stages, .save) { try context.save() }
            } catch let error as SQLiteError where error.code == 787 /* SQLITE_CONSTRAINT_FOREIGNKEY */ {
                // The memory's row went away under this import (a concurrent delete).
                context.rollback()
                throw LibraryError.memoryDeletedDuringImport(memory.title)
            } catch let error as S3Error {
                // Said with the photo the service failed on (its key names its SHA-256), what it
                // answered, and what was kept.
                context.rollback()
                let reason = error.localizedDescription
                let photo = inserted.first { reason.contains($0.key) }?.value
                throw LibraryError.batchNotStored(photo: photo, photos: inserted.count, added: report.imported - inserted.count, reason: reason)
            }
            // The new memory is committed with its first photos: another import may now find it.
            titleLock?.unlock()
            titleLock = nil
            // A photo stored by another memory whose copy was damaged: the save's put rewrote it.
            for digest in container.repairedBlobs.dropFirst(repairedBefore) {
                if let path = inserted[digest.hex] { report.repaired.append(path) }
            }
            // Back in the memory, so no longer removed from it.
            let back = inserted.keys.filter(removedBefore.contains)
            if !back.isEmpty { try context.immediateTransaction { try RemovedPhotos.forget(back, memory: memory.persistentModelID.primaryKey, in: context) } }
            if let folder { try SourceFolders.link(folder, to: memory.persistentModelID.primaryKey, in: context) }
        }
        if let memory, !options.dryRun, options.date == nil { try dateFromPhotos(memory) }
        return report
    }

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

    /// A photo the memory holds already: its stored thumbnail, when missing or damaged (a bucket
    /// whose objects were deleted, a damaged folder), is stored again from the one just made,
    /// under its own name when the bytes are the same, else as the photo's new thumbnail (saved
    /// with the batch). Returns whether it was.
    func restoreThumbnail(of photo: Photo, in memory: Memory) throws -> Bool {
        let key = memory.persistentModelID.primaryKey
        guard let row = try context.query(LibrarySQL.thumbnailOfPhoto, [.integer(key), .text(photo.sha256)]).first,
              let stored = row.first?.stringValue.flatMap({ BlobDigest(hex: $0) }) else { return false }
        if SHA256.digest(photo.thumbnail) == stored { return try blobs.ensure(stored, from: photo.thumbnail) != .intact }
        do {
            _ = try blobs.readVerified(stored)
            return false
        } catch let error as BlobStoreError where error.isDamage {
            let sha = photo.sha256
            guard let image = try context.fetch(FetchDescriptor<MemoryImage>(predicate: #Predicate { $0.sha256 == sha }))
                .first(where: { $0.memory?.persistentModelID.primaryKey == key }) else { return false }
            image.thumbnailData = photo.thumbnail
            return true
        }
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
        /// A photo the memory holds whole, or one removed from it: hashed, not decoded.
        case known(Known)
        /// The path, why, and what to record of the file (nil: it changed while it was read).
        case skipped(String, String, source: (key: Data, identity: FileIdentity)?)
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
        /// The file's key in the library's record of imported files, and its identity when it
        /// did not change while it was read.
        var key: Data
        var identity: FileIdentity?
    }

    /// A file whose digest the memory knows (see `PreparedFile.known`).
    struct Known {
        var path: String
        var data: Data
        var digest: BlobDigest
        var sha256: String { digest.hex }
        var key: Data
        var identity: FileIdentity?
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

    static func prepare(_ file: FileWalker.Entry, options: ImportOptions, budget: DecodeBudget? = nil,
                        undecoded: (String) -> Bool = { _ in false }) -> PreparedFile {
        let claimsImage = imageExtensions.contains((file.name as NSString).pathExtension.lowercased())
        let data: Data
        let modified: Date
        let identity: FileIdentity?
        switch timed(options.stages, .read, { ImportFile.read(file, maxSize: options.maxFileSize) }) {
        case .rejected(let reason):
            return .rejected(file.display, reason)
        case .notAnImage(let header, let seen):
            // Content decides: a file that says it is a photo but is not one is rejected; others are skipped.
            let kind = ImageFormat.unsupportedKind(header)
            guard claimsImage else { return .skipped(file.display, kind ?? "not an image", source: seen.map { (file.key, $0) }) }
            return .rejected(file.display, header.isEmpty ? "empty file (0 bytes)" : ImageError.unrecognized(kind ?? "not \(ImageFormat.acceptedNames)").reason)
        case .image(let bytes, let mtime, let seen):
            data = bytes
            modified = mtime
            identity = seen
        }
        let digest = timed(options.stages, .hash) { SHA256.digest(data) }
        if undecoded(digest.hex) { return .known(Known(path: file.display, data: data, digest: digest, key: file.key, identity: identity)) }
        do {
            let thumbnail = try timed(options.stages, .thumbnail) {
                try Imaging.thumbnail(of: data, maxSide: options.thumbnailSide, quality: 80, limits: options.limits, budget: budget)
            }
            return .image(Photo(filename: file.name, path: file.display, data: data, thumbnail: thumbnail.jpeg, info: thumbnail.info,
                                digest: digest, modified: modified, key: file.key, identity: identity))
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
