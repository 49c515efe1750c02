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
    /// The events of the rolls when the import began: a memory of the roll with this title made
    /// since then (another sync of the roll, at the same time) is continued, not titled apart.
    var known: Set<Int64>
}

/// What `import --by-event` did: the events that changed, and what was not read.
public struct EventsReport: Encodable, Equatable {
    /// One event that took (or would take) photos.
    public struct Event: Encodable, Equatable {
        /// Whether its memory is new (made by this import, or would be in a dry run).
        public var new: Bool
        /// The title it had before this import gave it a wider one (its title was still the one
        /// an import gave it); nil otherwise.
        public var retitledFrom: String?
        /// The import into it. Its `memory` is nil in a dry run of a new event, and when nothing went in.
        public var report: ImportReport
        /// The title of its memory (or the one a dry run would give).
        public var title: String
    }
    /// Events that took photos or whose files were read, in time order.
    public var events: [Event] = []
    /// What the files given to no event came to: unchanged photos of the roll's events (not
    /// read), photos removed from them, and files that are not photos.
    public var unread = ImportReport()
    /// Files that give no capture time: dated by their modification time.
    public var undated = 0
}

extension Library {
    /// A day with no photo (24 hours without one) ends an event.
    public static let defaultEventGap: TimeInterval = 24 * 3600

    /// Imports a camera roll (`import --by-event`) into one memory per event: photos taken with no
    /// gap longer than `gap` between one and the next are one event, titled by its dates
    /// ("12-14 May 2024"). A photo's time is its capture time (a clock reading without an offset
    /// taken in the user's time zone), else the file's modification time.
    ///
    /// Importing the roll again puts new photos into the events it made before: a photo within
    /// `gap` of an event's photos joins it (the nearer one when two are near: events are never
    /// merged, so curation lasts), a file whose path was read before goes to the event its photo
    /// went to, and the rest make new events. An event's title follows its dates as long as it
    /// is the title an import gave it. Files unchanged since they were read are not opened; the
    /// others are read once for their metadata (their first 256 KB, or all of a file whose
    /// capture time is further in), then imported as `importPhotos` imports, event by event.
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
        // The roll's events, and which of them holds (or had removed) each photo.
        let events = try SourceEvents.events(of: rolls, in: context).compactMap { event in
            try memory(withKey: event.memory).map { (memory: $0, given: event.given) }
        }
        var holder: [String: Int64] = [:], removedFrom: [String: Int64] = [:]
        for event in events {
            let key = event.memory.persistentModelID.primaryKey
            for sha256 in try RemovedPhotos.digests(of: key, in: context) { removedFrom[sha256] = key }
            for sha256 in try storedDigests(of: event.memory) { holder[sha256] = key }
        }
        let removed = options.includeRemoved ? [] : Set(removedFrom.keys).subtracting(holder.keys)
        let whole = options.rehash || emptiedStoreNote != nil ? { _ in false } : try storedWhole(of: events.map(\.memory))
        if !options.rehash { files = try skipUnchanged(files, holding: Set(holder.keys), removed: removed, stored: whole, report: &report.unread) }

        // Each file read: to the event its path's photo is in, or dated for grouping.
        let recorded = try SourceIndex.lookup(files.map(\.key), in: context)
        var routed: [Int64: [FileWalker.Entry]] = [:]
        var dated: [(file: FileWalker.Entry, time: Date)] = []
        var rest: [FileWalker.Entry] = []
        for file in files {
            if let sha256 = recorded[file.key]?.sha256, let key = holder[sha256] ?? removedFrom[sha256] {
                routed[key, default: []].append(file)
            } else if let time = Self.eventTime(of: file, options: options, undated: &report.undated) {
                dated.append((file, time))
            } else {
                rest.append(file)
            }
        }
        let spans = try events.compactMap { event in try timeSpan(of: event.memory).map { (event: event.memory.persistentModelID.primaryKey, span: $0) } }
        let grouping = Self.group(dated.map(\.time), events: spans, gap: gap)
        for (index, key) in grouping.joined { routed[key, default: []].append(dated[index].file) }

        // One import per event, in time order; the files that are not photos go with the last.
        var imports: [(first: Date, files: [FileWalker.Entry], event: (memory: Memory, given: String)?, title: String)] = []
        for (key, routedFiles) in routed {
            guard let event = events.first(where: { $0.memory.persistentModelID.primaryKey == key }) else { continue }
            let first = spans.first { $0.event == key }?.span.lowerBound ?? .distantPast
            imports.append((first, routedFiles, event, event.memory.title))
        }
        for group in grouping.new {
            let times = group.map { dated[$0].time }
            imports.append((times.min()!, group.map { dated[$0].file }, nil, EventTitle.of(times.min()!, times.max()!, zone: Display.zone)))
        }
        imports.sort { $0.first < $1.first }
        if !rest.isEmpty {
            if imports.isEmpty {
                let time = rest.map { Date(timeIntervalSince1970: Double($0.identity.modified) / 1e9) }.min()!
                imports.append((time, [], nil, EventTitle.of(time, time, zone: Display.zone)))
            }
            imports[imports.count - 1].files += rest
        }
        let known = Set(events.map { $0.memory.persistentModelID.primaryKey })
        for item in imports {
            var each = options
            each.subfolders = false
            each.event = EventTarget(rolls: rolls, memory: item.event?.memory, title: item.title, known: known)
            let result = try importPhotos(roots: item.files.map { ImportRoot(path: $0.path, display: $0.display) }, options: each, progress: progress)
            var event = EventsReport.Event(new: item.event == nil, report: result, title: result.memory?.title ?? item.title)
            if let existing = item.event, !options.dryRun, existing.memory.title == existing.given, result.imported > 0,
               let span = try timeSpan(of: existing.memory) {
                event.retitledFrom = try retitle(existing.memory, as: EventTitle.of(span.lowerBound, span.upperBound, zone: Display.zone))
                event.title = existing.memory.title
            }
            report.events.append(event)
        }
        return report
    }

    /// The time `importEvents` groups a file by: its capture time (a clock reading without an
    /// offset taken in the user's time zone), else its modification time (counted in `undated`);
    /// nil for a file that is not a photo, or cannot be read or probed (the import says why).
    static func eventTime(of file: FileWalker.Entry, options: ImportOptions, undated: inout Int) -> Date? {
        var modified: Date?
        for prefix in [256 << 10, Int.max] {
            guard case .image(let data, let mtime, _) = ImportFile.read(file, maxSize: options.maxFileSize, prefix: prefix) else { return nil }
            modified = mtime
            let info = try? Imaging.probe(data)
            if let capture = info?.exif.capture {
                return capture.offset == nil ? instant(ofClockReading: capture.date, in: Display.zone) : capture.date
            }
            // All of it was read: what it says is all there is.
            if data.count < prefix || prefix == Int.max {
                guard info != nil else { return nil }
                break
            }
        }
        undated += 1
        return modified
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

    /// Groups `times` with the spans of existing `events`: in time order, a gap longer than `gap`
    /// ends a run. A time in a run with events joins the nearest of them (`joined`: the time's
    /// index and the event); the times of a run without one are a new event (`new`, indices).
    static func group(_ times: [Date], events: [(event: Int64, span: ClosedRange<Date>)], gap: TimeInterval)
        -> (joined: [(Int, Int64)], new: [[Int]]) {
        enum Item { case time(Int), event(Int64) }
        var items: [(span: ClosedRange<Date>, item: Item)] = events.map { ($0.span, .event($0.event)) }
        items += times.enumerated().map { ($0.element...$0.element, .time($0.offset)) }
        items.sort { $0.span.lowerBound != $1.span.lowerBound ? $0.span.lowerBound < $1.span.lowerBound : $0.span.upperBound < $1.span.upperBound }
        var joined: [(Int, Int64)] = [], new: [[Int]] = []
        var run: [(span: ClosedRange<Date>, item: Item)] = []
        func close() {
            let spans = run.compactMap { entry -> (Int64, ClosedRange<Date>)? in
                if case .event(let key) = entry.item { return (key, entry.span) } else { return nil }
            }
            let indices = run.compactMap { entry -> Int? in if case .time(let index) = entry.item { return index } else { return nil } }
            if spans.isEmpty {
                if !indices.isEmpty { new.append(indices) }
            } else {
                for index in indices {
                    let time = times[index]
                    func distance(_ span: ClosedRange<Date>) -> TimeInterval {
                        max(0, span.lowerBound.timeIntervalSince(time), time.timeIntervalSince(span.upperBound))
                    }
                    joined.append((index, spans.min { distance($0.1) < distance($1.1) }!.0))
                }
            }
            run = []
        }
        var end = Date.distantPast
        for entry in items {
            if !run.isEmpty && entry.span.lowerBound.timeIntervalSince(end) > gap { close() }
            end = run.isEmpty ? entry.span.upperBound : max(end, entry.span.upperBound)
            run.append(entry)
        }
        close()
        return (joined, new)
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
                   try SourceEvents.isEvent(taken[0].id, of: target.rolls, in: context) {
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

/// The title of an event, from its first and last day in `zone`: "12 May 2024",
/// "12-14 May 2024", "30 May - 2 Jun 2024", "30 Dec 2024 - 2 Jan 2025". Month names are
/// English abbreviations whatever the locale, so titles do not change with it.
enum EventTitle {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func of(_ first: Date, _ last: Date, zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let a = calendar.dateComponents([.year, .month, .day], from: first)
        let b = calendar.dateComponents([.year, .month, .day], from: last)
        let (y1, m1, d1) = (a.year ?? 1, months[(a.month ?? 1) - 1], a.day ?? 1)
        let (y2, m2, d2) = (b.year ?? 1, months[(b.month ?? 1) - 1], b.day ?? 1)
        if y1 != y2 { return "\(d1) \(m1) \(y1) - \(d2) \(m2) \(y2)" }
        if m1 != m2 { return "\(d1) \(m1) - \(d2) \(m2) \(y1)" }
        if d1 != d2 { return "\(d1)-\(d2) \(m1) \(y1)" }
        return "\(d1) \(m1) \(y1)"
    }
}
