import Foundation

/// What `export --all` wrote: each memory's export, and what it did with the folders of memories
/// no longer in the library. Also written, without the manifests, as `memories.json`.
public struct ExportAllReport: Codable, Equatable {
    /// One memory's folder.
    public struct Entry: Codable, Equatable {
        /// The memory's id, lower-case.
        public var id: String
        /// Its title.
        public var title: String
        /// Its date, ISO 8601 in the user's time zone (absent with `--strip-metadata`).
        public var date: String?
        /// Its folder's name in the destination (kept when the memory is retitled).
        public var folder: String
        /// Its photos exported.
        public var photos: Int
        /// Its export's manifest (not in `memories.json`).
        public var manifest: ExportManifest?

        /// An entry (`manifest` nil: as `memories.json` keeps it).
        public init(id: String, title: String, date: String?, folder: String, photos: Int, manifest: ExportManifest? = nil) {
            (self.id, self.title, self.date, self.folder, self.photos, self.manifest) = (id, title, date, folder, photos, manifest)
        }
    }
    /// Every memory, newest first.
    public var memories: [Entry] = []
    /// Folders of memories deleted from the library since the last export, emptied of what the
    /// export had written there and removed.
    public var removedFolders: [String] = []
    /// Files in those folders left because they changed since they were written (their folders
    /// stay, and are emptied by a later export once those files are gone).
    public var leftAlone: [String] = []
    /// Files in those folders that the export did not write: left, with their folders, and not
    /// looked at again.
    public var notWritten: [String]?
    /// The version that wrote it.
    public var generator: String? = MemoriesVersion.generator
}

extension Library {
    /// Exports every memory into its own folder of `destination` (as `export` does, each updated in
    /// place when exported before with the same options), with `memories.json` and an `index.html`
    /// that links each memory's gallery (with `html`) or folder. A memory keeps its folder when
    /// retitled; the folder of a memory deleted since is emptied of the files the export wrote
    /// (those still as written) and removed. `destination` must be new, empty, or an earlier
    /// `export --all`.
    public func exportAll(to destination: URL, options: ExportOptions,
                          progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> ExportAllReport {
        let top = try ExportFolder(creating: destination.standardizedFileURL.path)
        var previous = ExportAllReport()
        if try !top.entries().isEmpty {
            guard let data = top.read("memories.json", limit: ExportUpdate.manifestLimit),
                  let index = try? JSONDecoder().decode(ExportAllReport.self, from: data), index.generator != nil else {
                throw LibraryError.destinationNotEmpty(top.path)
            }
            previous = index
        }
        // Every folder the index names is taken, there or not (one the user deleted is made again
        // for its memory, never given to another).
        var names = FileNames()
        names.reserve("memories.json")
        for name in try top.entries() { names.reserve(name) }
        for entry in previous.memories where Self.isFolderName(entry.folder) { names.reserve(entry.folder) }
        let folders = Dictionary(previous.memories.map { ($0.id, $0.folder) }, uniquingKeysWith: { first, _ in first })
        var report = ExportAllReport()
        var planned: [(memory: Memory, summary: MemorySummary, folder: String)] = []
        for summary in try list() {
            guard let id = UUID(uuidString: summary.id), let memory = try fetchMemory(id: id) else { continue }
            let name = folders[summary.id].flatMap { Self.isFolderName($0) ? $0 : nil } ?? names.claim(memory.title)
            planned.append((memory, summary, name))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // The folders are in the index before anything is written into them: a killed export's
        // folders are found again by the next.
        var index = previous
        index.generator = MemoriesVersion.generator
        for item in planned where !index.memories.contains(where: { $0.id == item.summary.id }) {
            index.memories.append(.init(id: item.summary.id, title: item.memory.title, date: nil, folder: item.folder, photos: 0))
        }
        try top.replace("memories.json", try encoder.encode(index))
        var written: Int64 = 0
        for (number, item) in planned.enumerated() {
            let folder = try ExportFolder(subfolder: item.folder, of: top)
            let before = try folder.entries().isEmpty ? nil : try ExportUpdate.previous(in: folder, of: item.memory, options: options)
            let manifest = try export(item.memory, into: folder, options: options, previous: before)
            written += manifest.files.reduce(0) { $0 + Int64($1.bytes) }
            progress?(number + 1, planned.count, written)
            report.memories.append(.init(id: item.summary.id, title: item.memory.title, date: options.stripMetadata ? nil : item.summary.date,
                                         folder: item.folder, photos: manifest.files.count, manifest: manifest))
        }
        // The folders of memories that are gone: emptied of what the export wrote. One holding a
        // file the export wrote that was changed since stays in the index, to be emptied once that
        // file is gone; one holding only files the export did not write is named once and let go.
        let kept = Set(report.memories.map(\.folder))
        var stillTracked: [ExportAllReport.Entry] = []
        for entry in previous.memories where !kept.contains(entry.folder) && report.memories.allSatisfy({ $0.id != entry.id }) {
            guard Self.isFolderName(entry.folder), top.isFolder(entry.folder) else { continue }
            let left = try removeExport(entry.folder, in: top)
            if left.changed.isEmpty && left.foreign.isEmpty { report.removedFolders.append(entry.folder) }
            report.leftAlone += left.changed.map { entry.folder + "/" + $0 }
            if !left.foreign.isEmpty { report.notWritten = (report.notWritten ?? []) + left.foreign.map { entry.folder + "/" + $0 } }
            if !left.changed.isEmpty { stillTracked.append(entry) }
        }
        index = report
        for i in index.memories.indices { index.memories[i].manifest = nil }
        index.memories += stillTracked
        try top.replace("memories.json", try encoder.encode(index))
        try top.replace("index.html", Data(Self.indexPage(report, html: options.html).utf8))
        try top.sync()
        return report
    }

    /// Whether `memories.json` names a folder of the destination by `name` (a plain name, not one
    /// of the export's own files): a name from a file is never followed out of the folder.
    static func isFolderName(_ name: String) -> Bool {
        !name.isEmpty && FileNames.sanitize(name) == name && !FileNames.reserved.contains(name) && name != "memories.json"
    }

    /// Deletes what an export wrote in `name` (files still as its manifest recorded them), then
    /// the folder if nothing else is in it; returns the paths left because they changed since they
    /// were written, and those the export did not write (then the folder stays).
    private func removeExport(_ name: String, in top: ExportFolder) throws -> (changed: [String], foreign: [String]) {
        let folder = try ExportFolder(subfolder: name, of: top)
        let thumbs = folder.isFolder("thumbs") ? try ExportFolder(subfolder: "thumbs", of: folder) : nil
        let previews = folder.isFolder("previews") ? try ExportFolder(subfolder: "previews", of: folder) : nil
        if let data = folder.read("manifest.json", limit: ExportUpdate.manifestLimit),
           let manifest = try? JSONDecoder().decode(ExportManifest.self, from: data), manifest.checksums != nil {
            let update = try ExportUpdate(previous: manifest, photos: [], folder: folder, thumbs: thumbs, previews: previews)
            guard update.leftAlone.isEmpty else { return (update.leftAlone, []) }
            try folder.remove("manifest.json")
            try folder.remove("index.html")
        }
        for sub in ["thumbs", "previews"] { unlinkat(folder.fd, sub, AT_REMOVEDIR) }
        if unlinkat(top.fd, name, AT_REMOVEDIR) == 0 { return ([], []) }
        var foreign: [String] = []
        for entry in try folder.entries().sorted() {
            let inside = entry == "thumbs" || entry == "previews" ? (try? ExportFolder(subfolder: entry, of: folder).entries()) ?? [] : []
            foreign += inside.isEmpty ? [entry] : inside.sorted().map { entry + "/" + $0 }
        }
        return ([], foreign)
    }

    /// The page that lists every memory exported, newest first, each linked to its gallery or folder.
    static func indexPage(_ report: ExportAllReport, html: Bool) -> String {
        let rows = report.memories.map { entry -> String in
            let link = Gallery.link(entry.folder) + (html ? "/index.html" : "/")
            let date = entry.date.map { Gallery.escape(String($0.prefix(10))) } ?? ""
            return "<li><a href=\"\(link)\">\(Gallery.escape(entry.title))</a> <span class=\"date\">\(date) · \(entry.photos) photo\(entry.photos == 1 ? "" : "s")</span></li>"
        }.joined(separator: "\n")
        return Gallery.page(title: "Memories", style: """
        body { font-family: system-ui, sans-serif; margin: 1.5rem; background: #fafafa; color: #222; }
        li { margin: .3rem 0; } .date { color: #666; font-size: .9rem; }
        """, body: """
        <h1>Memories</h1>
        <ul>
        \(rows)
        </ul>
        """)
    }
}
