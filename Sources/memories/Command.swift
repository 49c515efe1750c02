import Foundation
import MemoriesKit

/// Exit statuses, documented in docs/cli.md.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    /// `import` imported what it could but rejected some files.
    static let partialImport: Int32 = 2
    /// A usage error (as sysexits.h's EX_USAGE).
    static let usage: Int32 = 64
}

/// One subcommand, declared once: its name, what it takes and what it does. Its usage line and
/// `--help` page are made from these declarations (`usage`, `help`), and so are the parser's
/// accepted options, the shell completions and the man page.
protocol Command {
    static var name: String { get }
    /// One line: what the command does.
    static var abstract: String { get }
    /// The positional arguments as written in the usage line: `<memory> <dest>`; empty for none.
    static var arguments: String { get }
    /// The paragraphs between the usage line and the options.
    static var discussion: String { get }
    /// The options, in the order the help lists them (`--library` and `--help` are added to every command).
    static var options: [Option] { get }
    /// Command lines a user can copy, with an optional `# comment`.
    static var examples: [String] { get }
    /// What each exit status means, when more than "0 success, 1 failure, 64 usage error".
    static var exitStatus: String { get }
    /// Validates `arguments` and runs; returns the exit status.
    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32
}

extension Command {
    static var exitStatus: String { "0 success, 1 failure, 64 usage error." }

    /// Every option the parser accepts: the declared ones, `--library` and `--help`.
    static var allOptions: [Option] { options + [.library, .help] }

    static var usage: String {
        (["memories", name] + (arguments.isEmpty ? [] : [arguments]) + options.map(\.usage)).joined(separator: " ")
    }

    static var help: String {
        """
        \(abstract)

        Usage: \(wrap(usage, width: 93).joined(separator: "\n       "))

        \(reflow(discussion))

        Options:
        \(optionsSection(allOptions))

        Examples:
        \(examples.map { "  " + $0 }.joined(separator: "\n"))

        \(reflow("Exit status: " + exitStatus))
        """
    }

    /// Parses the words after the command's name against its declared options.
    static func parse(_ words: [String]) throws -> Arguments {
        let all = allOptions
        return try Arguments(words,
                             options: Set(all.filter { $0.value != nil }.map(\.name)),
                             flags: Set(all.filter { $0.value == nil }.map(\.name)),
                             short: Dictionary(uniqueKeysWithValues: all.compactMap { option in option.short.map { ($0, option.name) } }))
    }
}

/// Paragraphs (separated by a blank line) re-wrapped to `width` columns.
func reflow(_ text: String, width: Int = 100) -> String {
    text.components(separatedBy: "\n\n")
        .map { wrap($0.replacingOccurrences(of: "\n", with: " "), width: width).joined(separator: "\n") }
        .joined(separator: "\n\n")
}

func requirePositionals(_ arguments: Arguments, _ count: ClosedRange<Int>, _ what: String) throws {
    guard count.contains(arguments.positionals.count) else {
        throw UsageError(message: arguments.positionals.count < count.lowerBound ? "missing \(what)" : "too many arguments: \(arguments.positionals.dropFirst(count.upperBound).joined(separator: " "))")
    }
}
