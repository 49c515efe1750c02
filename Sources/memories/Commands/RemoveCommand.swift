import Foundation
import MemoriesKit

enum RemoveCommand: Command {
    static let name = "remove"
    static let abstract = "Remove photos from a memory, for good."
    static let positionals: [Positional] = [.one("<memory>"), .oneOrMore("<image>")]
    static let discussion = """
    Each <image> is a photo's id, a unique id prefix, its file name, or a pattern of file names
    (*, ? and [...], quoted from the shell) matching at least one; all are removed or none. The
    memory remembers them: importing any folder again does not add them back (it counts them as
    "removed earlier"; `import --include-removed` does). Their stored bytes go to the library's
    trash unless another memory has the same photo. A memory keeps at least one photo.
    """
    static let options: [Option] = []
    static let examples = [#"memories remove "Rome 2024" IMG_0002.jpg"#, #"memories remove "Rome 2024" IMG_0003.jpg 'Screenshot*'"#]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        let images = try lib.remove(memory, images: Array(arguments.positionals.dropFirst()))
        let what = images.count == 1 ? Output.escaped(images[0].filename) : "\(images.count) photos"
        Output.print("removed \(what) from '\(Output.escaped(memory.title))'")
        return ExitCode.success
    }
}
