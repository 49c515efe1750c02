// memories: a photo journal. A thin layer over MemoriesKit; see docs/cli.md.
import Foundation
import BlobStore
import MemoriesKit
import OpenSwiftData

let commands: [any Command.Type] = [
    InitCommand.self, ImportCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, RemoveCommand.self,
    MoveCommand.self, MergeCommand.self, SplitCommand.self,
    ExportCommand.self, DeleteCommand.self, GCCommand.self, VerifyCommand.self, RepairCommand.self, BlobsCommand.self,
    CompletionCommand.self,
]

/// Commands that only read: they open the library read-only, so they never create, migrate or
/// write it, and work on a library folder that cannot be written.
let readOnlyCommands: Set<String> = ["list", "show", "export", "verify"]

/// The width of the command names in the root help: the longest name and a space.
let commandColumn = commands.map { $0.name.count }.max()! + 1

let rootHelp = """
memories: keep photos as memories, titled and dated sets of photos with notes.

Usage: memories [--library DIR] <command> [options]
       memories --version

Commands:
\(commands.map { "  \($0.name.padded(to: commandColumn)) \($0.abstract)" }.joined(separator: "\n"))

The library is --library DIR, else $MEMORIES_LIBRARY, else $XDG_DATA_HOME/memories
(~/.local/share/memories). Only `memories init` and `memories import` create one; the other
commands say when there is none.
`memories <command> --help` describes a command.
"""

func run(_ args: [String]) -> Int32 {
    let leading = LeadingOptions(args[...])
    guard !leading.libraryLacksFolder else {
        Output.error("--library needs a folder (to give one starting with --, write --library=FOLDER)\n\n\(rootHelp)")
        return ExitCode.usage
    }
    let libraryPath = leading.library
    let rest = Array(leading.rest)
    guard let name = rest.first else {
        FileHandle.standardError.write(Data((rootHelp + "\n").utf8))
        return ExitCode.usage
    }
    if name == "--version" || name == "-V" || name == "version" {
        Output.print("memories \(MemoriesVersion.string)")
        return ExitCode.success
    }
    if name == "--help" || name == "-h" || name == "help" {
        if rest.count > 1, rest[1] == "--man" {
            Output.print(CompletionCommand.manPage())
            return ExitCode.success
        }
        if rest.count > 1, let command = commands.first(where: { $0.name == rest[1] }) {
            Output.print(command.help)
        } else if rest.count > 1 {
            let suggestion = Suggestion.closest(to: rest[1], in: commands.map { $0.name })
            Output.error("no command '\(Output.escaped(rest[1]))'\(suggestion.map { "; did you mean '\($0)'?" } ?? "")"
                         + "\nUsage: memories help [<command>]; `memories --help` lists the commands")
            return ExitCode.usage
        } else {
            Output.print(rootHelp)
        }
        return ExitCode.success
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        if let suggestion = Suggestion.closest(to: name, in: commands.map { $0.name } + ["version", "help"]) {
            Output.error("unknown command '\(Output.escaped(name))'; did you mean '\(suggestion)'?\nUsage: memories [--library DIR] <command> [options]; `memories --help` lists the commands")
        } else {
            Output.error("unknown command '\(Output.escaped(name))'\n\n\(rootHelp)")
        }
        return ExitCode.usage
    }
    let commandArgs = Array(rest.dropFirst())
    if asksForHelp(commandArgs, command) {
        Output.print(command.help)
        return ExitCode.success
    }
    do {
        let arguments = try command.parse(commandArgs)
        if arguments.value("library") == "" { throw UsageError(message: "--library needs a folder") }
        let directory = (arguments.value("library") ?? libraryPath).map { URL(fileURLWithPath: $0) } ?? Library.defaultDirectory()
        // `init` makes a library rather than opening one.
        if command == InitCommand.self { return try InitCommand.create(arguments, directory: directory) }
        var opened: Library?
        let code = try command.run(arguments) {
            // Only `import` makes a library: every other command on a folder without one says so.
            // A dry run of it reads the library, and writes nothing (see ImportCommand).
            let dryImport = command.name == "import" && arguments.has("dry-run")
            let library = try Library(directory: directory, readOnly: readOnlyCommands.contains(command.name) || dryImport,
                                      create: command.name == "import" && !dryImport,
                                      photoStoreMayBeMissing: ["verify", "repair"].contains(command.name))
            if let note = library.privacyNote { Output.error(note) }
            if let note = library.emptiedStoreNote { Output.error(note) }
            library.notice = { Output.error($0) }
            opened = library
            return library
        }
        // A part of the library that could not be read (each said above) read as empty: the
        // command did not see everything, so it does not report success.
        if let failures = opened?.loadFailures, !failures.isEmpty, code == ExitCode.success {
            Output.error("\(failures.count == 1 ? "a part" : "\(failures.count) parts") of the library could not be read (above), so this may be "
                         + "incomplete; `memories verify` says more")
            return ExitCode.failure
        }
        return code
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

/// The message for a failure: a full disk, a damaged or busy store are said plainly, with what
/// to do, never as a bare SQLite code.
func describe(_ error: Error) -> String {
    let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
    let sqlite = error as? SQLiteError
    let code = sqlite?.primaryCode
    // The operating system's word under a blob write or an SQLite failure: a disk that went away
    // (unplugged, unmounted, a FUSE file system whose daemon stopped) is said as such.
    var system = sqlite?.systemErrno ?? 0
    if case .io(_, _, let errno)? = error as? BlobStoreError { system = errno }
    // A library on a file system that cannot hold one (exFAT and FAT have no hard links, which the
    // photo store publishes with; fusefat cannot map SQLite's shared memory): said, with where to keep it.
    if case .io(let path, "link", EPERM)? = error as? BlobStoreError {
        return "the file system holding the library cannot make hard links (\(path)): exFAT, FAT and some FUSE file systems cannot, and the photo "
            + "store needs them to keep each photo whole and once. Keep the library on a Linux file system (ext4, btrfs, xfs); "
            + "what goes on a USB stick is an export (`memories export`). Nothing was stored."
    }
    if let sqlite, sqlite.code == SQLiteError.ioErrorShmOpen || sqlite.code == SQLiteError.ioErrorShmMap {
        return "the file system holding the library cannot keep SQLite's shared-memory file beside the store (\(sqlite.message)): fusefat and some "
            + "network file systems cannot. Keep the library on a Linux file system (ext4, btrfs, xfs). Nothing was changed."
    }
    // SQLite's write error does not always keep its errno (EFBIG): a failed write in a process
    // with a file size limit is taken for that limit.
    var fileLimit = rlimit()
    let limitedFiles = getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileLimit) == 0 && fileLimit.rlim_cur != rlim_t.max
    if system == EFBIG || (limitedFiles && code == SQLiteError.ioError) {
        return "a file size limit (`ulimit -f`) stopped a write of the library. What was committed before is intact; "
            + "raise the limit and run the same command again."
    }
    if [ENOTCONN, ECONNABORTED, ENODEV, ENXIO, ESHUTDOWN].contains(system) {
        return "the disk holding the library went away (\(String(cString: strerror(system)))): unplugged, unmounted, or its file system stopped. "
            + "What was committed before is intact; plug it in or mount it again and run the same command again."
    }
    // SQLITE_FULL, or SQLITE_IOERR_SHMSIZE: the -shm file could not grow (the disk is full).
    if (error as? BlobStoreError)?.isOutOfSpace == true || code == SQLiteError.full || sqlite?.code == SQLiteError.ioErrorShmSize {
        return "the disk holding the library is full. Nothing half-written was kept; "
            + "what was imported before is intact. Free some space and run the same command again."
    }
    guard let sqlite, let code else { return text }
    switch code {
    case SQLiteError.corrupt, SQLiteError.notADatabase:
        return "the library's store is damaged (\(sqlite.message)). Nothing was changed. `memories verify` says more; restore library.store "
            + "from a backup (library.store.backup-* beside it), or recover it with `sqlite3 library.store .recover`."
    case SQLiteError.busy, SQLiteError.locked:
        return "the library is busy: another process (an import, gc or verify) kept it locked for over 10 seconds. Nothing was changed; try again."
    case SQLiteError.readOnly:
        return "the library cannot be written (a read-only folder, file or disk). Nothing was changed."
    case SQLiteError.ioError:
        return "the disk holding the library failed to read or write (\(sqlite.message)); it may be full or failing. "
            + "What was committed before is intact; check the disk and run the same command again."
    case SQLiteError.cantOpen:
        return "cannot open the library's store (\(sqlite.message)): check that its folder exists and can be read."
    default:
        return "the library's store refused the operation: \(sqlite.message). Nothing was changed."
    }
}

extension LibraryError {
    var isInvalidDate: Bool {
        if case .invalidDate = self { return true }
        return false
    }
}

// A program started by Foundation's Process from a Dispatch thread inherits that thread's signal
// mask, in which nearly every signal is blocked: Ctrl-C, SIGTERM and a hang-up would then not stop
// an import. They are taken back here (what is ignored stays ignored).
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, number) }
pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
// A file size limit (ulimit -f) is an error to say (EFBIG), not a signal that kills in silence.
signal(SIGXFSZ, SIG_IGN)
reexecWithHugePagesForImport()
boundHeapRetention()
exit(run(Array(CommandLine.arguments.dropFirst())))

/// Whether `--help` or `-h` stands among `words` as an option of its own: not the value of the
/// option before it (`--title -h` is a title), nor after `--`.
func asksForHelp(_ words: [String], _ command: any Command.Type) -> Bool {
    let takesValue = Set(command.allOptions.filter { $0.value != nil }.flatMap { option in
        ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? [])
    })
    var i = 0
    while i < words.count {
        let word = words[i]
        if word == "--" { return false }
        if word == "--help" || word == "-h" { return true }
        i += takesValue.contains(word) ? 2 : 1
    }
    return false
}
