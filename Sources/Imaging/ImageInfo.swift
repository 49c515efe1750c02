import Foundation

/// What a probe learns from the header and metadata, without decoding pixels.
public struct ImageInfo: Equatable, Sendable, Codable {
    /// The format, from the content.
    public var format: ImageFormat
    /// As stored, before EXIF orientation.
    public var width: Int
    /// See `width`.
    public var height: Int
    /// JPEG: the file's colour space (1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK) as components; PNG: channels.
    public var components: Int
    /// JPEG: libjpeg's J_COLOR_SPACE; PNG: the IHDR colour type.
    public var colorType: Int
    /// Bits per sample (8 or 16; JPEG 8).
    public var bitDepth: Int
    /// Progressive JPEG or interlaced PNG.
    public var isProgressive: Bool
    /// The DCT coefficients of a JPEG of several scans (progressive, or baseline with one scan per
    /// component), which libjpeg keeps whole until the last scan: their bytes, from the header's
    /// sizes and sampling factors (0 for other images).
    public var coefficientBytes: Int = 0
    /// Orientation, capture time and camera, from EXIF and XMP.
    public var exif: ExifInfo

    /// Width and height once the EXIF orientation is applied.
    public var uprightWidth: Int { exif.swapsAxes ? height : width }
    /// See `uprightWidth`.
    public var uprightHeight: Int { exif.swapsAxes ? width : height }
}

/// The EXIF and XMP fields the journal uses.
public struct ExifInfo: Equatable, Sendable, Codable {
    /// 1–8, or 1 when absent.
    public var orientation: Int = 1
    /// DateTimeOriginal as written ("2024:06:01 12:34:56").
    public var dateTimeOriginal: String?
    /// OffsetTimeOriginal ("+02:00"), when the camera wrote it.
    public var offsetTimeOriginal: String?
    /// SubSecTimeOriginal ("123": the fraction of the second).
    public var subSecTimeOriginal: String?
    /// EXIF Make.
    public var make: String?
    /// EXIF Model.
    public var model: String?
    /// The XMP capture date when EXIF has none that can be used: exif:DateTimeOriginal, else xmp:CreateDate, else
    /// photoshop:DateCreated, as written ("2024-06-13T23:30:00+02:00").
    public var xmpDate: String?
    /// Every XMP capture date the file gives, in that order (`xmpDate` is the first): one that
    /// cannot be used gives way to the next.
    public var xmpDates: [String] = []

    /// No metadata: orientation 1.
    public init() {}

    /// Whether the orientation turns the image a quarter (5–8).
    public var swapsAxes: Bool { (5...8).contains(orientation) }

    /// The capture time and the offset from UTC it was taken at (seconds east; nil when the file
    /// does not say): EXIF DateTimeOriginal (+ SubSecTimeOriginal) at OffsetTimeOriginal, else the
    /// XMP date, each only when it falls in the years 1–9999 (`unusableDates` names the others). A
    /// time without an offset is read as UTC (most older cameras write none).
    public var capture: (date: Date, offset: Int?)? {
        readings.first { Self.isInRange($0.date, offset: $0.offset) }.map { ($0.date, $0.offset) }
    }

    /// The capture times the file gives that cannot be used: past the year 9999 (or before the
    /// year 1) once their offset is applied, as the command line refuses them. Each as "EXIF
    /// 9999:12:31 23:59:59 -12:00" or "XMP 99999-01-01".
    public var unusableDates: [String] {
        readings.filter { !Self.isInRange($0.date, offset: $0.offset) }.map { "\($0.source) \($0.text)" }
    }

    /// The capture time `capture` comes from, as `unusableDates` writes them ("XMP 2024-06-13T23:30:00+02:00").
    public var captureSource: String? {
        readings.first { Self.isInRange($0.date, offset: $0.offset) }.map { "\($0.source) \($0.text)" }
    }

    /// Each capture time the file gives, in the order they are used.
    var readings: [(source: String, text: String, date: Date, offset: Int?)] {
        var found: [(String, String, Date, Int?)] = []
        if let text = dateTimeOriginal, let local = Self.components(exif: text) {
            // OffsetTimeOriginal, else an offset written in the field itself ("…12:34:56+02:00").
            let offset = offsetTimeOriginal.flatMap(Self.offset) ?? local.offset
            var seconds = local.seconds
            if let fraction = subSecTimeOriginal.flatMap({ Double("0." + $0.filter(\.isNumber)) }) { seconds += fraction }
            found.append(("EXIF", text + (offsetTimeOriginal.map { " " + $0 } ?? ""), Date(timeIntervalSince1970: seconds - Double(offset ?? 0)), offset))
        }
        let texts = xmpDates.isEmpty ? (xmpDate.map { [$0] } ?? []) : xmpDates
        for text in texts {
            guard let (local, offset) = Self.components(iso: text) else { continue }
            found.append(("XMP", text, Date(timeIntervalSince1970: local - Double(offset ?? 0)), offset))
        }
        return found
    }

    /// 10000-01-01T00:00:00Z, the first instant past the year 9999.
    static let endOfYear9999 = Date(timeIntervalSince1970: 253_402_300_800)
    /// 0001-01-01T00:00:00Z in the calendar dates are read in (Julian before 1582), as the
    /// command line's lower bound.
    static let startOfYear1: Date = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: 1, month: 1, day: 1)) ?? Date(timeIntervalSince1970: -62_135_596_800)
    }()

    /// In the years 1–9999 in UTC; a reading without an offset (a camera clock's) in every zone
    /// it may have been taken in (±14 hours), so that it stays in range wherever it is shown.
    static func isInRange(_ date: Date, offset: Int?) -> Bool {
        let margin: TimeInterval = offset == nil ? 14 * 3600 : 0
        return date.addingTimeInterval(margin) < endOfYear9999 && date.addingTimeInterval(-margin) >= startOfYear1
    }

    /// The capture time alone (see `capture`).
    public var capturedAt: Date? { capture?.date }

    /// "2024:06:01 12:34:56" as seconds since 1970 of that wall-clock time in UTC, read strictly:
    /// exactly that shape (digits where digits go), then nothing, a fraction of the second, or an
    /// offset ("Z", "+02:00") some writers put in the field itself. Anything else is no date
    /// ("0000:00:00 00:00:00", blanks, "2023:02:30").
    static func components(exif text: String) -> (seconds: Double, offset: Int?)? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        for (i, byte) in bytes[0..<19].enumerated() {
            let expected: UInt8? = [4, 7].contains(i) ? UInt8(ascii: ":") : i == 10 ? UInt8(ascii: " ") : [13, 16].contains(i) ? UInt8(ascii: ":") : nil
            if let expected { guard byte == expected else { return nil } } else { guard (48...57).contains(byte) else { return nil } }
        }
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 48) } }
        var rest = Substring(text.dropFirst(19))
        var fraction = 0.0
        if rest.hasPrefix("."), case let digits = rest.dropFirst().prefix(while: \.isNumber), !digits.isEmpty {
            fraction = Double("0." + digits) ?? 0
            rest = rest.dropFirst(1 + digits.count)
        }
        var offset: Int?
        if !rest.isEmpty {
            guard rest == "Z" || rest.first == "+" || rest.first == "-", let parsed = rest == "Z" ? 0 : Self.offset(String(rest)) else { return nil }
            offset = parsed
        }
        guard let seconds = wallClock(number(0..<4), number(5..<7), number(8..<10), number(11..<13), number(14..<16), Double(number(17..<19)) + fraction)
        else { return nil }
        return (seconds, offset)
    }

    /// "2024-06-13T23:30:00.5+02:00", "…Z", "2024-06-13T23:30", "2024-06-13": the wall-clock
    /// time (as in `components(exif:)`) and the offset when written. Read strictly: the year is
    /// 4 to 9 digits (more than 4 is a year `isInRange` names), every other field exactly its
    /// digits, a fraction only after the seconds, and nothing else (a field such as "nan" or
    /// "1e300", which Double would read, crashed the import).
    static func components(iso text: String) -> (Double, Int?)? {
        var rest = Substring(text)
        func digits(_ count: ClosedRange<Int>) -> Int? {
            let run = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard count.contains(run.count) else { return nil }
            rest = rest.dropFirst(run.count)
            return Int(run)
        }
        func take(_ character: Character) -> Bool {
            guard rest.first == character else { return false }
            rest = rest.dropFirst()
            return true
        }
        guard let year = digits(4...9), take("-"), let month = digits(2...2), take("-"), let day = digits(2...2) else { return nil }
        var (hour, minute, second) = (0, 0, 0.0)
        if take("T") {
            guard let h = digits(2...2), take(":"), let m = digits(2...2) else { return nil }
            (hour, minute) = (h, m)
            if take(":") {
                guard let s = digits(2...2) else { return nil }
                second = Double(s)
                if take("."), case let fraction = rest.prefix(while: { $0.isASCII && $0.isNumber }), !fraction.isEmpty {
                    second += Double("0." + fraction) ?? 0
                    rest = rest.dropFirst(fraction.count)
                }
            }
        }
        var offset: Int?
        if !rest.isEmpty {
            guard rest == "Z" || rest.first == "+" || rest.first == "-", let parsed = rest == "Z" ? 0 : Self.offset(String(rest)) else { return nil }
            offset = parsed
        }
        guard let seconds = wallClock(year, month, day, hour, minute, second) else { return nil }
        return (seconds, offset)
    }

    /// A wall-clock reading as seconds since 1970 as if in UTC (Foundation's Gregorian calendar,
    /// Julian before 1582, as the command line reads dates); nil for a day the calendar does not
    /// have ("2023:02:30": Calendar would roll it over to March). The year 0 is no year; years past
    /// 9999 are readings `isInRange` names.
    static func wallClock(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Double) -> Double? {
        guard year >= 1, (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
              second >= 0, second < 61 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month else { return nil }
        return date.timeIntervalSince1970 + second
    }

    /// "+02:00", "-0530", "+02" as seconds east of UTC.
    static func offset(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let first = trimmed.first, first == "+" || first == "-" else { return nil }
        let digits = trimmed.dropFirst().filter(\.isNumber)
        guard digits.count == 2 || digits.count == 4, let value = Int(digits) else { return nil }
        let hours = digits.count == 2 ? value : value / 100, minutes = digits.count == 2 ? 0 : value % 100
        guard hours <= 14, minutes < 60 else { return nil }
        return (first == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
