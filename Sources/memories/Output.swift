import Foundation

/// Results on stdout, diagnostics on stderr; a progress bar only on a terminal.
///
/// Output for people never carries a control character from a name, title or path: `print` and
/// `error` pass their whole text through `escaped` (line breaks kept), and single-line fields are
/// escaped entirely (line breaks too) where they are put into a line. `json` writes raw JSON.
enum Output {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((escaped(text, keepingNewlines: true) + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("memories: " + escaped(text, keepingNewlines: true) + "\n").utf8))
    }

    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }

    /// `text` made safe for a terminal: every control character (C0, DEL, C1), which could move
    /// the cursor, recolour, retitle the window or fake a line, is shown as an escape: `\e` for
    /// ESC, `\n`, `\r`, `\t`, and `\u{HEX}` for the others (`\u{7}`, `\u{7f}`, `\u{9b}`).
    /// With `keepingNewlines`, "\n" stays a line break (for whole messages).
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n" where keepingNewlines: out.append("\n")
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
