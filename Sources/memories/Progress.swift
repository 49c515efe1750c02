import Foundation
import MemoriesKit

/// A progress line on stderr, redrawn in place; nothing at all when stderr is not a terminal or
/// with `--quiet`. It fits the terminal's width, asked at every draw (at least once a photo), so a
/// resize is followed by the next draw. (No SIGWINCH handler: libdispatch's signal sources on Linux
/// leave the receiving thread with most signals blocked, Ctrl-C among them.)
///
///     importing [=========>          ]  123/314  39%  45.2 MB  12.3/s  0:10 left 0:15
///
/// The parts that do not fit are left out, rightmost first; the line is never wider than the
/// terminal, so it never wraps and leaves no stale lines. Updates may come from any thread.
final class Progress: @unchecked Sendable {
    let label: String
    let enabled: Bool
    private let lock = NSLock()
    private let start = Date()
    private var lastDraw = 0.0
    private var drawn = false
    /// The least time between two draws; `MEMORIES_PROGRESS_INTERVAL` (seconds) changes it (tests set 0).
    private let interval = ProcessInfo.processInfo.environment["MEMORIES_PROGRESS_INTERVAL"].flatMap(Double.init) ?? 0.1

    private var finished = false

    init(_ label: String, enabled: Bool = true) {
        self.label = label
        self.enabled = enabled && Output.isTerminal
    }

    func update(_ done: Int, _ total: Int, bytes: Int64? = nil) {
        guard enabled, total > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date().timeIntervalSince1970
        guard !finished, done >= total || now - lastDraw >= interval else { return }
        lastDraw = now
        drawn = true
        // "\r" and the line, then clear what an earlier, wider line left to its right. No cursor
        // movement upwards: on a terminal that does not rewrap when narrowed, that would erase
        // lines that are not ours.
        FileHandle.standardError.write(Data(("\r" + Self.line(label: label, done: done, total: total, bytes: bytes,
                                                               elapsed: Date().timeIntervalSince(start), width: Self.width()) + "\u{1B}[K").utf8))
    }

    /// Clears the line, leaving the cursor where the next output starts.
    func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        finished = true
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    /// The terminal's width in columns (80 when it cannot be asked).
    static func width() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    static func line(label: String, done: Int, total: Int, bytes: Int64?, elapsed: Double, width: Int) -> String {
        let percent = min(100, done * 100 / max(total, 1))
        let rate = elapsed > 0.2 ? Double(done) / elapsed : 0
        var parts = ["\(done)/\(total)", "\(percent)%"]
        if let bytes { parts.append(Display.bytes(Int(clamping: bytes))) }
        if rate > 0 { parts.append(String(format: rate >= 10 ? "%.0f/s" : "%.1f/s", rate)) }
        parts.append(clock(elapsed))
        if rate > 0 && done < total { parts.append("left " + clock(Double(total - done) / rate)) }
        // Drop the rightmost parts until the label, a bar of at least 10 and the rest fit in width - 1.
        var text = parts.joined(separator: "  ")
        while !parts.isEmpty && label.count + 2 + text.count + 13 > width - 1 {
            parts.removeLast()
            text = parts.joined(separator: "  ")
        }
        let barWidth = width - 1 - label.count - 4 - text.count - (text.isEmpty ? 0 : 2)
        guard barWidth >= 10 else { return String((label + " " + text).prefix(max(0, width - 1))) }
        let filled = barWidth * min(done, total) / max(total, 1)
        let bar = String(repeating: "=", count: filled) + (filled < barWidth ? ">" : "") + String(repeating: " ", count: max(0, barWidth - filled - 1))
        return "\(label) [\(bar)]" + (text.isEmpty ? "" : "  " + text)
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
