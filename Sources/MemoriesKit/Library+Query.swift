import Foundation
import OpenSwiftData

/// One line of `list`, computed in SQL (no image bytes read).
public struct MemorySummary: Codable, Equatable {
    /// The memory's id, lower-case.
    public var id: String
    /// Its title.
    public var title: String
    /// Its date, ISO 8601 in the user's time zone.
    public var date: String
    /// How many photos it holds.
    public var imageCount: Int
    /// Their originals' bytes together.
    public var bytes: Int
}

/// `show`'s view of a memory.
public struct MemoryDetail: Codable, Equatable {
    /// One photo, in display order (capture time, then file name).
    public struct Image: Codable, Equatable {
        /// The photo's id, lower-case.
        public var id: String
        /// The name it was imported under.
        public var filename: String
        /// The original's SHA-256 (its blob's name).
        public var sha256: String
        /// "jpeg", "png", "heic", "avif" or "webp".
        public var format: String
        /// Pixels across, as the decoder gives them (see `MemoryImage.width`).
        public var width: Int
        /// Pixels down, likewise.
        public var height: Int
        /// The original's size.
        public var bytes: Int
        /// ISO 8601 at the offset the photo was taken at; with `Z` when the file gave no offset
        /// (`takenAtZoneKnown` false: the camera's clock as written).
        public var takenAt: String?
        /// Whether the file gave the offset it was taken at (nil without a capture time).
        public var takenAtZoneKnown: Bool?
        /// The file's modification time when imported, in the user's time zone.
        public var fileModifiedAt: String?
        /// Its caption, if one was given.
        public var caption: String?
    }
    /// The memory's id, lower-case.
    public var id: String
    /// Its title.
    public var title: String
    /// Its date, ISO 8601 in the user's time zone.
    public var date: String
    /// Its notes.
    public var notes: String
    /// Its photos in display order.
    public var images: [Image]
}

extension Library {
    /// Memories newest first, with image count and total size from one SQL query.
    public func list(since: Date? = nil, until: Date? = nil, search: String? = nil) throws -> [MemorySummary] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let since {
            conditions.append(LibrarySQL.dateFrom)
            values.append(since.sqliteValue)
        }
        if let until {
            conditions.append(LibrarySQL.dateBefore)
            values.append(until.sqliteValue)
        }
        if let search {
            guard let match = SearchIndex.matchQuery(search) else { return [] }
            // A library opened read-only is not reindexed: an older index (rowids without the
            // memory) is searched through its stored column.
            let query = try SearchIndex.isCurrent(SearchIndex.triggers(context)) ? LibrarySQL.matchingMemories : LibrarySQL.matchingMemoriesByColumn
            conditions.append(LibrarySQL.memoryIn(query))
            values.append(.text(match))
        }
        // The counts from memory_stats (kept by triggers); a library opened read-only that has not
        // been opened for writing since that table came counts its rows.
        let sql = LibrarySQL.list(conditions: conditions, stats: try MemoryStats.exists(in: context) ? MemoryStats.table : nil)
        return try context.query(sql, values).map { row in
            MemorySummary(id: (row[0].stringValue ?? "").lowercased(), title: row[1].stringValue ?? "",
                          date: Display.iso(Date(sqliteValue: row[2]) ?? Date(timeIntervalSinceReferenceDate: 0)),
                          imageCount: Int(row[3].int64Value ?? 0), bytes: Int(row[4].int64Value ?? 0))
        }
    }

    /// A memory's images in display order: capture time, then file name.
    public func images(of memory: Memory) -> [MemoryImage] {
        memory.memoryImages.sorted {
            switch ($0.takenAt, $1.takenAt) {
            case let (a?, b?) where a != b: return a < b
            case (.some, nil): return true
            case (nil, .some): return false
            default: return ($0.filename, $0.id.uuidString) < ($1.filename, $1.id.uuidString)
            }
        }
    }

    /// `show`'s view of `memory`: its fields and its photos in display order.
    public func detail(of memory: Memory) -> MemoryDetail {
        MemoryDetail(
            id: memory.id.uuidString.lowercased(), title: memory.title, date: Display.iso(memory.date), notes: memory.notes,
            images: images(of: memory).map { image in
                .init(id: image.id.uuidString.lowercased(), filename: image.filename, sha256: image.sha256, format: image.format,
                      width: image.width, height: image.height, bytes: image.byteCount,
                      takenAt: image.takenAt.map { Display.iso($0, offset: image.takenAtOffset ?? 0) },
                      takenAtZoneKnown: image.takenAt == nil ? nil : image.takenAtOffset != nil,
                      fileModifiedAt: image.fileModifiedAt.map(Display.iso), caption: image.caption)
            })
    }

    /// Changes a memory's title, notes or date.
    public func edit(_ memory: Memory, title: String? = nil, notes: String? = nil, date: Date? = nil) throws {
        if let title { memory.title = title }
        if let notes { memory.notes = notes }
        if let date { memory.date = date }
        try context.save()
    }

    /// Sets the capture time of one photo of `memory` (by id, id prefix or file name): the instant
    /// and its offset from UTC, as `show` then prints it. The memory's date is left as it is.
    public func setCaptureTime(of memory: Memory, photo query: String, to date: Date, offset: Int) throws -> MemoryImage {
        try editPhoto(of: memory, photo: query, capture: (date, offset))
    }

    /// Changes one photo of `memory` (by id, id prefix or file name): its capture time (the
    /// instant, and the offset it is shown at) and its caption (an empty one removes it), those given.
    public func editPhoto(of memory: Memory, photo query: String, capture: (date: Date, offset: Int)? = nil, caption: String? = nil) throws -> MemoryImage {
        let matches = try photos(of: memory, matching: [query])
        guard matches.count == 1 else {
            throw LibraryError.ambiguousImage(query, memory: memory.title, candidates: matches.map { "\($0.id.uuidString.lowercased())  \($0.filename)" })
        }
        if let capture {
            matches[0].takenAt = capture.date
            matches[0].takenAtOffset = capture.offset
        }
        if let caption { matches[0].caption = caption.isEmpty ? nil : caption }
        try context.save()
        return matches[0]
    }

    /// Removes one image (by id, id prefix or file name) from a memory; see `remove(_:images:)`.
    @discardableResult
    public func remove(_ memory: Memory, image query: String) throws -> MemoryImage {
        try remove(memory, images: [query])[0]
    }

    /// Removes photos from a memory, all or none (`photos(of:matching:)` says which). Their blobs
    /// go if nothing else uses them. The memory remembers them (`RemovedPhotos`): no later import
    /// puts them back unless asked. Not all of its photos: a memory holds at least one (`delete`
    /// removes a memory).
    public func remove(_ memory: Memory, images queries: [String]) throws -> [MemoryImage] {
        let chosen = try photos(of: memory, matching: queries)
        let lock = try lockMemberships()
        defer { lock.unlock() }
        try checkLeavesOne(memory, taking: chosen, instead: "`memories delete '\(memory.title)'` removes the memory with them")
        // Remembered first: a save that fails leaves the photos in the memory, where an import
        // counts them as there, not as removed.
        try context.immediateTransaction {
            try RemovedPhotos.record(chosen.map { ($0.sha256, $0.filename) }, memory: memory.persistentModelID.primaryKey, in: context)
        }
        for photo in chosen { context.delete(photo) }
        try context.save()
        return chosen
    }
}
