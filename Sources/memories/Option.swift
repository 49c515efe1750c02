/// One option a command accepts, declared once. The parser, the usage line, the `--help` page,
/// the shell completions and the man page are all made from these declarations, so what the
/// program accepts and what it says it accepts cannot drift apart.
struct Option: Sendable {
    /// The long name, without dashes: `dry-run`.
    let name: String
    /// The one-letter form, if any: `n` for `-n`.
    let short: Character?
    /// The value's placeholder (`T`, `SIZE`); nil for a flag, which takes no value.
    let value: String?
    /// What it does, one sentence or two; wrapped to the page when shown.
    let help: String

    /// A flag: `--json`, `-n`.
    static func flag(_ name: String, short: Character? = nil, _ help: String) -> Option {
        Option(name: name, short: short, value: nil, help: help)
    }

    /// An option with a value: `--title T`, `-j N`.
    static func value(_ name: String, _ placeholder: String, short: Character? = nil, _ help: String) -> Option {
        Option(name: name, short: short, value: placeholder, help: help)
    }

    /// Accepted by every command, after its name as before it.
    static let library = Option.value("library", "DIR", "the library folder (default: $MEMORIES_LIBRARY, else ~/.local/share/memories)")
    static let help = Option.flag("help", short: "h", "show this help")
    static let json = Option.flag("json", "print the result as JSON (see docs/cli.md)")
    static let quiet = Option.flag("quiet", short: "q", "print only problems: no progress, no summary")
    static let verbose = Option.flag("verbose", short: "v", "also name every file, one line each")
    static let dryRun = Option.flag("dry-run", short: "n", "report what would be done; change nothing")

    /// `-n, --dry-run` or `--title T`: how the option is written in a help page.
    var synopsis: String {
        (short.map { "-\($0), " } ?? "") + "--" + name + (value.map { " " + $0 } ?? "")
    }

    /// `[-n|--dry-run]` or `[--title T]`: how it is written in a usage line.
    var usage: String {
        "[" + (short.map { "-\($0)|" } ?? "") + "--" + name + (value.map { " " + $0 } ?? "") + "]"
    }
}

/// A help page's "Options:" section: the synopses in a column, the help wrapped beside them
/// (on the next line when a synopsis is too long for the column), as swift-argument-parser does.
func optionsSection(_ options: [Option], width: Int = 100) -> String {
    let column = min(24, (options.map { $0.synopsis.count }.max() ?? 0) + 4)
    var lines: [String] = []
    for option in options {
        let wrapped = wrap(option.help, width: width - column)
        let synopsis = "  " + option.synopsis
        if synopsis.count + 2 > column {
            lines.append(synopsis)
            lines += wrapped.map { String(repeating: " ", count: column) + $0 }
        } else {
            lines.append(synopsis.padded(to: column) + wrapped[0])
            lines += wrapped.dropFirst().map { String(repeating: " ", count: column) + $0 }
        }
    }
    return lines.joined(separator: "\n")
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word has its own line).
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty && line.count + 1 + word.count > width {
            lines.append(line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(line)
    return lines
}
