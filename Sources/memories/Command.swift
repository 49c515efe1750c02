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

/// One subcommand: its help, the options it accepts, and what it does.
protocol Command {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    /// Help text after the usage line.
    static var details: String { get }
    static var options: Set<String> { get }
    static var flags: Set<String> { get }
    /// One-letter forms of options and flags (`j` for `jobs`).
    static var shortOptions: [Character: String] { get }
    /// Validates `arguments` and runs; returns the exit status.
    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32
}

extension Command {
    static var help: String { "\(abstract)\n\nUsage: \(usage)\n\n\(details)" }
    static var shortOptions: [Character: String] { [:] }
}

func requirePositionals(_ arguments: Arguments, _ count: ClosedRange<Int>, _ what: String) throws {
    guard count.contains(arguments.positionals.count) else {
        throw UsageError(message: arguments.positionals.count < count.lowerBound ? "missing \(what)" : "too many arguments: \(arguments.positionals.dropFirst(count.upperBound).joined(separator: " "))")
    }
}
