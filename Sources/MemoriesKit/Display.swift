import Foundation

/// How dates and sizes look to people, and how dates are read from arguments: in the user's time zone (`TZ`, else the
/// system's), except a photo's capture time, which keeps the offset it was taken at.
public enum Display {
    /// The user's time zone.
    public static var zone: TimeZone { TimeZone.current }

    /// `2024-06-13`, in the user's time zone.
    public static func day(_ date: Date) -> String { String(local(date).prefix(10)) }

    /// `2024-06-13 23:30`, in `zone` (the user's by default).
    public static func local(_ date: Date, in zone: TimeZone = Display.zone) -> String {
        formatters.local(date, in: zone)
    }

    /// An ISO 8601 date-time as `iso` writes it, or nil.
    public static func parseISO(_ text: String) -> Date? { formatters.parseISO(text) }

    /// Made once per time zone: a formatter costs ~300 µs to make (ICU loads its locale's symbols),
    /// which a list of 20,000 memories or a show of 5,000 photos paid per line.
    private static let formatters = FormatterCache()

    /// ISO 8601 with the user's offset (`Z` when it is UTC).
    public static func iso(_ date: Date) -> String { iso(date, in: zone) }

    /// ISO 8601 at a given offset from UTC (seconds east).
    public static func iso(_ date: Date, offset: Int) -> String { formatters.iso(date, offset: offset) }

    static func iso(_ date: Date, in zone: TimeZone) -> String { formatters.iso(date, in: zone) }

    /// `YYYY-MM-DD` (midnight in the user's time zone) or an ISO 8601 date-time (in the user's
    /// time zone unless it gives an offset), in the years 1–9999.
    /// - Throws: `LibraryError.invalidDate` for anything else (the CLI makes it a usage error).
    public static func parseDate(_ text: String) throws -> Date {
        // A four-digit year first: DateFormatter alone also takes "99999-01-01" and "-1-01-01".
        let head = Array(text.utf8.prefix(10))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard head.count == 10, head[4] == UInt8(ascii: "-"), head[7] == UInt8(ascii: "-"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(head[$0]) }),
              let date = parse(text) else { throw LibraryError.invalidDate(text) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.era, .year], from: date)
        guard parts.era == 1, let year = parts.year, (1...9999).contains(year) else { throw LibraryError.invalidDate(text) }
        return date
    }

    private static func parse(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: text) { return date }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        for format in ["yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            f.dateFormat = format
            if let date = f.date(from: text) { return date }
        }
        return nil
    }

    /// `12.3 MB`, `512 B`: a size for people, in powers of 1,000.
    public static func bytes(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        guard unit > 0 else { return "\(count) B" }
        // One decimal, rounded half up as "%.1f" would (String(format:) costs microseconds a call).
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
