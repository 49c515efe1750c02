import Foundation
import MemoriesKit

enum ShowCommand: Command {
    static let name = "show"
    static let abstract = "Show a memory and its photos."
    static let positionals: [Positional] = [.one("<memory>")]
    static let discussion = "<memory> is an id, a unique id prefix, or a title (case and surrounding spaces ignored when that is unique)."
    static let options: [Option] = [
        .flag("json", #"print {"id", "title", "date", "notes", "images": [{"id", "filename", "sha256", "format", "width", "height", "bytes", "takenAt", "takenAtZoneKnown", "fileModifiedAt", "caption"}]}"#),
    ]
    static let examples = [#"memories show "Rome 2024""#, "memories show 3f2a --json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let lib = try library()
        let detail = lib.detail(of: try lib.resolve(arguments.positionals[0]))
        if arguments.has("json") {
            try Output.json(detail)
            return ExitCode.success
        }
        Output.print("\(Output.escaped(detail.title))\n\(detail.date.prefix(10))  id \(detail.id)")
        if !detail.notes.isEmpty { Output.print("\n\(detail.notes)") }
        Output.print("")
        var cameraClock = false, fileClock = false
        var lines: [String] = []
        for image in detail.images {
            // A capture time whose offset is known shows in the user's zone; one without, as the
            // camera's clock said (marked *); a photo that says no time, its file's time (marked f).
            var taken = "                 "
            if let text = image.takenAt, let date = Display.parseISO(text) {
                if image.takenAtZoneKnown == true {
                    taken = Display.local(date) + " "
                } else {
                    taken = Display.local(date, in: TimeZone(identifier: "UTC")!) + "*"
                    cameraClock = true
                }
            } else if let text = image.fileModifiedAt, let date = Display.parseISO(text) {
                taken = Display.local(date) + "f"
                fileClock = true
            }
            lines.append("\(image.id.prefix(8))  \(taken)  \(image.format.padded(to: 4)) \("\(image.width)x\(image.height)".padded(to: 10)) \(Display.bytes(image.bytes).padded(to: 9))  \(Output.escaped(image.filename))")
            if let caption = image.caption { lines.append("          " + Output.escaped(caption).replacingOccurrences(of: "\n", with: "\n          ")) }
        }
        if !lines.isEmpty { Output.print(lines.joined(separator: "\n")) }
        Output.print("\(detail.images.count) photo\(detail.images.count == 1 ? "" : "s"), \(Display.bytes(detail.images.reduce(0) { $0 + $1.bytes })); "
                     + "times in \(Display.zone.identifier)\(cameraClock ? " (* the camera's clock: the photo does not say its zone)" : "")"
                     + (fileClock ? " (f the file's time: the photo does not say when it was taken)" : ""))
        return ExitCode.success
    }
}
