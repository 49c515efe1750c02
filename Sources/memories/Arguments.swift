import Foundation
import MemoriesKit

/// A usage error: printed with the command's usage line, exit status 64.
struct UsageError: Error {
    var message: String
}

/// Parses `--name value`, `--name=value` and `--flag` options, their short forms (`-j 2`, `-j2`,
/// `-n`) and positionals, against the options a command declares. A value is never taken from a
/// word starting with `--` (`--title --json` is "--title needs a value"); such a value is given as
/// `--title=--json`. An unknown option is named with the closest known one.
struct Arguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init(_ args: [String], options: Set<String>, flags allowedFlags: Set<String>, short: [Character: String] = [:]) throws {
        var i = 0
        var onlyPositionals = false
        var args = args
        while i < args.count {
            var arg = args[i]
            // `-j 2`, `-j2`, `-n`: the long option they stand for.
            if !onlyPositionals, arg.count >= 2, arg.hasPrefix("-"), !arg.hasPrefix("--"), Double(arg) == nil {
                let letter = arg[arg.index(after: arg.startIndex)]
                guard let long = short[letter] else {
                    let known = short.keys.sorted().map { "-\($0)" }.joined(separator: ", ")
                    throw UsageError(message: "unknown option '\(arg)'" + (known.isEmpty ? "" : " (short options here: \(known))"))
                }
                let rest = String(arg.dropFirst(2))
                if !rest.isEmpty {
                    guard options.contains(long) else { throw UsageError(message: "-\(letter) (--\(long)) takes no value") }
                    args.insert(rest, at: i + 1)
                }
                arg = "--" + long
            }
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
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
                    guard i < args.count, !args[i].hasPrefix("--") else {
                        throw UsageError(message: "--\(name) needs a value" + (i < args.count ? " (to give one starting with --, write --\(name)=\(args[i]))" : ""))
                    }
                    values[name, default: []].append(args[i])
                    i += 1
                }
            } else {
                let suggestion = Suggestion.closest(to: name, in: Array(options) + Array(allowedFlags) + ["help"])
                throw UsageError(message: "unknown option '--\(name)'" + (suggestion.map { " (did you mean '--\($0)'?)" } ?? ""))
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
            return try Display.parseDate(text)
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
