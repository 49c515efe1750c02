import Foundation
import MemoriesKit

enum ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import photos from folders or files into a memory."
    static let usage = "memories import <folder-or-file>... [--title T | --into MEMORY] [--date D] [--notes N] [--dry-run] [--jobs N] [--json]"
    static let details = """
    Walks folders recursively and imports every JPEG and PNG, recognised by content. Other files are
    skipped and counted; invalid images are rejected with their path and reason, and the rest go in.
    A photo already in the memory (same SHA-256) is not added again; one stored copy serves every memory.

    Options:
      --title T      the memory's title (default: the first folder's name); an existing memory with
                     exactly this title is continued, so running the same import again completes it
      --into MEMORY  add to an existing memory (id, id prefix or exact title)
      --date D       the memory's date (default: the earliest EXIF capture time)
      --notes N      the memory's notes
      --dry-run      report what would be imported; change nothing
      --jobs N       decoding threads (default: the number of cores)
      --json         print the report as JSON

    Exit status: 0 all imported, 2 some files rejected (the rest imported), 1 failure, 64 usage error.
    """
    static let options: Set<String> = ["title", "into", "date", "notes", "jobs"]
    static let flags: Set<String> = ["dry-run", "json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing <folder-or-file>") }
        if arguments.value("title") != nil && arguments.value("into") != nil {
            throw UsageError(message: "--title and --into cannot be used together")
        }
        var options = ImportOptions()
        options.title = arguments.value("title")
        options.into = arguments.value("into")
        options.notes = arguments.value("notes")
        options.dryRun = arguments.has("dry-run")
        options.date = try arguments.date("date")
        if let jobs = try arguments.int("jobs", in: 1...256) { options.jobs = jobs }
        for path in arguments.positionals where !FileManager.default.fileExists(atPath: path) {
            throw UsageError(message: "\(Output.escaped(path)): no such file or folder")
        }
        let progress = Output.Progress("importing")
        let report = try library().importPhotos(arguments.positionals, options: options) { progress.update($0, $1) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            for rejection in report.rejected { Output.error("rejected \(Output.escaped(rejection.path)): \(Output.escaped(rejection.reason))") }
            let title = report.memory.map { "'\(Output.escaped($0.title))' (\($0.id.prefix(8)))" } ?? "(dry run)"
            Output.print("\(options.dryRun ? "would import" : "imported") \(report.imported) photo\(report.imported == 1 ? "" : "s") into \(title); "
                         + "\(report.duplicates) already there, \(report.skipped) skipped, \(report.rejected.count) rejected")
        }
        return report.rejected.isEmpty ? ExitCode.success : ExitCode.partialImport
    }
}
