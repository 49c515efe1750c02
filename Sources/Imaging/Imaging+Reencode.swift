import CImaging
import Foundation

extension Imaging {
    /// The longest side libjpeg writes (JPEG_MAX_DIMENSION).
    public static let jpegLargestSide = 65500

    /// What `reencode` writes.
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
        if case .jpeg = format {
            // libjpeg's limit, said before anything is decoded.
            let (width, height) = maxSide.map { fitted(width: info.uprightWidth, height: info.uprightHeight, maxSide: $0) }
                ?? (info.uprightWidth, info.uprightHeight)
            if max(width, height) > jpegLargestSide {
                throw ImageError.tooLarge("a JPEG holds at most \(jpegLargestSide) pixels a side, and this image is \(width)x\(height)")
            }
        }
        var scale = 1
        if info.format == .jpeg, let maxSide {
            let longest = max(info.width, info.height)
            for candidate in [8, 4, 2] where (longest + candidate - 1) / candidate >= maxSide {
                scale = candidate
                break
            }
        }
        var pixels = try decode(data, format: info.format, scale: scale, limits: limits, maxSide: info.format == .webp ? maxSide ?? 0 : 0)
        if let maxSide { pixels = resized(pixels, maxSide: maxSide) }
        pixels = oriented(pixels, info.exif.orientation)
        // The colour profile goes with the pixels; without metadata, the pixels become sRGB instead
        // (what a file without a profile is taken to be), so the colours stay the same.
        var icc = iccProfile(of: data, format: info.format)
        if !keepMetadata, let profile = icc {
            convertToSRGB(pixels, from: profile)
            icc = nil
        }
        switch format {
        case .jpeg(let quality, let progressive):
            let exif = keepMetadata ? exifPayload(of: data, format: info.format).flatMap(normalizedExif) : nil
            return try encodeJPEG(pixels, quality: quality, progressive: progressive, exif: exif, icc: icc)
        case .png:
            return try encodePNG(pixels, icc: icc)
        }
    }

    /// The image's ICC profile: a JPEG's APP2 ICC_PROFILE segments (in sequence order), a PNG's
    /// iCCP chunk, a HEIF colr/prof property, a WebP ICCP chunk.
    public static func iccProfile(of data: Data, format: ImageFormat) -> Data? {
        switch format {
        case .jpeg:
            let bytes = [UInt8](data)
            let signature = Array("ICC_PROFILE\0".utf8)
            var parts: [Int: ArraySlice<UInt8>] = [:]
            var i = 2
            while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
                let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                guard length >= 2, i + 2 + length <= bytes.count else { break }
                if bytes[i + 1] == 0xE2, length >= 2 + signature.count + 2, Array(bytes[(i + 4)..<(i + 4 + signature.count)]) == signature {
                    parts[Int(bytes[i + 4 + signature.count])] = bytes[(i + 6 + signature.count)..<(i + 2 + length)]
                }
                i += 2 + length
            }
            guard !parts.isEmpty else { return nil }
            return Data(parts.keys.sorted().flatMap { parts[$0]! })
        case .png:
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            let found = data.withUnsafeBytes { img_png_icc($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &out, &size) }
            defer { img_free(out) }
            guard found == 0, let out else { return nil }
            return Data(bytes: out, count: size)
        case .heic, .avif, .webp:
            return metadata(Int(IMG_META_ICC), of: data, format: format)
        }
    }

    /// Converts the pixels in place from `icc` to sRGB (nothing happens for a profile that is not RGB).
    static func convertToSRGB(_ pixels: Pixels, from icc: Data) {
        _ = icc.withUnsafeBytes {
            img_rgb_to_srgb(pixels.storage.pointer, pixels.width * pixels.height, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
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
