import Foundation
import MemoriesKit

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

    /// Writes `value` as JSON. An object gets a `"generator": "memories VERSION"` member, so a
    /// saved report says which version made it; `list`'s array is written as it is.
    static func json<T: Encodable>(_ value: T, stamped: Bool = true) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = stamped ? try encoder.encode(Stamped(value: value)) : try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A JSON object with the version beside its own members.
    private struct Stamped<Value: Encodable>: Encodable {
        let value: Value
        enum Key: String, CodingKey { case generator }

        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(MemoriesVersion.generator, forKey: .generator)
        }
    }

    /// `text` made safe for a terminal: every control character (C0, DEL, C1), which could move
    /// the cursor, recolour, retitle the window or fake a line, is shown as an escape: `\e` for
    /// ESC, `\n`, `\r`, `\t`, and `\u{HEX}` for the others (`\u{7}`, `\u{7f}`, `\u{9b}`).
    /// With `keepingNewlines`, "\n" stays a line break (for whole messages).
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard needsEscaping(text, keepingNewlines: keepingNewlines) else { return text }
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

    /// Whether `text` holds a control character (other than a kept newline), read byte by byte:
    /// C0 and DEL are single bytes, C1 controls are 0xC2 0x80–0x9F in UTF-8.
    static func needsEscaping(_ text: String, keepingNewlines: Bool) -> Bool {
        func scan(_ bytes: some Sequence<UInt8>) -> Bool {
            var previous: UInt8 = 0
            for byte in bytes {
                if byte < 0x20 && !(keepingNewlines && byte == 0x0A) || byte == 0x7F || previous == 0xC2 && (0x80...0x9F).contains(byte) { return true }
                previous = byte
            }
            return false
        }
        // The string's own bytes where it has them in one piece (a native string): the UTF-8
        // view's iterator cost more than the check.
        return text.utf8.withContiguousStorageIfAvailable { scan($0) } ?? scan(text.utf8)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

extension String {
    /// Cut or filled with spaces to `width` characters, as `padding(toLength:withPad:startingAt:)`
    /// does without its trip through NSString (a list of 20,000 memories spent a tenth of its time there).
    func padded(to width: Int) -> String {
        let length = count
        return length >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - length)
    }
}
