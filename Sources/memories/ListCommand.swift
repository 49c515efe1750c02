import Foundation
import MemoriesKit

enum ListCommand: Command {
    static let name = "list"
    static let abstract = "List memories, newest first."
    static let usage = "memories list [--since D] [--until D] [--search TEXT] [--json]"
    static let details = """
    One line per memory: date, image count, size, short id and title.

    Options:
      --since D      memories dated on or after D (YYYY-MM-DD or ISO 8601)
      --until D      memories dated before D
      --search TEXT  memories whose title, notes or file names contain every word of TEXT
                     (as word prefixes; accents and case ignored)
      --json         print [{"id","title","date","imageCount","bytes"}]

    Examples:
      memories list
      memories list --search rome --since 2024-01-01
    """
    static let options: Set<String> = ["since", "until", "search"]
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 0...0, "")
        let since = try arguments.date("since")
        let until = try arguments.date("until")
        let memories = try library().list(since: since, until: until, search: arguments.value("search"))
        if arguments.has("json") {
            try Output.json(memories)
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

enum ShowCommand: Command {
    static let name = "show"
    static let abstract = "Show a memory and its photos."
    static let usage = "memories show <memory> [--json]"
    static let details = """
    <memory> is an id, a unique id prefix, or an exact title.

    Options:
      --json   print {"id","title","date","notes","images":[{"id","filename","sha256","format","width","height","bytes","takenAt","takenAtZoneKnown","fileModifiedAt"}]}

    Examples:
      memories show "Rome 2024"
      memories show 3f2a --json
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 1...1, "<memory>")
        let lib = try library()
        let detail = try lib.detail(of: try lib.resolve(arguments.positionals[0]))
        if arguments.has("json") {
            try Output.json(detail)
            return ExitCode.success
        }
        Output.print("\(Output.escaped(detail.title))\n\(detail.date.prefix(10))  id \(detail.id)")
        if !detail.notes.isEmpty { Output.print("\n\(detail.notes)") }
        Output.print("")
        var cameraClock = false
        for image in detail.images {
            // A capture time whose offset is known shows in the user's zone; one without, as the
            // camera's clock said (marked *).
            var taken = "                 "
            if let text = image.takenAt, let date = ISO8601DateFormatter().date(from: text) {
                if image.takenAtZoneKnown == true {
                    taken = Formats.local(date) + " "
                } else {
                    taken = Formats.local(date, in: TimeZone(identifier: "UTC")!) + "*"
                    cameraClock = true
                }
            }
            Output.print("\(image.id.prefix(8))  \(taken)  \(image.format.padding(toLength: 4, withPad: " ", startingAt: 0)) \("\(image.width)x\(image.height)".padding(toLength: 10, withPad: " ", startingAt: 0)) \(Formats.bytes(image.bytes).padding(toLength: 9, withPad: " ", startingAt: 0))  \(Output.escaped(image.filename))")
        }
        Output.print("\(detail.images.count) photo\(detail.images.count == 1 ? "" : "s"), \(Formats.bytes(detail.images.reduce(0) { $0 + $1.bytes })); "
                     + "times in \(Formats.zone.identifier)\(cameraClock ? " (* the camera's clock: the photo does not say its zone)" : "")")
        return ExitCode.success
    }
}

enum EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change a memory's title, notes or date."
    static let usage = "memories edit <memory> [--title T] [--notes N] [--date D]"
    static let details = """
    At least one of --title, --notes, --date. <memory> is an id, a unique id prefix, or a title.

    Options:
      --title T   the new title
      --notes N   the new notes (an empty string clears them)
      --date D    the new date (YYYY-MM-DD or ISO 8601, in your time zone unless it gives an offset)

    Examples:
      memories edit "Rome 2024" --title "Rome, June 2024"
      memories edit 3f2a --date 2024-06-11 --notes "Gelato every day"
    """
    static let options: Set<String> = ["title", "notes", "date"]
    static let flags: Set<String> = []

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 1...1, "<memory>")
        guard arguments.value("title") != nil || arguments.value("notes") != nil || arguments.value("date") != nil else {
            throw UsageError(message: "nothing to change: give --title, --notes or --date")
        }
        let date = try arguments.date("date")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        try lib.edit(memory, title: arguments.value("title"), notes: arguments.value("notes"), date: date)
        Output.print("updated '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}

enum RemoveCommand: Command {
    static let name = "remove"
    static let abstract = "Remove one photo from a memory."
    static let usage = "memories remove <memory> <image>"
    static let details = """
    <image> is the photo's id, a unique id prefix, or its file name. Its stored bytes go to the
    library's trash unless another memory has the same photo.

    Options: none.

    Examples:
      memories remove "Rome 2024" IMG_0002.jpg
    """
    static let options: Set<String> = []
    static let flags: Set<String> = []

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 2...2, "<memory> <image>")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        let image = try lib.remove(memory, image: arguments.positionals[1])
        Output.print("removed \(Output.escaped(image.filename)) from '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}

enum DeleteCommand: Command {
    static let name = "delete"
    static let abstract = "Delete a memory, its photos, and every stored file no longer used."
    static let usage = "memories delete <memory> [--yes]"
    static let details = """
    Asks for confirmation on a terminal. The memory's photos that no other memory has go to the
    library's trash (`memories gc` empties it of what has been there 7 days).

    Options:
      --yes   do not ask (required when input is not a terminal)

    Examples:
      memories delete "Rome 2024"
      memories delete 3f2a --yes
    """
    static let options: Set<String> = []
    static let flags: Set<String> = ["yes"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        try requirePositionals(arguments, 1...1, "<memory>")
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        if !arguments.has("yes") {
            guard isatty(STDIN_FILENO) == 1 else { throw UsageError(message: "delete needs --yes when input is not a terminal") }
            FileHandle.standardError.write(Data("Delete '\(Output.escaped(memory.title))' and its \(memory.memoryImages.count) photo\(memory.memoryImages.count == 1 ? "" : "s")? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                Output.print("kept '\(Output.escaped(memory.title))'")
                return ExitCode.failure
            }
        }
        let title = memory.title
        try lib.delete(memory)
        Output.print("deleted '\(Output.escaped(title))'")
        return ExitCode.success
    }
}
