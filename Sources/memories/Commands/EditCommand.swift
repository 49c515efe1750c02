import Foundation
import MemoriesKit

enum EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change a memory's title, notes or date, or a photo's date."
    static let positionals: [Positional] = [.one("<memory>")]
    static let discussion = """
    At least one of --title, --notes, --date. <memory> is an id, a unique id prefix, or a title.
    With --photo, --date is that photo's capture time instead (the memory's date is left as it is).
    """
    static let options: [Option] = [
        .value("photo", "NAME", "change this photo's capture time (its id, id prefix or file name) with --date"),
        .value("title", "T", "the new title"),
        .value("notes", "N", "the new notes (an empty string clears them)"),
        .value("date", "D", "the new date (YYYY-MM-DD or ISO 8601, in your time zone unless it gives an offset)"),
    ]
    static let examples = [
        #"memories edit "Rome 2024" --title "Rome, June 2024""#,
        #"memories edit 3f2a --date 2024-06-11 --notes "Gelato every day""#,
        #"memories edit "Rome 2024" --photo IMG_0002.jpg --date 2024-06-12T18:30+02:00"#,
    ]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        guard arguments.value("title") != nil || arguments.value("notes") != nil || arguments.value("date") != nil else {
            throw UsageError(message: "nothing to change: give --title, --notes or --date")
        }
        if let title = arguments.value("title"), title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError(message: "--title cannot be empty: a memory is found by its title")
        }
        if let photo = arguments.value("photo") {
            guard let text = arguments.value("date"), arguments.value("title") == nil, arguments.value("notes") == nil else {
                throw UsageError(message: "--photo changes a photo's capture time: give --date, and not --title or --notes")
            }
            let parsed: (date: Date, offset: Int)
            do {
                parsed = try Display.parseDateWithOffset(text)
            } catch let error as LibraryError {
                throw UsageError(message: "--date: \(error.localizedDescription) (years 1–9999)")
            }
            let lib = try library()
            let memory = try lib.resolve(arguments.positionals[0])
            let image = try lib.setCaptureTime(of: memory, photo: photo, to: parsed.date, offset: parsed.offset)
            Output.print("updated the capture time of \(Output.escaped(image.filename)) in '\(Output.escaped(memory.title))'")
            return ExitCode.success
        }
        let date = try arguments.date("date")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        try lib.edit(memory, title: arguments.value("title"), notes: arguments.value("notes"), date: date)
        Output.print("updated '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}
