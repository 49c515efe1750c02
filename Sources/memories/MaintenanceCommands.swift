import Foundation
import MemoriesKit

enum ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export a memory's photos into a folder."
    static let usage = "memories export <memory> <dest> [--format original|jpeg|png] [--max-size PX] [--quality Q] [--strip-metadata] [--html]"
    static let details = """
    <dest> is created if needed and must be empty. Originals are byte-identical copies, checked against
    their SHA-256 first: a damaged photo is refused, never written. File names come from the original
    names, made safe and unique; nothing is ever written outside <dest>. manifest.json describes every file.

    Options:
      --format F         original (default), jpeg or png
      --max-size PX      shrink so the longest side is at most PX (re-encodes)
      --quality Q        JPEG quality 1–100 (default 85)
      --strip-metadata   remove EXIF (GPS too), XMP and comments: JPEG and PNG without re-encoding,
                         HEIC/AVIF/WebP converted to JPEG
      --html             add index.html, an offline gallery (thumbnails, previews, a lightbox)
      --json             print the manifest

    Examples:
      memories export "Rome 2024" ~/rome --html
      memories export "Rome 2024" ~/rome-small --format jpeg --max-size 2048 --strip-metadata

    Exit status: 0 everything exported, 1 some photos could not be (listed on stderr), 64 usage error.
    """
    static let options: Set<String> = ["format", "max-size", "quality"]
    static let flags: Set<String> = ["strip-metadata", "html", "json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 2...2, "<memory> <dest>")
        var options = ExportOptions()
        if let format = arguments.value("format") {
            guard let f = ExportOptions.Format(rawValue: format) else { throw UsageError(message: "--format must be original, jpeg or png") }
            options.format = f
        }
        options.maxSize = try arguments.int("max-size", in: 1...65535)
        options.quality = try arguments.int("quality", in: 1...100) ?? 85
        options.stripMetadata = arguments.has("strip-metadata")
        options.html = arguments.has("html")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        let progress = Progress("exporting")
        let manifest = try lib.export(memory, to: URL(fileURLWithPath: arguments.positionals[1]), options: options) {
            progress.update($0, $1, bytes: $2)
        }
        progress.finish()
        for failure in manifest.failed { Output.error(failure.reason) }
        for warning in manifest.warnings { Output.error(warning.reason) }
        if arguments.has("json") {
            try Output.json(manifest)
        } else {
            Output.print("exported \(manifest.files.count) photo\(manifest.files.count == 1 ? "" : "s") of '\(memory.title)' to \(arguments.positionals[1])"
                         + (options.html ? " (open index.html)" : ""))
        }
        return manifest.failed.isEmpty ? ExitCode.success : ExitCode.failure
    }
}

enum GCCommand: Command {
    static let name = "gc"
    static let abstract = "Move stored files no memory uses to the trash; empty the trash of old ones."
    static let usage = "memories gc [-n|--dry-run] [--prune-now] [--json]"
    static let details = """
    Nothing is deleted on first sight: an unused file is moved to the library's trash
    (.library_SUPPORT/trash/), and deleted by a later gc once it has been there for 7 days. A file
    in use again (a library.store restored from a backup) is taken back from the trash. gc first
    checks the store (SQLite's full integrity check, and that it is the store the photos belong
    to) and refuses, removing nothing, if anything is wrong. Safe while another `memories`
    process imports: writers and gc take the library's lock.

    Options:
      -n, --dry-run list what would be moved, restored and deleted; change nothing
      --prune-now   delete everything in the trash now instead of after 7 days
      --json        print the report as JSON (see docs/cli.md)

    Examples:
      memories gc --dry-run
      memories gc --prune-now
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["dry-run", "prune-now", "json"]
    static let shortOptions: [Character: String] = ["n": "dry-run"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 0...0, "")
        let report = try library().collectGarbage(dryRun: arguments.has("dry-run"), pruneNow: arguments.has("prune-now"))
        if arguments.has("json") {
            try Output.json(report)
            return ExitCode.success
        }
        let would = report.dryRun
        if would { for hex in report.orphans { Output.print("would move to the trash: \(hex)") } }
        func files(_ n: Int) -> String { "\(n) file\(n == 1 ? "" : "s")" }
        Output.print("\(would ? "would move" : "moved") \(files(report.orphanBlobs)) (\(Formats.bytes(Int(report.orphanBytes)))) to the trash, "
                     + "\(would ? "would restore" : "restored") \(files(report.restoredBlobs)) from it, "
                     + "\(would ? "would delete" : "deleted") \(files(report.prunedBlobs)) (\(Formats.bytes(Int(report.bytesFreed)))) for good, "
                     + "and \(would ? "would remove" : "removed") \(report.tempFilesRemoved) partial write\(report.tempFilesRemoved == 1 ? "" : "s")")
        Output.print("the trash holds \(files(report.trashBlobs)) (\(Formats.bytes(Int(report.trashBytes))))"
                     + (report.trashBlobs > 0 && !arguments.has("prune-now") ? "; each is deleted 7 days after it was moved there" : ""))
        return ExitCode.success
    }
}

enum VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check the database and every stored photo against its SHA-256."
    static let usage = "memories verify [--json]"
    static let details = """
    Runs SQLite's integrity_check, re-hashes every stored file, and checks that every photo a memory
    refers to is present and intact. Unused files (orphans) are counted; `memories gc` moves them to
    the trash. Opens the library read-only: it changes nothing.

    Options:
      --json   print {"ok","blobsChecked","missing":[],"corrupt":[],"inTrash":[],"orphans",
               "trashBlobs","trashBytes","database","problems":[]}

    Examples:
      memories verify
      memories verify --json

    Exit status: 0 only when healthy (database ok, nothing missing or corrupt), else 1.
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 0...0, "")
        let progress = Progress("verifying")
        let lib = try library()
        let report = try lib.verify { done, _ in progress.update(done, max(done, 1)) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            Output.print("database: \(report.database)")
            Output.print("\(report.blobsChecked) stored files checked, \(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.orphans) unused")
            for hex in report.missing { Output.print("missing: \(try lib.describeBlob(hex))") }
            for hex in report.corrupt { Output.print("corrupt: \(try lib.describeBlob(hex))") }
            Output.print("trash: \(report.trashBlobs) file\(report.trashBlobs == 1 ? "" : "s") (\(Formats.bytes(Int(report.trashBytes))))")
            for problem in report.problems { Output.print("problem: \(problem)") }
            Output.print(report.ok ? "healthy" : "NOT healthy")
        }
        return report.ok ? ExitCode.success : ExitCode.failure
    }
}

enum RepairCommand: Command {
    static let name = "repair"
    static let abstract = "Restore damaged or missing stored photos from folders of the originals."
    static let usage = "memories repair <folder-or-file>... [--json]"
    static let details = """
    Checks every stored file against its SHA-256 (as verify does), then reads the files under the
    folders given and rewrites each damaged or missing photo from a file with the same SHA-256.
    Lists what it restored and what no file matched. Importing a photo that is already stored
    repairs it too.

    Options:
      --json   print {"restored":[{"sha256","from"}],"unrestored":[{"sha256","problem","usedBy"}],"filesRead"}

    Examples:
      memories repair ~/Pictures/Rome /media/backup/photos

    Exit status: 0 nothing left damaged, 1 some stored files could not be restored.
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing <folder-or-file>") }
        let progress = Progress("reading")
        let report = try library().repair(from: arguments.positionals) { progress.update($0, $1) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            for item in report.restored { Output.print("restored \(item.sha256.prefix(12)) from \(Output.escaped(item.from))") }
            for item in report.unrestored {
                Output.print("not restored: \(item.sha256.prefix(12)) \(item.problem)"
                             + (item.usedBy.isEmpty ? "" : ", used by \(Output.escaped(item.usedBy.joined(separator: ", ")))"))
            }
            Output.print("\(report.restored.count) restored, \(report.unrestored.count) not restored (\(report.filesRead) photos read)")
        }
        return report.unrestored.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
