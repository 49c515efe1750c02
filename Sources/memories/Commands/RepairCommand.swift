import Foundation
import MemoriesKit

enum RepairCommand: Command {
    static let name = "repair"
    static let abstract = "Restore damaged or missing stored photos from folders of the originals."
    static let positionals: [Positional] = [.oneOrMore("<folder-or-file>")]
    static let discussion = """
    Checks every stored file against its SHA-256 (as verify does), then reads the files under the
    folders given and rewrites each damaged or missing photo from a file with the same SHA-256.
    Lists what it restored and what no file matched. Importing a photo that is already stored
    repairs it too.
    """
    static let options: [Option] = [
        .flag("json", #"print {"restored": [{"sha256", "from"}], "unrestored": [{"sha256", "problem", "usedBy"}], "filesRead"}"#),
    ]
    static let examples = ["memories repair ~/Pictures/Rome /media/backup/photos"]
    static let exitStatus = "0 nothing left damaged, 1 some stored files could not be restored, 64 usage error."

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
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
