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
    /// The positional arguments, in order: the usage line shows them and the parser counts them.
    static var positionals: [Positional] { get }
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

    /// The positional arguments as the usage line writes them: `<memory> <dest>`.
    static var arguments: String { positionals.map(\.usage).joined(separator: " ") }

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
    /// Parses the words after the command's name against its declared options, and counts the
    /// positional arguments against its declared ones.
    static func parse(_ words: [String]) throws -> Arguments {
        let all = allOptions
        let arguments = try Arguments(words,
                                      options: Set(all.filter { $0.value != nil }.map(\.name)),
                                      flags: Set(all.filter { $0.value == nil }.map(\.name)),
                                      short: Dictionary(uniqueKeysWithValues: all.compactMap { option in option.short.map { ($0, option.name) } }))
        let given = arguments.positionals.count
        let required = positionals.filter { !$0.optional }
        if given < required.count {
            throw UsageError(message: "missing " + required[given...].map(\.placeholder).joined(separator: " "))
        }
        if given > positionals.count && positionals.last?.repeats != true {
            throw UsageError(message: "too many arguments: \(arguments.positionals.dropFirst(positionals.count).map { Output.escaped($0) }.joined(separator: " "))")
        }
        return arguments
    }
}

/// Paragraphs (separated by a blank line) re-wrapped to `width` columns.
func reflow(_ text: String, width: Int = 100) -> String {
    text.components(separatedBy: "\n\n")
        .map { wrap($0.replacingOccurrences(of: "\n", with: " "), width: width).joined(separator: "\n") }
        .joined(separator: "\n\n")
}

/// A positional argument, declared once: its placeholder in the usage line (`<memory>`) and
/// whether it takes one word or one or more (`<folder-or-file>...`).
/// An optional one (`[<memory>]`) is left out when an option stands for it (`export --all`): the
/// command says which, and the parser only counts the others as required.
struct Positional {
    let placeholder: String
    let repeats: Bool
    var optional = false

    static func one(_ placeholder: String) -> Positional { Positional(placeholder: placeholder, repeats: false) }
    static func oneOrMore(_ placeholder: String) -> Positional { Positional(placeholder: placeholder, repeats: true) }
    static func optional(_ placeholder: String) -> Positional { Positional(placeholder: placeholder, repeats: false, optional: true) }

    var usage: String { optional ? "[\(placeholder)]" : repeats ? placeholder + "..." : placeholder }
}
