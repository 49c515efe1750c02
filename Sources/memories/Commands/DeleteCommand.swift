import Foundation
import MemoriesKit

enum DeleteCommand: Command {
    static let name = "delete"
    static let abstract = "Delete a memory, its photos, and every stored file no longer used."
    static let positionals: [Positional] = [.one("<memory>")]
    static let discussion = """
    Asks for confirmation on a terminal. The memory's photos that no other memory has go to the
    library's trash (`memories gc` empties it of what has been there 7 days).
    """
    static let options: [Option] = [.flag("yes", "do not ask (required when input is not a terminal)")]
    static let examples = [#"memories delete "Rome 2024""#, "memories delete 3f2a --yes"]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
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
