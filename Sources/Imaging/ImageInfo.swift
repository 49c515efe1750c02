import Foundation

/// What a probe learns from the header and metadata, without decoding pixels.
public struct ImageInfo: Equatable, Sendable, Codable {
    public var format: ImageFormat
    /// As stored, before EXIF orientation.
    public var width: Int
    public var height: Int
    /// JPEG: the file's colour space (1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK) as components; PNG: channels.
    public var components: Int
    /// JPEG: libjpeg's J_COLOR_SPACE; PNG: the IHDR colour type.
    public var colorType: Int
    public var bitDepth: Int
    /// Progressive JPEG or interlaced PNG.
    public var isProgressive: Bool
    public var exif: ExifInfo

    /// Width and height once the EXIF orientation is applied.
    public var uprightWidth: Int { exif.swapsAxes ? height : width }
    public var uprightHeight: Int { exif.swapsAxes ? width : height }
}

/// The EXIF fields the journal uses.
public struct ExifInfo: Equatable, Sendable, Codable {
    /// 1–8, or 1 when absent.
    public var orientation: Int = 1
    /// DateTimeOriginal as written ("2024:06:01 12:34:56").
    public var dateTimeOriginal: String?
    /// OffsetTimeOriginal ("+02:00"), when the camera wrote it.
    public var offsetTimeOriginal: String?
    public var make: String?
    public var model: String?

    public init() {}

    /// Whether the orientation turns the image a quarter (5–8).
    public var swapsAxes: Bool { (5...8).contains(orientation) }

    /// The capture time: DateTimeOriginal at its OffsetTimeOriginal, or read as UTC when the
    /// camera wrote no offset (most older cameras).
    public var capturedAt: Date? {
        guard let text = dateTimeOriginal, text.count >= 19 else { return nil }
        let digits = text.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard digits.count >= 6, digits[0] > 1800 else { return nil }
        var components = DateComponents(year: digits[0], month: digits[1], day: digits[2],
                                        hour: digits[3], minute: digits[4], second: digits[5])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        components.timeZone = offsetTimeOriginal.flatMap(Self.timeZone) ?? TimeZone(identifier: "UTC")
        return calendar.date(from: components)
    }

    static func timeZone(_ offset: String) -> TimeZone? {
        let sign: Int = offset.hasPrefix("-") ? -1 : 1
        let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        return TimeZone(secondsFromGMT: sign * (parts[0] * 3600 + parts[1] * 60))
    }
}
