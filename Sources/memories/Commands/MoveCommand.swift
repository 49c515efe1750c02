import Foundation
import MemoriesKit

enum MoveCommand: Command {
    static let name = "move"
    static let abstract = "Move photos to another memory, without copying them."
    static let positionals: [Positional] = [.one("<memory>"), .oneOrMore("<image>")]
    static let discussion = """
    Each <image> is named as `remove` names them (id, id prefix, file name, or a quoted pattern of
    file names); all are moved or none. A photo the other memory already has is only taken out of
    this one. No stored file is copied or rewritten. This memory remembers them as removed, so a
    sync of its folder does not bring them back; it keeps at least one photo (`merge` moves all).
    """
    static let options: [Option] = [.value("to", "MEMORY", "the memory they go to (id, id prefix or title); required"), .json]
    static let examples = [#"memories move "Summer 2024" 'IMG_04*' --to "Anna's birthday""#]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard let to = arguments.value("to") else { throw UsageError(message: "move needs --to MEMORY: the memory the photos go to") }
        let lib = try library()
        let source = try lib.resolve(arguments.positionals[0]), target = try lib.resolve(to)
        let report = try lib.move(Array(arguments.positionals.dropFirst()), from: source, to: target)
        if arguments.has("json") { try Output.json(report) } else {
            Output.print(describe(report, from: source.title, to: target.title))
        }
        return ExitCode.success
    }

    /// "moved 3 photos from 'A' to 'B' (1 already there, taken out of 'A' only)".
    static func describe(_ report: MoveReport, from source: String, to target: String) -> String {
        let there = report.alreadyThere > 0 ? " (\(report.alreadyThere) already there, taken out of '\(Output.escaped(source))' only)" : ""
        return "moved \(counted(report.moved, "a photo")) from '\(Output.escaped(source))' to '\(Output.escaped(target))'" + there
    }
}
