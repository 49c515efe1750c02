import Foundation
import MemoriesKit

enum EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change a memory's title, notes or date, or a photo's date or caption."
    static let positionals: [Positional] = [.one("<memory>")]
    static let discussion = """
    At least one of --title, --notes, --date. <memory> is an id, a unique id prefix, or a title.
    With --photo, --date is that photo's capture time instead (the memory's date is left as it is),
    and --caption its caption (an empty one removes it): at least one of the two.
    """
    static let options: [Option] = [
        .value("photo", "NAME", "change this photo (its id, id prefix or file name): its --date or --caption"),
        .value("caption", "TEXT", "with --photo: the photo's caption (shown by show, the gallery and the manifest)"),
        .value("title", "T", "the new title"),
        .value("notes", "N", "the new notes (an empty string clears them)"),
        .value("date", "D", "the new date (YYYY-MM-DD or ISO 8601, in your time zone unless it gives an offset)"),
    ]
    static let examples = [
        #"memories edit "Rome 2024" --title "Rome, June 2024""#,
        #"memories edit 3f2a --date 2024-06-11 --notes "Gelato every day""#,
        #"memories edit "Rome 2024" --photo IMG_0002.jpg --date 2024-06-12T18:30+02:00"#,
        #"memories edit "Rome 2024" --photo IMG_0002.jpg --caption "Gelato at Giolitti""#,
    ]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        if arguments.value("caption") != nil && arguments.value("photo") == nil {
            throw UsageError(message: "--caption is a photo's: give --photo NAME")
        }
        guard arguments.value("title") != nil || arguments.value("notes") != nil || arguments.value("date") != nil
            || arguments.value("caption") != nil else {
            throw UsageError(message: "nothing to change: give --title, --notes or --date")
        }
        if let title = arguments.value("title"), title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError(message: "--title cannot be empty: a memory is found by its title")
        }
        if let photo = arguments.value("photo") {
            guard arguments.value("date") != nil || arguments.value("caption") != nil,
                  arguments.value("title") == nil, arguments.value("notes") == nil else {
                throw UsageError(message: "--photo changes a photo's capture time or caption: give --date or --caption, and not --title or --notes")
            }
            var parsed: (date: Date, offset: Int)?
            if let text = arguments.value("date") {
                do {
                    parsed = try Display.parseDateWithOffset(text)
                } catch let error as LibraryError {
                    throw UsageError(message: "--date: \(error.localizedDescription) (years 1–9999)")
                }
            }
            let caption = arguments.value("caption")
            if let caption, caption.utf8.count > 10_000 { throw UsageError(message: "--caption is at most 10,000 bytes") }
            let lib = try library()
            let memory = try lib.resolve(arguments.positionals[0])
            let image = try lib.editPhoto(of: memory, photo: photo, capture: parsed, caption: caption)
            let what = [parsed == nil ? nil : "capture time", caption == nil ? nil : "caption"].compactMap { $0 }.joined(separator: " and ")
            Output.print("updated the \(what) of \(Output.escaped(image.filename)) in '\(Output.escaped(memory.title))'")
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
