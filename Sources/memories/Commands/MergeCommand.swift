import Foundation
import MemoriesKit

enum MergeCommand: Command {
    static let name = "merge"
    static let abstract = "Merge memories into another, without copying their photos."
    static let positionals: [Positional] = [.oneOrMore("<memory>")]
    static let discussion = """
    Every photo of each <memory> goes to the memory --into names (a photo it has already is not
    repeated), and the merged memories are deleted. No stored file is copied or rewritten. The
    folders they were imported from sync into the merged memory from then on, and the photos
    removed from them stay out of it.
    """
    static let options: [Option] = [.value("into", "MEMORY", "the memory they are merged into (id, id prefix or title); required"), .json]
    static let examples = [#"memories merge "Rome day 1" "Rome day 2" --into "Rome 2024""#]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard let into = arguments.value("into") else { throw UsageError(message: "merge needs --into MEMORY: the memory they are merged into") }
        let lib = try library()
        let target = try lib.resolve(into)
        var sources: [Memory] = []
        for query in arguments.positionals {
            let memory = try lib.resolve(query)
            if !sources.contains(where: { $0 === memory }) { sources.append(memory) }
        }
        var total = MoveReport()
        for source in sources {
            let title = source.title
            let report = try lib.merge(source, into: target)
            (total.moved, total.alreadyThere) = (total.moved + report.moved, total.alreadyThere + report.alreadyThere)
            if !arguments.has("json") { Output.print(MoveCommand.describe(report, from: title, to: target.title) + "; deleted '\(Output.escaped(title))'") }
        }
        if arguments.has("json") { try Output.json(total) }
        return ExitCode.success
    }
}
