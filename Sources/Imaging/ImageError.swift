import Foundation

/// Why an image was rejected, in words a person can act on.
public enum ImageError: Error, Equatable, LocalizedError, Sendable {
    /// Not a JPEG or PNG (by content).
    case unrecognized(String)
    /// The data ends early, or decoding lost pixels to missing data.
    case truncated(ImageFormat, String)
    /// The decoder reported an error (bad header, corrupt entropy data, CRC error…).
    case corrupt(ImageFormat, String)
    /// A well-formed file this machine cannot decode: a feature the decoder lacks, or the
    /// decoder itself missing (libheif is loaded on first use). Not the photo's fault.
    case unsupported(ImageFormat, String)
    /// Over a limit: pixel count, dimensions, progressive scans.
    case tooLarge(String)
    case outOfMemory(String)

    /// The reason, in words (`reason`).
    public var errorDescription: String? {
        switch self {
        case .unrecognized(let reason): return reason
        case .truncated(let format, let detail): return "truncated \(format.displayName): \(detail)"
        case .corrupt(let format, let detail):
            // libjpeg's own messages already say it: "Corrupt JPEG data: …" is not said twice.
            if detail.lowercased().hasPrefix("corrupt ") { return "corrupt" + detail.dropFirst("corrupt".count) }
            return "corrupt \(format.displayName): \(detail)"
        case .unsupported(let format, let detail): return "\(format.displayName) cannot be decoded here: \(detail)"
        case .tooLarge(let detail): return detail
        case .outOfMemory(let detail): return "out of memory: \(detail)"
        }
    }

    /// The reason, as printed next to the file's path.
    public var reason: String { errorDescription ?? "\(self)" }
}
