import Foundation

/// Date formatters kept per time zone, shared by every thread (each use holds a lock: Foundation's
/// formatters are not documented as safe to use from two threads at once).
final class FormatterCache: @unchecked Sendable {
    private let lock = NSLock()
    private var locals: [TimeZone: DateFormatter] = [:]
    private var isos: [TimeZone: ISO8601DateFormatter] = [:]
    private let parser = ISO8601DateFormatter()

    /// `2024-06-13 23:30` in `zone`.
    func local(_ date: Date, in zone: TimeZone) -> String {
        lock.withLock {
            if let f = locals[zone] { return f.string(from: date) }
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = zone
            f.dateFormat = "yyyy-MM-dd HH:mm"
            locals[zone] = f
            return f.string(from: date)
        }
    }

    /// ISO 8601 in `zone` (`Z` for UTC).
    func iso(_ date: Date, in zone: TimeZone) -> String {
        lock.withLock {
            if let f = isos[zone] { return f.string(from: date) }
            let f = ISO8601DateFormatter()
            f.timeZone = zone
            isos[zone] = f
            return f.string(from: date)
        }
    }

    func parseISO(_ text: String) -> Date? { lock.withLock { parser.date(from: text) } }
}
