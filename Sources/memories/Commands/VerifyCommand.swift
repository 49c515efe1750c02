import Foundation
import MemoriesKit

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
        let report = try lib.verify { progress.update($0, $1, bytes: $2) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            Output.print("database: \(report.database)")
            Output.print("\(report.blobsChecked) stored files checked, \(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.orphans) unused")
            for hex in report.missing { Output.print("missing: \(try lib.describeBlob(hex))") }
            for hex in report.corrupt { Output.print("corrupt: \(try lib.describeBlob(hex))") }
            if !report.missing.isEmpty || !report.corrupt.isEmpty {
                Output.print("to repair: `memories repair FOLDER...` rewrites damaged or missing photos from folders holding them and makes damaged thumbnails again")
            }
            Output.print("trash: \(report.trashBlobs) file\(report.trashBlobs == 1 ? "" : "s") (\(Formats.bytes(Int(report.trashBytes))))")
            for problem in report.problems { Output.print("problem: \(problem)") }
            Output.print(report.ok ? "healthy" : "NOT healthy")
        }
        return report.ok ? ExitCode.success : ExitCode.failure
    }
}
