import Foundation

/// Date formatters kept per time zone, shared by every thread (each use holds a lock: Foundation's
/// formatters are not documented as safe to use from two threads at once).
final class FormatterCache: @unchecked Sendable {
    private let lock = NSLock()
    private var locals: [TimeZone: DateFormatter] = [:]
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

    /// ISO 8601 in `zone` (`Z` where its offset is 0), as ISO8601DateFormatter writes it, computed
    /// directly (the formatter took ~5 µs a date: half of listing 20,000 memories).
    func iso(_ date: Date, in zone: TimeZone) -> String {
        iso(date, offset: zone.secondsFromGMT(for: date), zone: zone)
    }

    /// Computed from 1900 on, for whole-minute offsets under 100 hours; before 1900 (Foundation writes the Julian
    /// calendar before 1582) through the formatter itself. An offset with seconds is written as UTC.
    func iso(_ date: Date, offset: Int, zone: TimeZone? = nil) -> String {
        // An offset with seconds (a zone's local mean time before 1900, such as -03:06:28) has no
        // ISO 8601 form: such an instant is written in UTC, which is exact.
        if offset % 60 != 0 { return iso(date, offset: 0, zone: .gmt) }
        // Offsets of 100 hours or more (no place keeps one; only a store written by something else
        // holds one) go through the formatter too: the computed text has two digits of hours.
        guard date.timeIntervalSince1970 >= -2_208_988_800, offset % 60 == 0, abs(offset) < 100 * 3_600 else {
            return lock.withLock {
                let zone = zone ?? TimeZone(secondsFromGMT: offset) ?? .gmt
                if let f = slowISOs[zone] { return f.string(from: date) }
                let f = ISO8601DateFormatter()
                f.timeZone = zone
                slowISOs[zone] = f
                return f.string(from: date)
            }
        }
        return Self.computedISO(date, offset: offset)
    }

    private var slowISOs: [TimeZone: ISO8601DateFormatter] = [:]

    static func computedISO(_ date: Date, offset: Int) -> String {
        let local = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = Int(local - days * 86_400)
        // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Written as bytes into one string (concatenating a dozen small strings was most of the cost).
        let yearDigits = year > 9999 ? String(year).utf8.count : 4
        let length = (offset == 0 ? 16 : 21) + yearDigits
        return String(unsafeUninitializedCapacity: length) { bytes in
            var at = 0
            func put(_ value: Int, digits: Int) {
                var value = value
                for i in stride(from: digits - 1, through: 0, by: -1) {
                    bytes[at + i] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += digits
            }
            func put(_ ascii: Unicode.Scalar) {
                bytes[at] = UInt8(ascii: ascii)
                at += 1
            }
            put(Int(year), digits: yearDigits); put("-"); put(Int(month), digits: 2); put("-"); put(Int(day), digits: 2)
            put("T"); put(seconds / 3600, digits: 2); put(":"); put(seconds / 60 % 60, digits: 2); put(":"); put(seconds % 60, digits: 2)
            if offset == 0 {
                put("Z")
            } else {
                let minutes = abs(offset) / 60
                put(offset < 0 ? "-" : "+"); put(minutes / 60, digits: 2); put(":"); put(minutes % 60, digits: 2)
            }
            return at
        }
    }

    /// The date of an ISO 8601 text as `iso` writes it (`2024-06-13T00:30:00+02:00`, `…Z`), read
    /// directly from 1900 on; anything else through ISO8601DateFormatter.
    func parseISO(_ text: String) -> Date? {
        if let date = Self.computedDate(text) { return date }
        return lock.withLock { parser.date(from: text) }
    }

    static func computedDate(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 20 || b.count == 25, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - 0x30)
            }
            return n
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), year >= 1900, (1...12).contains(month),
              (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        var offset = 0
        if b.count == 20 {
            guard b[19] == 0x5A else { return nil }
        } else {
            guard b[19] == 0x2B || b[19] == 0x2D, b[22] == 0x3A, let h = number(20..<22), let m = number(23..<25) else { return nil }
            offset = (h * 3600 + m * 60) * (b[19] == 0x2D ? -1 : 1)
        }
        // A civil date to days since 1970-01-01 (Howard Hinnant's algorithm).
        let y = year - (month <= 2 ? 1 : 0)
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        // A day the month does not have (2024-02-30) is not a date.
        guard computedISO(Date(timeIntervalSince1970: Double(days * 86_400)), offset: 0).hasPrefix(String(decoding: b[0..<10], as: UTF8.self)) else { return nil }
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
    }
}
