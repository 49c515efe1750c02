import Foundation
import MemoriesKit

enum GCCommand: Command {
    static let name = "gc"
    static let abstract = "Move stored files no memory uses to the trash; empty the trash of old ones."
    static let positionals: [Positional] = []
    static let discussion = """
    Nothing is deleted on first sight: an unused file is moved to the library's trash
    (.library_SUPPORT/trash/), and deleted by a later gc once it has been there for 7 days. A file
    in use again (a library.store restored from a backup) is taken back from the trash. gc first
    checks the store (SQLite's full integrity check, and that it is the store the photos belong
    to) and refuses, removing nothing, if anything is wrong. Safe while another `memories`
    process imports: writers and gc take the library's lock.
    """
    static let options: [Option] = [
        .flag("dry-run", short: "n", "list what would be moved, restored and deleted; change nothing"),
        .flag("prune-now", "delete everything in the trash now instead of after 7 days"),
        .flag("verbose", short: "v", "also name every file moved to the trash, one line each"),
        .json,
    ]
    static let examples = ["memories gc --dry-run", "memories gc --prune-now"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let report = try library().collectGarbage(dryRun: arguments.has("dry-run"), pruneNow: arguments.has("prune-now"))
        for warning in report.warnings { Output.error("warning: \(warning)") }
        for failure in report.failures { Output.error(failure) }
        let status = report.failures.isEmpty ? ExitCode.success : ExitCode.failure
        if arguments.has("json") {
            try Output.json(report)
            return status
        }
        let would = report.dryRun
        if would || arguments.has("verbose") { for hex in report.orphans { Output.print("\(would ? "would move" : "moved") to the trash: \(hex)") } }
        func files(_ n: Int) -> String { "\(n) file\(n == 1 ? "" : "s")" }
        Output.print("\(would ? "would move" : "moved") \(files(report.orphanBlobs)) (\(Display.bytes(Int(report.orphanBytes)))) to the trash, "
                     + "\(would ? "would restore" : "restored") \(files(report.restoredBlobs)) from it, "
                     + "\(would ? "would delete" : "deleted") \(files(report.prunedBlobs)) (\(Display.bytes(Int(report.bytesFreed)))) for good, "
                     + "and \(would ? "would remove" : "removed") \(report.tempFilesRemoved) partial write\(report.tempFilesRemoved == 1 ? "" : "s")")
        Output.print("the trash holds \(files(report.trashBlobs)) (\(Display.bytes(Int(report.trashBytes))))"
                     + (report.trashBlobs > 0 && !arguments.has("prune-now") ? "; each is deleted 7 days after it was moved there" : ""))
        return status
    }
}
