import Foundation

/// The formats the journal accepts, recognised by their first bytes, never by file extension.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg
    case png

    /// The format of `data` from its signature, or nil.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(8))
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }

    /// The first bytes of a file, enough to sniff it.
    public static let signatureLength = 8

    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }
    public var displayName: String { self == .jpeg ? "JPEG" : "PNG" }
}
