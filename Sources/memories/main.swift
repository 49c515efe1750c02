// memories: a photo journal. A thin layer over MemoriesKit; see docs/cli.md.
import Foundation
import BlobStore
import MemoriesKit
import OpenSwiftData

let commands: [any Command.Type] = [
    ImportCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, RemoveCommand.self,
    ExportCommand.self, DeleteCommand.self, GCCommand.self, VerifyCommand.self, RepairCommand.self,
]

/// Commands that only read: they open the library read-only, so they never create, migrate or
/// write it, and work on a library folder that cannot be written.
let readOnlyCommands: Set<String> = ["list", "show", "export", "verify"]

let rootHelp = """
memories: keep photos as memories, titled and dated sets of photos with notes.

Usage: memories [--library DIR] <command> [options]

Commands:
\(commands.map { "  \($0.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \($0.abstract)" }.joined(separator: "\n"))

The library is --library DIR, else $MEMORIES_LIBRARY, else $XDG_DATA_HOME/memories
(~/.local/share/memories); it is created on first use.
`memories <command> --help` describes a command.
"""

func run(_ args: [String]) -> Int32 {
    var leading = args[...]
    var libraryPath: String?
    // --library before the command name; after it, it is one of every command's options (parsed
    // with them, so it is never taken out of another option's value).
    while let first = leading.first, first == "--library" || first.hasPrefix("--library=") {
        leading.removeFirst()
        if first == "--library" {
            guard let folder = leading.first, !folder.hasPrefix("--") else {
                Output.error("--library needs a folder (to give one starting with --, write --library=FOLDER)\n\n\(rootHelp)")
                return ExitCode.usage
            }
            libraryPath = folder
            leading.removeFirst()
        } else {
            libraryPath = String(first.dropFirst("--library=".count))
        }
    }
    let rest = Array(leading)
    guard let name = rest.first else {
        FileHandle.standardError.write(Data((rootHelp + "\n").utf8))
        return ExitCode.usage
    }
    if name == "--help" || name == "-h" || name == "help" {
        if rest.count > 1, let command = commands.first(where: { $0.name == rest[1] }) {
            Output.print(command.help)
        } else {
            Output.print(rootHelp)
        }
        return ExitCode.success
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        Output.error("unknown command '\(name)'\n\n\(rootHelp)")
        return ExitCode.usage
    }
    let commandArgs = Array(rest.dropFirst())
    if commandArgs.contains("--help") || commandArgs.contains("-h") {
        Output.print(command.help)
        return ExitCode.success
    }
    do {
        let arguments = try Arguments(commandArgs, options: command.options.union(["library"]), flags: command.flags)
        let directory = (arguments.value("library") ?? libraryPath).map { URL(fileURLWithPath: $0) } ?? Library.defaultDirectory()
        return try command.run(arguments) { try Library(directory: directory, readOnly: readOnlyCommands.contains(command.name)) }
    } catch let error as UsageError {
        Output.error("\(error.message)\nUsage: \(command.usage)")
        return ExitCode.usage
    } catch let error as LibraryError where error.isInvalidDate {
        // Dates come from the command line only: a bad one is a usage error wherever it is read.
        Output.error("\(describe(error))\nUsage: \(command.usage)")
        return ExitCode.usage
    } catch {
        Output.error(describe(error))
        return ExitCode.failure
    }
}

/// The message for a failure; a full disk is said plainly, with what to do.
func describe(_ error: Error) -> String {
    let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
    if (error as? BlobStoreError)?.isOutOfSpace == true || (error as? SQLiteError)?.primaryCode == 13 /* SQLITE_FULL */ {
        return "the disk holding the library is full (\(text)). Nothing half-written was kept; "
            + "what was imported before is intact. Free some space and run the same command again."
    }
    return text
}

extension LibraryError {
    var isInvalidDate: Bool {
        if case .invalidDate = self { return true }
        return false
    }
}

exit(run(Array(CommandLine.arguments.dropFirst())))
