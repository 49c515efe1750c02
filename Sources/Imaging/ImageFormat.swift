import Foundation

/// The formats the journal accepts, recognised by their first bytes, never by file extension.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg
    case png
    /// HEIF with HEVC images (iPhone photos), through libheif.
    case heic
    /// HEIF with AV1 images, through libheif where it has an AV1 decoder.
    case avif
    case webp

    /// The format of `data` from its signature, or nil.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(signatureLength))
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8 && Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        guard bytes.count >= 12 else { return nil }
        if ascii(bytes[0..<4]) == "RIFF" && ascii(bytes[8..<12]) == "WEBP" { return .webp }
        if ascii(bytes[4..<8]) == "ftyp" {
            switch ascii(bytes[8..<12]) {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1": return .heic
            case "avif", "avis": return .avif
            default: return nil
            }
        }
        return nil
    }

    /// What a file that is no image the journal takes is, when its first bytes say so: a format
    /// named in the import report as unsupported, or a video.
    public static func unsupportedKind(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(signatureLength))
        guard bytes.count >= 4 else { return nil }
        if ascii(bytes[0..<4]) == "GIF8" { return "a GIF image (GIF is not supported)" }
        if bytes[0..<4] == [0x49, 0x49, 0x2A, 0x00] || bytes[0..<4] == [0x4D, 0x4D, 0x00, 0x2A] {
            return "a TIFF image (TIFF is not supported)"
        }
        if bytes[0..<2] == [0x42, 0x4D] && bytes.count >= 6 { return "a BMP image (BMP is not supported)" }
        if bytes.count >= 12 && ascii(bytes[4..<8]) == "ftyp" {
            let brand = ascii(bytes[8..<12])
            if brand == "qt  " { return "a video (QuickTime MOV)" }
            if ["isom", "iso2", "mp41", "mp42", "M4V ", "M4A ", "avc1", "3gp4", "3gp5", "3g2a", "dash", "MSNV", "XAVC"].contains(brand) {
                return brand == "M4A " ? "audio (MPEG-4)" : "a video (MP4)"
            }
        }
        if bytes.count >= 8 && ascii(bytes[4..<8]) == "moov" || bytes.count >= 8 && ascii(bytes[4..<8]) == "wide" || bytes.count >= 8 && ascii(bytes[4..<8]) == "mdat" {
            return "a video (QuickTime MOV)"
        }
        return nil
    }

    private static func ascii(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The first bytes of a file, enough to sniff it.
    public static let signatureLength = 12

    /// The usual file extension, without the dot ("jpg" for JPEG).
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heic: return "heic"
        case .avif: return "avif"
        case .webp: return "webp"
        }
    }

    /// "JPEG", "PNG", "HEIC", "AVIF" or "WebP": for people.
    public var displayName: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .heic: return "HEIC"
        case .avif: return "AVIF"
        case .webp: return "WebP"
        }
    }

    /// Decoded through libheif, which applies the file's rotation and mirroring itself: its EXIF
    /// orientation must not be applied again.
    var isHEIF: Bool { self == .heic || self == .avif }

    /// A description of the accepted formats, for messages.
    public static let acceptedNames = "a JPEG, PNG, HEIC, AVIF or WebP image"
}
