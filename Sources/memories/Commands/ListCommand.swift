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
            // One write for all the lines (20,000 memories were 20,000 system calls), appended to
            // one string (a string per line, then joined, was a third of listing 20,000).
            var text = ""
            text.reserveCapacity(memories.count * 80)
            for m in memories {
                if !text.isEmpty { text += "\n" }
                text += m.date.prefix(10)
                text += "  "
                text += "\(m.imageCount) photo\(m.imageCount == 1 ? "" : "s")".padded(to: 11)
                text += " "
                text += Display.bytes(m.bytes).padded(to: 9)
                text += "  "
                text += m.id.prefix(8)
                text += "  "
                text += Output.escaped(m.title)
            }
            if !text.isEmpty { Output.print(text) }
        }
        return ExitCode.success
    }
}
