import CImaging
import Foundation

extension Imaging {
    public enum OutputFormat: Equatable, Sendable {
        case jpeg(quality: Int = 85, progressive: Bool = false)
        case png
    }

    /// Re-encodes any supported image, upright (the EXIF orientation applied to the pixels, and the
    /// tag then written as 1 so nothing rotates it twice), optionally shrunk to `maxSide`.
    /// With `keepMetadata`, a JPEG keeps the original EXIF (orientation reset, embedded thumbnail
    /// dropped); PNG output carries no metadata.
    public static func reencode(_ data: Data, as format: OutputFormat, maxSide: Int? = nil, keepMetadata: Bool = true,
                                limits: ImageLimits = .default) throws -> Data {
        let info = try probe(data)
        var scale = 1
        if info.format == .jpeg, let maxSide {
            let longest = max(info.width, info.height)
            for candidate in [8, 4, 2] where (longest + candidate - 1) / candidate >= maxSide {
                scale = candidate
                break
            }
        }
        var pixels = try decode(data, format: info.format, scale: scale, limits: limits)
        if let maxSide { pixels = resized(pixels, maxSide: maxSide) }
        pixels = oriented(pixels, info.exif.orientation)
        switch format {
        case .jpeg(let quality, let progressive):
            let exif = keepMetadata ? exifPayload(of: data, format: info.format).flatMap(normalizedExif) : nil
            return try encodeJPEG(pixels, quality: quality, progressive: progressive, exif: exif)
        case .png:
            return try encodePNG(pixels)
        }
    }

    /// The source's EXIF block with orientation 1, ready for an APP1 marker.
    static func normalizedExif(_ data: Data) -> Data? {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = data.withUnsafeBytes { img_exif_normalized($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &out, &size) }
        defer { img_free(out) }
        guard status == 0, let out, size > 6 else { return nil }
        return Data(bytes: out, count: size)
    }
}
