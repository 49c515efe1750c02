import Foundation
import MemoriesKit

enum SplitCommand: Command {
    static let name = "split"
    static let abstract = "Move photos of a memory into a new memory, without copying them."
    static let positionals: [Positional] = [.one("<memory>"), .oneOrMore("<image>")]
    static let discussion = """
    Each <image> is named as `remove` names them; all are moved or none. The new memory is titled
    --title and dated by the earliest capture time among them. The memory keeps at least one photo,
    and remembers them as removed, so a sync of its folder does not bring them back.
    """
    static let options: [Option] = [.value("title", "T", "the new memory's title; required"), .json]
    static let examples = [#"memories split "Summer 2024" 'IMG_05*' --title "Lake weekend""#]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard let title = arguments.value("title"), !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError(message: "split needs --title T: the new memory's title")
        }
        let lib = try library()
        let source = try lib.resolve(arguments.positionals[0])
        let made = try lib.split(source, photos: Array(arguments.positionals.dropFirst()), title: title)
        if arguments.has("json") { try Output.json(made.report) } else {
            Output.print(MoveCommand.describe(made.report, from: source.title, to: made.memory.title) + " (a new memory, \(made.memory.id.uuidString.lowercased().prefix(8)))")
        }
        return ExitCode.success
    }
}
