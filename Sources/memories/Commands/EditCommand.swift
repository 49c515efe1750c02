import Foundation
import MemoriesKit

enum EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change a memory's title, notes or date."
    static let positionals: [Positional] = [.one("<memory>")]
    static let discussion = "At least one of --title, --notes, --date. <memory> is an id, a unique id prefix, or a title."
    static let options: [Option] = [
        .value("title", "T", "the new title"),
        .value("notes", "N", "the new notes (an empty string clears them)"),
        .value("date", "D", "the new date (YYYY-MM-DD or ISO 8601, in your time zone unless it gives an offset)"),
    ]
    static let examples = [
        #"memories edit "Rome 2024" --title "Rome, June 2024""#,
        #"memories edit 3f2a --date 2024-06-11 --notes "Gelato every day""#,
    ]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard arguments.value("title") != nil || arguments.value("notes") != nil || arguments.value("date") != nil else {
            throw UsageError(message: "nothing to change: give --title, --notes or --date")
        }
        if let title = arguments.value("title"), title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError(message: "--title cannot be empty: a memory is found by its title")
        }
        let date = try arguments.date("date")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        try lib.edit(memory, title: arguments.value("title"), notes: arguments.value("notes"), date: date)
        Output.print("updated '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}
