import Foundation
import OpenSwiftData

/// What `move`, `merge` and `split` did.
public struct MoveReport: Codable, Equatable {
    /// Photos that changed memory.
    public var moved = 0
    /// Photos the other memory already had: taken out of the first only.
    public var alreadyThere = 0

    /// Nothing moved yet.
    public init() {}
}

extension Library {
    /// The photos of `memory` that `queries` name, in their order, each once: a photo's id, a unique
    /// id prefix (4 characters or more), its file name, or, when no photo has it as its name, a
    /// pattern of file names (`*`, `?`, `[…]`, as the shell's) that must match at least one. A query that names none, or several photos
    /// without a pattern, is an error.
    func photos(of memory: Memory, matching queries: [String]) throws -> [MemoryImage] {
        let photos = memory.memoryImages
        var chosen: [MemoryImage] = []
        for query in queries {
            let matches: [MemoryImage]
            // A name is a name first: a pattern only when no photo has it as its name, id or id
            // prefix (`remove Trip 'a[1].jpg'` removed a1.jpg, and kept it out).
            let named = photos.filter { $0.filename == query }
            if named.isEmpty && query.contains(where: { "*?[".contains($0) }) {
                matches = photos.filter { fnmatch(query, $0.filename, 0) == 0 }
            } else {
                let lower = query.lowercased()
                matches = photos.filter {
                    $0.id.uuidString.lowercased() == lower || (lower.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(lower)) || $0.filename == query
                }
                if matches.count > 1 {
                    throw LibraryError.ambiguousImage(query, memory: memory.title, candidates: matches.map { "\($0.id.uuidString.lowercased())  \($0.filename)" })
                }
            }
            if matches.isEmpty { throw LibraryError.imageNotFound(memory: memory.title, image: query) }
            for photo in matches where !chosen.contains(where: { $0 === photo }) { chosen.append(photo) }
        }
        return chosen
    }

    /// Refuses, under `lockMemberships`, taking `chosen` out of `memory` when they are gone or are
    /// all of its photos (counted from the database: another process may have changed it).
    func checkLeavesOne(_ memory: Memory, taking chosen: [MemoryImage], instead: String) throws {
        for photo in chosen where try context.query(LibrarySQL.photoExists, [.integer(photo.persistentModelID.primaryKey)]).isEmpty {
            throw LibraryError.imageNotFound(memory: memory.title, image: photo.filename)
        }
        let count = try context.query(LibrarySQL.photoCount, [.integer(memory.persistentModelID.primaryKey)]).first?.first?.int64Value ?? 0
        guard count > chosen.count else {
            if chosen.count == 1 { throw LibraryError.lastPhoto(memory: memory.title, photo: chosen[0].filename, instead: instead) }
            throw LibraryError.wouldEmpty(memory: memory.title, photos: chosen.count, instead: instead)
        }
    }

    /// Moves photos (`photos(of:matching:)` says which) from one memory to another without copying
    /// a stored file: each photo's row changes memory; a photo `target` already has is taken out of
    /// `source` only. `source` remembers them as removed (a sync of its folder does not bring
    /// them back); `target` forgets any removal of them. Not all of `source`'s photos (`merge`).
    public func move(_ queries: [String], from source: Memory, to target: Memory) throws -> MoveReport {
        guard source.persistentModelID != target.persistentModelID else { throw LibraryError.sameMemory(source.title) }
        let chosen = try photos(of: source, matching: queries)
        let lock = try lockMemberships()
        defer { lock.unlock() }
        try checkLeavesOne(source, taking: chosen, instead: "`memories merge '\(source.title)' --into '\(target.title)'` moves them all")
        return try reassign(chosen, from: source, to: target, deleting: false)
    }

    /// Moves every photo of `source` into `target` (as `move` does) and deletes `source`; the
    /// folders `source` was imported from now sync into `target`, and the photos removed from
    /// `source` stay out of `target` too (those it does not hold).
    public func merge(_ source: Memory, into target: Memory) throws -> MoveReport {
        guard source.persistentModelID != target.persistentModelID else { throw LibraryError.sameMemory(source.title) }
        let lock = try lockMemberships()
        defer { lock.unlock() }
        return try reassign(source.memoryImages, from: source, to: target, deleting: true)
    }

    /// Moves photos of `memory` (`photos(of:matching:)` says which) into a new memory titled
    /// `title`, dated by the earliest capture time among them. Not all of its photos.
    public func split(_ memory: Memory, photos queries: [String], title: String) throws -> (memory: Memory, report: MoveReport) {
        let chosen = try photos(of: memory, matching: queries)
        let lock = try lockMemberships()
        defer { lock.unlock() }
        guard try memories(titled: title).isEmpty else { throw LibraryError.titleTaken(title) }
        try checkLeavesOne(memory, taking: chosen, instead: "`memories edit '\(memory.title)' --title …` renames the memory instead")
        let now = Date()
        let made = Memory(title: title, date: chosen.compactMap(\.takenAt).min() ?? memory.date, notes: "")
        made.createdAt = now
        context.insert(made)
        return (made, try reassign(chosen, from: memory, to: made, deleting: false))
    }

    /// Gives `photos` of `source` to `target` in one save (deleting `source` too, with `deleting`),
    /// with the journal's records of removals and folders brought along first.
    private func reassign(_ photos: [MemoryImage], from source: Memory, to target: Memory, deleting: Bool) throws -> MoveReport {
        let sourceKey = source.persistentModelID.primaryKey, targetKey = target.persistentModelID.primaryKey
        // A memory deleted with photos this context did not read would leave those in no memory.
        if deleting, try context.query(LibrarySQL.photoCount, [.integer(sourceKey)]).first?.first?.int64Value ?? 0 != Int64(photos.count) {
            throw LibraryError.changedMeanwhile(source.title)
        }
        let held = targetKey > 0 ? try storedDigests(of: target) : []
        var report = MoveReport()
        try context.immediateTransaction {
            if deleting {
                try RemovedPhotos.carry(from: sourceKey, to: targetKey, in: context)
                try SourceFolders.carry(from: sourceKey, to: targetKey, in: context)
                try SourceEvents.carry(from: source.id, to: target.id, in: context)
            } else {
                try RemovedPhotos.record(photos.map { ($0.sha256, $0.filename) }, memory: sourceKey, in: context)
            }
            if targetKey > 0 { try RemovedPhotos.forget(photos.map(\.sha256), memory: targetKey, in: context) }
        }
        for photo in photos {
            if held.contains(photo.sha256) {
                context.delete(photo)
                report.alreadyThere += 1
            } else {
                photo.memory = target
                report.moved += 1
            }
        }
        if deleting { context.delete(source) }
        try context.save()
        return report
    }
}
