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
      --strip-metadata   leave EXIF out of re-encoded JPEGs
      --html             add index.html, an offline gallery of thumbnails linking to the photos

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
        let manifest = try lib.export(memory, to: URL(fileURLWithPath: arguments.positionals[1]), options: options)
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
    static let abstract = "Remove stored files no memory uses, and abandoned partial writes."
    static let usage = "memories gc [--dry-run] [--json]"
    static let details = """
    Safe while another `memories` process imports: writers and gc take the library's lock.

    Options:
      --dry-run   report what would be removed
      --json      print {"orphanBlobs","bytesFreed","tempFilesRemoved","dryRun"}
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["dry-run", "json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 0...0, "")
        let report = try library().collectGarbage(dryRun: arguments.has("dry-run"))
        if arguments.has("json") {
            try Output.json(report)
        } else {
            Output.print("\(report.dryRun ? "would remove" : "removed") \(report.orphanBlobs) unused file\(report.orphanBlobs == 1 ? "" : "s") (\(Formats.bytes(Int(report.bytesFreed)))) and \(report.tempFilesRemoved) partial write\(report.tempFilesRemoved == 1 ? "" : "s")")
        }
        return ExitCode.success
    }
}

enum VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check the database and every stored photo against its SHA-256."
    static let usage = "memories verify [--json]"
    static let details = """
    Runs SQLite's integrity_check, re-hashes every stored file, and checks that every photo a memory
    refers to is present and intact. Unused files (orphans) are counted; `memories gc` removes them.

    Options:
      --json   print {"ok","blobsChecked","missing":[],"corrupt":[],"orphans","database"}

    Exit status: 0 only when healthy (database ok, nothing missing or corrupt), else 1.
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 0...0, "")
        let progress = Output.Progress("verifying")
        let report = try library().verify { done, _ in progress.update(done, max(done, 1)) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            Output.print("database: \(report.database)")
            Output.print("\(report.blobsChecked) stored files checked, \(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.orphans) unused")
            for digest in report.missing { Output.print("missing: \(digest)") }
            for digest in report.corrupt { Output.print("corrupt: \(digest)") }
            Output.print(report.ok ? "healthy" : "NOT healthy")
        }
        return report.ok ? ExitCode.success : ExitCode.failure
    }
}
