import BlobStore
import Foundation
import MemoriesKit

enum ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import photos from folders or files into a memory."
    static let positionals: [Positional] = [.oneOrMore("<folder-or-file>")]
    static let discussion = """
    Walks folders recursively and imports every JPEG, PNG, HEIC, AVIF and WebP, recognised by content.
    Other files are skipped, each named with the reason (GIF, video, hidden…); invalid images are
    rejected with their path and reason, and the rest go in.
    A photo already in the memory (same SHA-256) is not added again; one stored copy serves every memory.
    A photo already stored is checked against its SHA-256, and rewritten from the file if the stored
    copy is damaged or missing ("repaired"). Only regular files are read, and a photo larger than
    --max-file-size is rejected unread; other files are skipped after their first bytes.
    Importing a folder again reads only what changed: a file whose size, times and inode are what
    they were when the library last read it, and which is a photo of the memory (its stored copy
    and thumbnail there) or not a photo, is counted without being opened ("unchanged"). --rehash
    reads every file, and proves and repairs every stored copy. Photos removed from the memory
    with `remove` are not added back (--include-removed adds them).
    """
    static let options: [Option] = [
        .value("title", "T", "the memory's title (default: the first folder's name); an existing memory with exactly this title is continued, so running the same import again completes it"),
        .value("into", "MEMORY", "add to an existing memory (id, id prefix or title); not with --title"),
        .value("date", "D", "the memory's date (default: the earliest capture time)"),
        .value("notes", "N", "the memory's notes"),
        .dryRun,
        .flag("rehash", "read every file, even those unchanged since the library last read them"),
        .flag("include-removed", "add back photos removed from the memory earlier (`remove`)"),
        .flag("by-folder", "one memory per folder that holds files, titled by its name (by its path below the folder given where names repeat)"),
        .flag("by-event", "split a camera roll into a memory per event: a gap of more than --gap between photos ends one; titled by its dates"),
        .value("gap", "DURATION", "--by-event's gap (default 24h; 90m, 36h, 2d)"),
        .value("jobs", "N", short: "j", "decoding threads (default: the number of cores)"),
        .value("max-file-size", "SIZE", "the largest photo read (default 512MB; bytes, or with K, M, G: 2G)"),
        .quiet,
        .flag("verbose", short: "v", "also name every skipped file with its reason, one line each"),
        .json,
    ]
    static let examples = [
        #"memories import ~/Pictures/Rome --title "Rome 2024""#,
        "memories import DCIM/100APPLE -n                 # what would go in, and what would not",
        "memories import ~/Pictures/Events --by-folder    # a memory per event folder",
        "memories import ~/Phone/DCIM --by-event          # a memory per day or trip of a camera roll",
        #"memories import more.jpg --into "Rome 2024" -j 2"#,
    ]
    static let exitStatus = "0 all imported, 2 some files rejected (the rest imported), 1 failure, 64 usage error."

    /// A new folder only this user can enter, in `$TMPDIR` (or /tmp), named with this process's
    /// id. Those a killed dry run left (its process gone) are removed first: a dry run's exit
    /// removes its own, but a signal ends it without that.
    static func scratchFolder() throws -> URL {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("memories-dry-run-") {
            let fields = name.split(separator: "-")
            var info = stat()
            guard fields.count == 5, let pid = pid_t(fields[3]), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH,
                  lstat(temporary.appendingPathComponent(name).path, &info) == 0, info.st_uid == geteuid(),
                  (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        var template = Array((temporary.path + "/memories-dry-run-\(getpid())-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BlobStoreError.io(path: FileManager.default.temporaryDirectory.path, operation: "make a temporary folder in", errno: errno)
        }
        return URL(fileURLWithPath: String(cString: made))
    }

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        if let title = arguments.value("title"), title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError(message: "--title cannot be empty: a memory is found by its title")
        }
        if arguments.value("title") != nil && arguments.value("into") != nil {
            throw UsageError(message: "--title and --into cannot be used together")
        }
        if arguments.has("by-folder") && (arguments.value("title") != nil || arguments.value("into") != nil) {
            throw UsageError(message: "--by-folder titles each folder's memory by its name; not with --title or --into")
        }
        if arguments.has("by-event") && (arguments.value("title") != nil || arguments.value("into") != nil || arguments.has("by-folder")) {
            throw UsageError(message: "--by-event titles each event's memory by its dates; not with --title, --into or --by-folder")
        }
        if arguments.value("gap") != nil && !arguments.has("by-event") {
            throw UsageError(message: "--gap is --by-event's: the time between photos that ends an event")
        }
        let gap = try arguments.value("gap").map(parseDuration) ?? Library.defaultEventGap
        var options = ImportOptions()
        options.title = arguments.value("title")
        options.into = arguments.value("into")
        options.notes = arguments.value("notes")
        options.dryRun = arguments.has("dry-run")
        options.rehash = arguments.has("rehash")
        options.includeRemoved = arguments.has("include-removed")
        options.date = try arguments.date("date")
        if let jobs = try arguments.int("jobs", in: 1...256) { options.jobs = jobs }
        // For benchmarks: where the time went, on stderr at the end (docs/performance.md).
        if ProcessInfo.processInfo.environment["MEMORIES_IMPORT_STAGES"] == "1" { options.stages = ImportStages() }
        if let text = arguments.value("max-file-size") {
            guard let size = parseSize(text), size > 0 else {
                throw UsageError(message: "--max-file-size must be a size such as 512MB, 2G or 1000000, not '\(Output.escaped(text))'")
            }
            options.maxFileSize = size
        }
        for path in arguments.positionals where !FileManager.default.fileExists(atPath: path) {
            throw UsageError(message: "\(Output.escaped(path)): no such file or folder")
        }
        let quiet = arguments.has("quiet")
        let progress = Progress("importing", enabled: !quiet)
        // A dry run opens the library read-only; where there is none yet, every photo is new, and
        // is counted in a library made for the purpose in a private temporary folder, removed after.
        var scratch: URL?
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let lib: Library
        do {
            lib = try library()
        } catch LibraryError.noLibrary(_, photosLeft: false) where options.dryRun {
            scratch = try Self.scratchFolder()
            lib = try Library(directory: scratch!.appendingPathComponent("library"))
        }
        if lib.created && scratch == nil && !quiet { Output.error("created a new library at \(Output.escaped(lib.directory.path))") }
        if arguments.has("by-event") {
            let report = try lib.importEvents(arguments.positionals, gap: gap, options: options) { progress.update($0, $1, bytes: $2) }
            progress.finish()
            return try showEvents(report, arguments: arguments, options: options)
        }
        if arguments.has("by-folder") {
            // One memory per folder that holds files, each imported alone, as a folder given alone is.
            let folders = Library.eventFolders(under: arguments.positionals)
            var reports: [FolderReport] = []
            for folder in folders {
                var each = options
                (each.folderTitle, each.subfolders) = (folder.title, false)
                let report = try lib.importPhotos(roots: [folder.folder], options: each) { progress.update($0, $1, bytes: $2) }
                progress.finish()
                reports.append(FolderReport(folder: folder.folder.display, report: report))
                if !arguments.has("json") { show(report, arguments: arguments, options: each, title: folder.title, prefix: "\(Output.escaped(folder.folder.display)): ") }
            }
            if arguments.has("json") { try Output.json(reports, stamped: false) }
            if folders.isEmpty && !quiet { Output.print("no folder under \(arguments.positionals.map { Output.escaped($0) }.joined(separator: ", ")) holds files") }
            return reports.allSatisfy { $0.report.rejected.isEmpty } ? ExitCode.success : ExitCode.partialImport
        }
        let report = try lib.importPhotos(arguments.positionals, options: options) { progress.update($0, $1, bytes: $2) }
        progress.finish()
        if let stages = options.stages {
            // The heap's tunables too: an import sets glibc.malloc.hugetlb (Heap.swift).
            Output.error("stages: " + stages.summary + "; heap: re-executed " + (heapReexecuted ? "yes" : "no")
                         + ", GLIBC_TUNABLES " + (ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? "unset"))
        }
        if arguments.has("json") {
            try Output.json(report)
        } else {
            show(report, arguments: arguments, options: options,
                 title: options.title ?? URL(fileURLWithPath: arguments.positionals[0]).standardizedFileURL.lastPathComponent, prefix: "")
        }
        return report.rejected.isEmpty ? ExitCode.success : ExitCode.partialImport
    }

    /// One folder's report in `--by-folder --json`.
    struct FolderReport: Encodable {
        var folder: String
        var report: ImportReport
    }

    /// Prints a report: problems on stderr, then (unless --quiet) the counts on stdout, each line
    /// of the counts after `prefix`. `title` is the memory's title when no memory was made.
    static func show(_ report: ImportReport, arguments: Arguments, options: ImportOptions, title folderTitle: String, prefix: String) {
        for rejection in report.rejected { Output.error("rejected \(Output.escaped(rejection.path)): \(Output.escaped(rejection.reason))") }
        for path in report.repaired { Output.error("repaired the stored copy of \(Output.escaped(path)): it was damaged or missing") }
        for path in report.thumbnailsRemade { Output.error("made the thumbnail of \(Output.escaped(path)) again: it was damaged or missing") }
        for note in report.unusableDates { Output.error("\(Output.escaped(note.path)): \(Output.escaped(note.reason))") }
        guard !arguments.has("quiet") else { return }
        var counts: [String] = []
        if report.memory != nil || options.dryRun { counts.append("\(report.alreadyInMemory) already in this memory") }
        if report.repeatedInFolders > 0 { counts.append("\(report.repeatedInFolders) repeated in these folders") }
        if report.unchanged > 0 { counts.append("\(report.unchanged) unchanged (not read)") }
        if report.removedEarlier > 0 { counts.append("\(report.removedEarlier) removed earlier, not re-added (--include-removed adds them)") }
        counts += ["\(report.skipped) skipped", "\(report.rejected.count) rejected"]
        let verb = options.dryRun ? "would import" : "imported"
        let photos = "\(report.imported) photo\(report.imported == 1 ? "" : "s")"
        if let memory = report.memory {
            Output.print(prefix + "\(verb) \(photos) into '\(Output.escaped(memory.title))' (\(memory.id.prefix(8)))\(options.dryRun ? " (dry run)" : ""); "
                         + counts.joined(separator: ", "))
        } else if options.dryRun {
            Output.print(prefix + "\(verb) \(photos) into '\(Output.escaped(folderTitle))' (dry run); " + counts.joined(separator: ", "))
        } else {
            Output.print(prefix + "imported no photos; " + counts.joined(separator: ", "))
        }
        if let gone = report.continuedFrom, let memory = report.memory {
            Output.print(prefix + "'\(Output.escaped(memory.title))' was imported from \(Output.escaped(gone)), which is gone (moved or renamed?): "
                         + "this folder continues it; --title gives this folder a memory of its own")
        }
        if let other = report.titledApartFrom {
            let made = report.memory.map { "went into '\(Output.escaped($0.title))'" } ?? "would go into a new memory"
            Output.print(prefix + "'\(Output.escaped(other))' is the memory of another folder of that name, so these photos \(made); "
                         + "--into '\(Output.escaped(other))' adds them to it instead")
        }
        if arguments.has("verbose") {
            for file in report.skippedFiles { Output.print(prefix + "skipped \(Output.escaped(file.path)): \(Output.escaped(file.reason))") }
        } else if !report.skippedFiles.isEmpty {
            Output.print(prefix + skippedSummary(report.skippedFiles))
        }
        if report.memory == nil && !options.dryRun { Output.print(prefix + "nothing was imported, so no memory was made") }
    }
}

/// "skipped 4: 2 videos (QuickTime MOV), 1 GIF image (GIF is not supported), 1 hidden file; -v or --json
/// lists each file", the most common reason first.
func skippedSummary(_ files: [ImportReport.Rejection]) -> String {
    var counts: [String: Int] = [:]
    for file in files { counts[file.reason, default: 0] += 1 }
    let groups = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { counted($0.value, Output.escaped($0.key)) }
    return "skipped \(files.count): \(groups.joined(separator: ", ")); -v or --json lists each file"
}

/// A skip reason with its count: "a video (MP4)" → "1 video (MP4)", "3 videos (MP4)"; "hidden" →
/// "2 hidden files"; "not an image" → "1 file that is not an image"; anything else → "2 files (REASON)".
func counted(_ count: Int, _ reason: String) -> String {
    let one = count == 1
    for article in ["a ", "an "] where reason.hasPrefix(article) {
        let phrase = reason.dropFirst(article.count)
        guard !one else { return "1 \(phrase)" }
        let end = phrase.range(of: " (")?.lowerBound ?? phrase.endIndex
        return "\(count) \(phrase[..<end])s\(phrase[end...])"
    }
    switch reason {
    case "hidden": return "\(count) hidden file\(one ? "" : "s")"
    case "not an image": return one ? "1 file that is not an image" : "\(count) files that are not images"
    default: return "\(count) file\(one ? "" : "s") (\(reason))"
    }
}

/// "512MB", "2G", "64k", "1000000" → bytes (K, M, G, T are powers of 1024; a trailing B is optional).
func parseSize(_ text: String) -> Int64? {
    var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
    if digits.hasSuffix("B") { digits.removeLast() }
    var multiplier: Int64 = 1
    if let last = digits.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][String(last)] {
        multiplier = Int64(1) << (10 * power)
        digits.removeLast()
    }
    guard let value = Int64(digits), value >= 0 else { return nil }
    let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
    return overflow ? nil : product
}
