import Foundation
import MemoriesKit

enum RemoveCommand: Command {
    static let name = "remove"
    static let abstract = "Remove one photo from a memory."
    static let positionals: [Positional] = [.one("<memory>"), .one("<image>")]
    static let discussion = """
    <image> is the photo's id, a unique id prefix, or its file name. Its stored bytes go to the
    library's trash unless another memory has the same photo.
    """
    static let options: [Option] = []
    static let examples = [#"memories remove "Rome 2024" IMG_0002.jpg"#]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        let image = try lib.remove(memory, image: arguments.positionals[1])
        Output.print("removed \(Output.escaped(image.filename)) from '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}
