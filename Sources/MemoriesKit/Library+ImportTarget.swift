import BlobStore
import Foundation
import OpenSwiftData

/// Which memory an import goes into: `--into`, the memory its folder was imported into, the one of
/// its title, or a new one (claimed under `titles.lock` with its first photo).
extension Library {
    /// Where an import goes: an existing memory, or a new one with this title (made with its first photo).
    enum Target {
        case existing(Memory)
        /// A new memory with this title; `apart`: the title is that of another folder's memory,
        /// and the new one gets one of its own (see `claimTitle`).
        case new(String, apart: Bool)
    }

    /// `--into` names an existing memory; `--title` (default: the first folder's name) names the
    /// one with exactly that title, or a new one.
    ///
    /// Titled by its folder's name (`folder`, the folder's real path), the memory is the one that
    /// folder was imported into before, whatever it is titled now; else the memory of that title,
    /// unless another folder was imported into it: then a new one (two folders named "Anna's
    /// birthday" are two memories). A memory made before folders were recorded is continued.
    func targetMemory(for paths: [String], options: ImportOptions, folder: Data?, report: inout ImportReport) throws -> Target {
        if let event = options.event { return event.memory.map { .existing($0) } ?? .new(event.title, apart: false) }
        if let into = options.into { return .existing(try resolve(into)) }
        if let folder, let key = try SourceFolders.memory(of: folder, in: context), let linked = try memory(withKey: key) {
            return .existing(linked)
        }
        let title = options.title ?? options.folderTitle ?? URL(fileURLWithPath: paths.first ?? "Import").standardizedFileURL.lastPathComponent
        let existing = try memories(titled: title)
        if existing.count == 1 {
            let others = try folder.map { try SourceFolders.folders(of: existing[0].persistentModelID.primaryKey, except: $0, in: context) } ?? []
            if let folder, !others.isEmpty {
                // Another folder's memory, unless that folder is gone (this one is taken as it,
                // moved or renamed) or is this one by another path.
                guard let gone = SourceFolders.goneOrSame(others, as: folder) else { return .new(title, apart: true) }
                report.continuedFrom = String(decoding: gone, as: UTF8.self)
            }
            return .existing(existing[0])
        }
        if existing.count > 1 { throw LibraryError.ambiguousMemory(title, candidates: existing.map(describe)) }
        return .new(title, apart: false)
    }

    /// The memory whose primary key is `key`, if it is still there.
    func memory(withKey key: Int64) throws -> Memory? {
        let row = try context.query("SELECT \(LibrarySQL.memoryID) FROM \(LibrarySQL.memory) WHERE \(LibrarySQL.key) = ?", [.integer(key)]).first
        guard let id = row?.first?.stringValue.flatMap(UUID.init(uuidString:)) else { return nil }
        return try fetchMemory(id: id)
    }

    /// The folders under each root (the root included) that hold files themselves, in the walk's
    /// order, each with the title `import --by-folder` gives its memory: the folder's name, or,
    /// where folders of one name are found more than once, its path below its root.
    public static func eventFolders(under roots: [String]) -> [(folder: ImportRoot, title: String)] {
        var found: [(folder: ImportRoot, root: String)] = []
        var seen = Set<[CChar]>()
        for given in roots {
            let root = given.count > 1 && given.hasSuffix("/") ? String(given.dropLast()) : given
            FileWalker().walk([root], visit: { file in
                // The folder as bytes (its name need not be UTF-8): the file's path to its last "/".
                guard let slash = file.path.lastIndex(of: 47) else { return }
                let bytes = Array(file.path[..<slash]) + [0]
                if seen.insert(bytes).inserted {
                    found.append((ImportRoot(path: bytes, display: (file.display as NSString).deletingLastPathComponent), root))
                }
            }, problem: { _ in })
        }
        found.sort { $0.folder.path.map { UInt8(bitPattern: $0) }.lexicographicallyPrecedes($1.folder.path.map { UInt8(bitPattern: $0) }) }
        func name(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.lastPathComponent }
        var counts: [String: Int] = [:]
        for found in found { counts[name(found.folder.display), default: 0] += 1 }
        return found.map { found in
            let own = name(found.folder.display)
            guard counts[own, default: 0] > 1, found.folder.display != found.root else { return (found.folder, own) }
            let below = String(found.folder.display.dropFirst(found.root.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            return (found.folder, below)
        }
    }

    /// The year of `date` in the user's time zone.
    static func year(of date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Display.zone
        return calendar.component(.year, from: date)
    }

    /// The memory a new title's first photo goes into, and the lock (`<library>/.library_SUPPORT/titles.lock`)
    /// to hold until that photo is committed: the memory with this title if another import made
    /// it meanwhile, else a new one, inserted but not saved. Two imports of one new title each
    /// take the lock in turn, so the second finds the first's memory instead of making another.
    ///
    /// With `apartFrom` (the folder whose name `title` is, when another folder's memory has that
    /// title) the memory is titled `title (YEAR)`, the year of its first photo, then
    /// `title (YEAR, 2)`, …: the first of those that is free or this folder's own.
    func claimTitle(_ title: String, options: ImportOptions, apartFrom folder: Data? = nil, year: Int = 0) throws -> (memory: Memory, lock: FileLock) {
        let lock = try lockMemberships()
        do {
            var title = title
            if let folder {
                let base = title
                for n in 1... {
                    title = n == 1 ? "\(base) (\(year))" : "\(base) (\(year), \(n))"
                    let taken = try memories(titled: title)
                    if taken.isEmpty { break }
                    if taken.count == 1, try !SourceFolders.isLinked(taken[0].persistentModelID.primaryKey, except: folder, in: context) { break }
                }
            }
            let existing = try memories(titled: title)
            if existing.count == 1 { return (existing[0], lock) }
            if existing.count > 1 { throw LibraryError.ambiguousMemory(title, candidates: existing.map(describe)) }
            let now = Date()
            let memory = Memory(title: title, date: options.date ?? now, notes: options.notes ?? "")
            memory.createdAt = now
            context.insert(memory)
            return (memory, lock)
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// `<library>/.library_SUPPORT/titles.lock`, held exclusive while a memory's membership changes
    /// in a way another process could contradict: an import making a new memory (until its first
    /// photos are committed) and `remove` (from counting a memory's photos to committing the
    /// removal, so two removes cannot both take "one of two"). Waited for, said after a second.
    func lockMemberships() throws -> FileLock {
        let folder = directory.appendingPathComponent(".library_SUPPORT")
        try Privacy.makeFolders(folder.path)
        let path = folder.appendingPathComponent("titles.lock").path
        do {
            return try FileLock(path: path, mode: .exclusive, timeout: 1)
        } catch BlobStoreError.lockTimeout {
            // Another command is changing a memory (or was stopped while it did: Ctrl-Z): said, then waited for.
            notice?("waiting for another command that is changing a memory's photos (it holds \(path))…")
            do {
                return try FileLock(path: path, mode: .exclusive, timeout: titleLockTimeout)
            } catch BlobStoreError.lockTimeout {
                throw LibraryError.titleLockHeld(path, seconds: Int(titleLockTimeout))
            }
        }
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
}
