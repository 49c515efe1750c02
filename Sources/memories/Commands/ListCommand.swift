import Foundation
import MemoriesKit

enum ListCommand: Command {
    static let name = "list"
    static let abstract = "List memories, newest first."
    static let positionals: [Positional] = []
    static let discussion = "One line per memory: date, image count, size, short id and title."
    static let options: [Option] = [
        .value("since", "D", "memories dated on or after D (YYYY-MM-DD or ISO 8601, in your time zone unless it gives an offset)"),
        .value("until", "D", "memories dated before D"),
        .value("search", "TEXT", "memories whose title, notes or file names contain every word of TEXT (as word prefixes; accents and case ignored)"),
        .flag("json", #"print [{"id", "title", "date", "imageCount", "bytes"}]"#),
    ]
    static let examples = ["memories list", "memories list --search rome --since 2024-01-01"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let since = try arguments.date("since")
        let until = try arguments.date("until")
        let memories = try library().list(since: since, until: until, search: arguments.value("search"))
        if arguments.has("json") {
            try Output.json(memories, stamped: false)
        } else {
            if memories.isEmpty {
                let filtered = since != nil || until != nil || arguments.value("search") != nil
                Output.error(filtered ? "no memory matches" : "no memories yet: `memories import FOLDER --title T` makes one")
            }
            for m in memories {
                let count = "\(m.imageCount) photo\(m.imageCount == 1 ? "" : "s")"
                Output.print("\(m.date.prefix(10))  \(count.padding(toLength: 11, withPad: " ", startingAt: 0)) \(Formats.bytes(m.bytes).padding(toLength: 9, withPad: " ", startingAt: 0))  \(m.id.prefix(8))  \(Output.escaped(m.title))")
            }
        }
        return ExitCode.success
    }
}
