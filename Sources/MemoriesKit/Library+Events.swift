import BlobStore
import Foundation
import Imaging
import OpenSwiftData

/// Where the photos of one event of a camera roll go (`ImportOptions.event`): the event's
/// memory, or a new one titled `title` and linked to the rolls.
struct EventTarget {
    /// The real paths of the rolls the import was given.
    var rolls: [Data]
    var memory: Memory?
    var title: String
    /// The events when the import began, and those it made: a memory of the roll with this title
    /// made since then by another sync of the roll at the same time, whose photos are within
    /// `gap` of `span` (this event's), is continued, not titled apart.
    var known: Set<Int64>
    var span: ClosedRange<Date>?
    var gap: TimeInterval
}

extension Library {
    /// A day with no photo (24 hours without one) ends an event.
    public static let defaultEventGap: TimeInterval = 24 * 3600

    /// Imports a camera roll (`import --by-event`) into one memory per event: photos taken with no
    /// gap longer than `gap` between one and the next are one event, titled by its dates
    /// ("12-14 May 2024"). A photo's time is its capture time (a clock reading without an offset
    /// taken in the user's time zone), else the file's modification time.
    ///
    /// Importing the roll again puts new photos into the events made before. A file unchanged
    /// since it was read is not opened. Any other file is read and hashed first: a photo that an
    /// event of any roll holds stays there (a roll moved, renamed or mounted elsewhere, a
    /// subfolder or parent of it imported, a renamed file: none is imported twice, and the event
    /// is linked to this roll from then on), one removed from an event goes back to it to be
    /// counted as removed, copies of one photo go together, and the rest are placed by time: a
    /// photo within `gap` of an event's photos joins it (the nearer one when two are near: events
    /// are never merged, so curation lasts), the others make new events. An event's title follows
    /// its dates as long as it is the title an import gave it. Then each event's files are
    /// imported as `importPhotos` imports them (read again, hashed, decoded).
    public func importEvents(_ paths: [String], gap: TimeInterval = Library.defaultEventGap, options: ImportOptions,
                             progress: (@Sendable (_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> EventsReport {
        var report = EventsReport()
        let roots = paths.map { ImportRoot($0) }
        let rolls = roots.compactMap { FileWalker.realPath($0.path) }
        var files: [FileWalker.Entry] = []
        var walker = FileWalker()
        walker.subfolders = options.subfolders
        walker.walk(roots, visit: { files.append($0) }, problem: { problem in
            switch problem {
            case .unreadable(let path, let reason): report.unread.rejected.append(.init(path: path, reason: reason))
            case .notFollowed(let path, let reason):
                report.unread.skipped += 1
                report.unread.skippedFiles.append(.init(path: path, reason: reason))
            }
        })
        // The events of every roll (a photo of this one may be held by an event of another
        // under another path), and this roll's own.
        var events: [Int64: (memory: Memory, given: String)] = [:]
        for event in try SourceEvents.allEvents(in: context) {
            if let memory = try memory(withKey: event.memory) { events[event.memory] = (memory, event.given) }
        }
        var ours = Set(try SourceEvents.events(of: rolls, in: context).map(\.memory)).intersection(events.keys)
        var holder: [String: Int64] = [:], removedFrom: [String: Int64] = [:]
        for key in ours {
            for sha256 in try RemovedPhotos.digests(of: key, in: context) { removedFrom[sha256] = key }
            for sha256 in try storedDigests(of: events[key]!.memory) { holder[sha256] = key }
        }
        let removed = options.includeRemoved ? [] : Set(removedFrom.keys).subtracting(holder.keys)
        let whole = options.rehash || emptiedStoreNote != nil ? { _ in false } : try storedWhole(of: ours.compactMap { events[$0]?.memory })
        if !options.rehash { files = try skipUnchanged(files, holding: Set(holder.keys), removed: removed, stored: whole, report: &report.unread) }

        // Each file left: read and hashed (as many at a time as the import decodes), then placed by
        // its digest or dated.
        let surveyed = Self.survey(files, options: options)
        var routed: [Int64: [FileWalker.Entry]] = [:]
        var dated: [(file: FileWalker.Entry, time: Date)] = []
        var copies: [(file: FileWalker.Entry, of: Int)] = []
        var firstBySHA: [String: Int] = [:]
        var rest: [FileWalker.Entry] = []
        for (file, found) in zip(files, surveyed) {
            guard let found else { rest.append(file); continue }
            if let key = try holder[found.sha256] ?? eventHolding(found.sha256, among: events, preferring: ours) ?? removedFrom[found.sha256]
                ?? eventRemoving(found.sha256, among: events) {
                routed[key, default: []].append(file)
                ours.insert(key)
            } else if let first = firstBySHA[found.sha256] {
                copies.append((file, first))
            } else {
                if found.undated { report.undated += 1 }
                firstBySHA[found.sha256] = dated.count
                dated.append((file, found.time))
            }
        }
        let spans = try ours.sorted().compactMap { key in try events[key].flatMap { try timeSpan(of: $0.memory) }.map { (event: key, span: $0) } }
        let grouping = Self.group(dated.map(\.time), events: spans, gap: gap)
        var placed: [Int: Int64] = [:], newGroup: [Int: Int] = [:]
        for (index, key) in grouping.joined {
            routed[key, default: []].append(dated[index].file)
            placed[index] = key
        }
        for (number, group) in grouping.new.enumerated() { for index in group { newGroup[index] = number } }
        var newFiles = grouping.new.map { $0.map { dated[$0].file } }
        for copy in copies {
            if let key = placed[copy.of] {
                routed[key, default: []].append(copy.file)
            } else if let number = newGroup[copy.of] {
                newFiles[number].append(copy.file)
            }
        }

        // One import per event, in time order; the files that are not photos go with the last
        // (or, when no event takes photos, on their own, into no memory).
        struct Item {
            var first: Date
            var files: [FileWalker.Entry]
            var event: (memory: Memory, given: String)?
            var title: String
            var span: ClosedRange<Date>?
        }
        var imports: [Item] = []
        for (key, routedFiles) in routed {
            guard let event = events[key] else { continue }
            imports.append(Item(first: spans.first { $0.event == key }?.span.lowerBound ?? .distantPast, files: routedFiles, event: event,
                                title: event.memory.title, span: nil))
        }
        for (number, group) in grouping.new.enumerated() {
            let times = group.map { dated[$0].time }
            let span = times.min()!...times.max()!
            imports.append(Item(first: span.lowerBound, files: newFiles[number], event: nil,
                                title: EventTitle.of(span.lowerBound, span.upperBound, zone: Display.zone), span: span))
        }
        imports.sort { $0.first < $1.first }
        if !rest.isEmpty {
            guard !imports.isEmpty else {
                var each = options
                each.subfolders = false
                each.event = EventTarget(rolls: rolls, memory: nil, title: "", known: [], span: nil, gap: gap)
                let result = try importPhotos(roots: rest.map { ImportRoot(path: $0.path, display: $0.display) }, options: each, progress: progress)
                report.unread.skipped += result.skipped
                report.unread.skippedFiles += result.skippedFiles
                report.unread.rejected += result.rejected
                return report
            }
            imports[imports.count - 1].files += rest
        }
        var known = Set(events.keys)
        for item in imports {
            var each = options
            each.subfolders = false
            each.event = EventTarget(rolls: rolls, memory: item.event?.memory, title: item.title, known: known, span: item.span, gap: gap)
            let result = try importPhotos(roots: item.files.map { ImportRoot(path: $0.path, display: $0.display) }, options: each, progress: progress)
            var event = EventsReport.Event(new: item.event == nil, report: result, title: result.memory?.title ?? item.title)
            if let existing = item.event, !options.dryRun {
                // Linked to this roll too (it may have been found through its photos' digests).
                try context.immediateTransaction { try SourceEvents.link(rolls, to: existing.memory.id, given: existing.given, in: context) }
                if existing.memory.title == existing.given, result.imported > 0, let span = try timeSpan(of: existing.memory) {
                    event.retitledFrom = try retitle(existing.memory, as: EventTitle.of(span.lowerBound, span.upperBound, zone: Display.zone))
                    event.title = existing.memory.title
                }
            }
            if item.event == nil, !options.dryRun, let id = result.memory.flatMap({ UUID(uuidString: $0.id) }), let made = try fetchMemory(id: id) {
                known.insert(made.persistentModelID.primaryKey)
                // Photos without a capture time date the event by their files' times.
                if let span = item.span {
                    try context.execute(LibrarySQL.dateIfNeverSet,
                                        [.integer(made.persistentModelID.primaryKey), .real(span.lowerBound.timeIntervalSinceReferenceDate)])
                }
            }
            report.events.append(event)
        }
        return report
    }

    /// What `survey` learns of a file: its SHA-256, the time it is grouped by, and whether that
    /// is its file's modification time (it gives no capture time).
    struct Surveyed: Sendable {
        var sha256: String
        var time: Date
        var undated: Bool
    }

    /// Reads and hashes each file, `options.jobs` at a time (nil: not a photo, or it cannot be read
    /// or probed; the import says why). Each thread writes only the slots of the files it took.
    static func survey(_ files: [FileWalker.Entry], options: ImportOptions) -> [Surveyed?] {
        var results = [Surveyed?](repeating: nil, count: files.count)
        results.withUnsafeMutableBufferPointer { slots in
            try? concurrentForEach(files.count, jobs: options.jobs) { index in slots[index] = eventTime(of: files[index], options: options) }
        }
        return results
    }

    /// The event of `events` that holds the photo `sha256`, one of `preferred` first.
    func eventHolding(_ sha256: String, among events: [Int64: (memory: Memory, given: String)], preferring preferred: Set<Int64>) throws -> Int64? {
        let holders = try context.query(LibrarySQL.memoriesHoldingPhoto, [.text(sha256)]).compactMap { $0.first?.int64Value }.filter { events[$0] != nil }
        return holders.first(where: preferred.contains) ?? holders.min()
    }

    /// The event of `events` the photo `sha256` was removed from, if any.
    func eventRemoving(_ sha256: String, among events: [Int64: (memory: Memory, given: String)]) throws -> Int64? {
        try RemovedPhotos.memories(removing: sha256, in: context).filter { events[$0] != nil }.min()
    }

    /// The time `importEvents` groups a file by, with its SHA-256 (see `Surveyed`).
    static func eventTime(of file: FileWalker.Entry, options: ImportOptions) -> Surveyed? {
        guard case .image(let data, let modified, _) = ImportFile.read(file, maxSize: options.maxFileSize),
              let info = try? Imaging.probe(data) else { return nil }
        let sha256 = SHA256.digest(data).hex
        guard let capture = info.exif.capture else { return Surveyed(sha256: sha256, time: modified, undated: true) }
        return Surveyed(sha256: sha256, time: capture.offset == nil ? instant(ofClockReading: capture.date, in: Display.zone) : capture.date,
                        undated: false)
    }

    /// The first and last time of the photos of `memory` (as `eventTime` gives them), if it has any.
    func timeSpan(of memory: Memory) throws -> ClosedRange<Date>? {
        var first: Date?, last: Date?
        for row in try context.query(LibrarySQL.timesOfMemory, [.integer(memory.persistentModelID.primaryKey)]) where row.count == 3 {
            let time: Date
            if let seconds = row[0].doubleValue {
                let stored = Date(timeIntervalSinceReferenceDate: seconds)
                time = row[1] == .null ? Self.instant(ofClockReading: stored, in: Display.zone) : stored
            } else if let seconds = row[2].doubleValue {
                time = Date(timeIntervalSinceReferenceDate: seconds)
            } else {
                continue
            }
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        guard let first, let last else { return nil }
        return first...last
    }

    /// The memory of a new event titled `title` (`title (2)`, … when another memory has it) and
    /// the lock to hold until its first photos are committed (as `claimTitle`). A memory of one
    /// of `rolls` with the title, made since the import began (`known` did not hold it: another
    /// sync of the roll at the same time), is continued instead.
    func claimEvent(_ title: String, of target: EventTarget, options: ImportOptions) throws -> (memory: Memory, lock: FileLock) {
        let lock = try lockMemberships()
        do {
            for n in 1... {
                let candidate = n == 1 ? title : "\(title) (\(n))"
                let taken = try memories(titled: candidate)
                if taken.count == 1, !target.known.contains(taken[0].persistentModelID.primaryKey),
                   try SourceEvents.isEvent(taken[0].id, of: target.rolls, in: context),
                   let ours = target.span, let theirs = try timeSpan(of: taken[0]),
                   theirs.lowerBound.timeIntervalSince(ours.upperBound) <= target.gap,
                   ours.lowerBound.timeIntervalSince(theirs.upperBound) <= target.gap {
                    return (taken[0], lock)
                }
                guard taken.isEmpty else { continue }
                let now = Date()
                let memory = Memory(title: candidate, date: options.date ?? now, notes: options.notes ?? "")
                memory.createdAt = now
                context.insert(memory)
                return (memory, lock)
            }
            fatalError("unreachable")
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Gives an event's memory the title its dates give now, unless another memory has it;
    /// returns the title it had, or nil when it keeps it.
    func retitle(_ memory: Memory, as title: String) throws -> String? {
        let old = memory.title
        guard title != old else { return nil }
        let lock = try lockMemberships()
        defer { lock.unlock() }
        guard try memories(titled: title).isEmpty else { return nil }
        memory.title = title
        try context.save()
        try context.immediateTransaction { try SourceEvents.retitled(memory.id, given: title, in: context) }
        return old
    }
}
