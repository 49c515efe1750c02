import Foundation
import MemoriesKit

/// A usage error: printed with the command's usage line, exit status 64.
struct UsageError: Error {
    var message: String
}

/// Parses `--name value`, `--name=value` and `--flag` options and positionals, against the
/// options a command declares. A value is never taken from a word that is itself one of the
/// command's options or flags (`--title --json` is "--title needs a value"); such a value is
/// given as `--title=--json`.
struct Arguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init(_ args: [String], options: Set<String>, flags allowedFlags: Set<String>) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                if arg.hasPrefix("-") && arg.count > 1 && !onlyPositionals && !arg.hasPrefix("--") {
                    throw UsageError(message: "unknown option '\(arg)'")
                }
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if allowedFlags.contains(name) {
                guard inline == nil else { throw UsageError(message: "--\(name) takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard i < args.count, !Self.isOption(args[i], options: options, flags: allowedFlags) else {
                        throw UsageError(message: "--\(name) needs a value" + (i < args.count ? " (to give one starting with --, write --\(name)=\(args[i]))" : ""))
                    }
                    values[name, default: []].append(args[i])
                    i += 1
                }
            } else {
                throw UsageError(message: "unknown option '--\(name)'")
            }
        }
    }

    /// Whether `word` is "--", or `--name` / `--name=…` for one of the options or flags (or --help).
    static func isOption(_ word: String, options: Set<String>, flags: Set<String>) -> Bool {
        guard word.hasPrefix("--") else { return false }
        let name = String(word.dropFirst(2).prefix { $0 != "=" })
        return name.isEmpty || name == "help" || options.contains(name) || flags.contains(name)
    }

    func value(_ name: String) -> String? { values[name]?.last }

    /// A date option (`YYYY-MM-DD` or ISO 8601, years 1–9999); a bad one is a usage error.
    func date(_ name: String) throws -> Date? {
        guard let text = value(name) else { return nil }
        do {
            return try Formats.parseDate(text)
        } catch let error as LibraryError {
            throw UsageError(message: "--\(name): \(error.localizedDescription) (years 1–9999)")
        }
    }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(message: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }
}
