import Foundation
import MemoriesKit

enum VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check the database and every stored photo against its SHA-256."
    static let positionals: [Positional] = []
    static let discussion = """
    Runs SQLite's integrity_check, re-hashes every stored file, and checks that every photo a memory
    refers to is present and intact. Unused files (orphans) are counted; `memories gc` moves them to
    the trash. Opens the library read-only: it changes nothing. With --quick, SQLite's quick_check
    and a listing only: every photo a memory refers to is present, nothing is read or re-hashed (for
    a library in a bucket: no download).
    """
    static let options: [Option] = [
        .flag("quick", "check that every stored file is present, without reading or re-hashing any"),
        .value("jobs", "N", short: "j", "files re-hashed at once (default: the number of cores; 8 for a bucket)"),
        .quiet,
        .flag("json", #"print {"ok", "blobsChecked", "missing": [], "corrupt": [], "inTrash": [], "orphans", "trashBlobs", "trashBytes", "database", "problems": [], "quick"}"#),
    ]
    static let examples = ["memories verify", "memories verify --quick", "memories verify --json -j 16"]
    static let exitStatus = "0 only when healthy (database ok, nothing missing or corrupt), 1 otherwise, 64 usage error."

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let progress = Progress("verifying", enabled: !arguments.has("quiet"))
        let lib = try library()
        let jobs = try arguments.int("jobs", in: 1...256)
        let report = try lib.verify(jobs: jobs, quick: arguments.has("quick")) { progress.update($0, $1, bytes: $2) }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else {
            // With --quiet only what is wrong is printed: nothing for a healthy library.
            let quiet = arguments.has("quiet")
            if !quiet {
                Output.print("database: \(report.database)")
                Output.print(report.quick
                    ? "stored files listed, not re-hashed (--quick): \(report.missing.count) missing, \(report.orphans) unused"
                    : "\(report.blobsChecked) stored files checked, \(report.missing.count) missing, \(report.corrupt.count) corrupt, \(report.orphans) unused")
            }
            for hex in report.missing { Output.print("missing: \(try lib.describeBlob(hex))") }
            for hex in report.corrupt { Output.print("corrupt: \(try lib.describeBlob(hex))") }
            if !report.missing.isEmpty || !report.corrupt.isEmpty {
                Output.print("to repair: `memories repair FOLDER...` rewrites damaged or missing photos from folders holding them and makes damaged thumbnails again")
            }
            if !quiet { Output.print("trash: \(report.trashBlobs) file\(report.trashBlobs == 1 ? "" : "s") (\(Display.bytes(Int(report.trashBytes))))") }
            for problem in report.problems { Output.print("problem: \(problem)") }
            if !quiet || !report.ok { Output.print(report.ok ? "healthy" : "NOT healthy") }
        }
        return report.ok ? ExitCode.success : ExitCode.failure
    }
}
