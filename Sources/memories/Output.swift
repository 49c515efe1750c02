import Foundation

/// Results on stdout, diagnostics on stderr; a progress bar only on a terminal.
enum Output {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("memories: " + text + "\n").utf8))
    }

    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A progress bar on stderr, redrawn in place; nothing at all when stderr is not a terminal.
    final class Progress {
        let label: String
        let enabled = Output.isTerminal
        private var lastDraw = 0.0

        init(_ label: String) { self.label = label }

        func update(_ done: Int, _ total: Int) {
            guard enabled, total > 0 else { return }
            let now = Date().timeIntervalSince1970
            guard done == total || now - lastDraw > 0.05 else { return }
            lastDraw = now
            let width = 30
            let filled = width * done / total
            let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "") + String(repeating: " ", count: max(0, width - filled - 1))
            FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
        }

        func finish() {
            guard enabled else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
