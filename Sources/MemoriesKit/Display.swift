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

    /// `YYYY-MM-DD` (the first instant of that day in the user's time zone: midnight, or where
    /// daylight saving time starts at midnight, the end of the skipped hour) or a date-time
    /// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` (`T` or a space) in the user's time zone, or at the
    /// offset it ends with (`Z`, `±HH:MM`, `±HHMM` or `±HH`, at most 18 hours). Years 1–9999, in
    /// Foundation's Gregorian calendar (the Julian one before 1582-10-15, as dates are written).
    /// - Throws: `LibraryError.invalidDate` for anything else, including a day the month does not
    ///   have, an offset out of range and anything after the date (the CLI makes it a usage error).
    public static func parseDate(_ text: String) throws -> Date { try parseDate(text, in: zone) }

    /// A date argument as `parseDate` reads it, with its offset from UTC in seconds: the one it
    /// gives, else the user's zone's at that instant.
    public static func parseDateWithOffset(_ text: String) throws -> (date: Date, offset: Int) {
        let date = try parseDate(text, in: zone)
        return (date, DateText(text)?.offset ?? zone.secondsFromGMT(for: date))
    }

    static func parseDate(_ text: String, in zone: TimeZone) throws -> Date {
        guard let parts = DateText(text) else { throw LibraryError.invalidDate(text) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = parts.offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? zone
        // A local time daylight saving skips is moved past the gap (Calendar's rule), so a day
        // whose midnight does not exist starts at 01:00. The day must stay the one given:
        // 2024-02-30 or 1582-10-10 (skipped when the calendar changed) would be another day.
        guard let date = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day,
                                                              hour: parts.hour, minute: parts.minute, second: parts.second)),
              calendar.dateComponents([.era, .year, .month, .day], from: date)
                == DateComponents(era: 1, year: parts.year, month: parts.month, day: parts.day) else {
            throw LibraryError.invalidDate(text)
        }
        // The instant too must be in the years 1–9999 (UTC, as it is written): 9999-12-31T23:59 in
        // Los Angeles is in the year 10000 there.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let instant = utc.dateComponents([.era, .year], from: date)
        guard instant.era == 1, let year = instant.year, (1...9999).contains(year) else { throw LibraryError.invalidDate(text) }
        return date.addingTimeInterval(parts.fraction)
    }

    /// The fields of a date argument, read strictly (nothing left over).
    struct DateText {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        var fraction = 0.0
        /// Seconds east of UTC, when the text gives an offset.
        var offset: Int?

        init?(_ text: String) {
            let b = Array(text.utf8)
            var at = 0
            func digits(_ count: Int) -> Int? {
                guard at + count <= b.count else { return nil }
                var n = 0
                for i in at..<(at + count) {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
                    n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
                }
                at += count
                return n
            }
            func take(_ ascii: Unicode.Scalar) -> Bool {
                guard at < b.count, b[at] == UInt8(ascii: ascii) else { return false }
                at += 1
                return true
            }
            guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2),
                  (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
            (self.year, self.month, self.day) = (year, month, day)
            if at == b.count { return }
            guard take("T") || take(" "), let hour = digits(2), take(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            (self.hour, self.minute) = (hour, minute)
            if take(":") {
                guard let second = digits(2), second < 60 else { return nil }
                self.second = second
                if take(".") {
                    let first = at
                    while at < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[at]) { at += 1 }
                    guard at > first, at - first <= 9 else { return nil }
                    fraction = Double("0." + String(decoding: b[first..<at], as: UTF8.self)) ?? 0
                }
            }
            if take("Z") {
                offset = 0
            } else if at < b.count, b[at] == UInt8(ascii: "+") || b[at] == UInt8(ascii: "-") {
                let sign = b[at] == UInt8(ascii: "-") ? -1 : 1
                at += 1
                guard let hours = digits(2) else { return nil }
                // ±HH:MM, ±HHMM, or ±HH alone.
                let minutes = take(":") ? digits(2) : at == b.count ? 0 : digits(2)
                guard let minutes, minutes < 60, hours * 60 + minutes <= 18 * 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
            guard at == b.count else { return nil }
        }
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
