import CImaging
import Foundation

extension Imaging {
    /// A thumbnail and what was learnt making it.
    public struct Thumbnail: Sendable {
        /// JPEG bytes, upright.
        public var jpeg: Data
        /// The thumbnail's width, upright.
        public var width: Int
        /// The thumbnail's height, upright.
        public var height: Int
        /// The source's header and EXIF.
        public var info: ImageInfo
    }

    /// Makes an upright JPEG thumbnail whose longest side is `maxSide` (never upscaled). The same
    /// decode validates the image: a JPEG is decoded at the smallest DCT scale still at least
    /// `maxSide` (every scan is read), then area-averaged down; a WebP is scaled by its decoder; a
    /// non-interlaced PNG is reduced row by row as it is read (no full-size buffer); a HEIF that
    /// embeds a thumbnail at least `maxSide` large is decoded whole, and its thumbnail used (as vips does).
    ///
    /// With a `budget`, the decode first waits for its estimated peak memory to fit in it (see
    /// `DecodeBudget`), so that threads sharing the budget bound what they hold together.
    public static func thumbnail(of data: Data, maxSide: Int = 256, quality: Int = 80, limits: ImageLimits = .default,
                                 budget: DecodeBudget? = nil) throws -> Thumbnail {
        let info = try probe(data)
        var scale = 1
        if info.format == .jpeg {
            let longest = max(info.width, info.height)
            for candidate in [8, 4, 2] where (longest + candidate - 1) / candidate >= maxSide {
                scale = candidate
                break
            }
        }
        let decode = { try resized(Self.decode(data, format: info.format, scale: scale, limits: limits, maxSide: info.format == .jpeg ? 0 : maxSide),
                                   maxSide: maxSide) }
        let small = try budget.map { try $0.withReservation(DecodeBudget.peakBytes(of: info, scale: scale, maxSide: maxSide), decode) } ?? decode()
        // Thumbnails are shown as sRGB (browsers, the gallery): a Display P3 or Adobe RGB photo's
        // pixels are converted so that its colours stay its own.
        if let icc = iccProfile(of: data, format: info.format) { convertToSRGB(small, from: icc) }
        let upright = oriented(small, info.exif.orientation)
        let jpeg = try encodeJPEG(upright, quality: quality, progressive: false, exif: nil)
        return Thumbnail(jpeg: jpeg, width: upright.width, height: upright.height, info: info)
    }

    /// The size that fits `maxSide` on the longest side, keeping the aspect ratio (never larger).
    static func fitted(width: Int, height: Int, maxSide: Int) -> (Int, Int) {
        let longest = max(width, height)
        guard longest > maxSide else { return (width, height) }
        let scale = Double(maxSide) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    static func resized(_ pixels: Pixels, maxSide: Int) -> Pixels {
        let (w, h) = fitted(width: pixels.width, height: pixels.height, maxSide: maxSide)
        guard w != pixels.width || h != pixels.height else { return pixels }
        let out = Pixels(width: w, height: h)
        _ = img_resize_area(pixels.storage.pointer, Int32(pixels.width), Int32(pixels.height), out.storage.pointer, Int32(w), Int32(h))
        return out
    }

    static func oriented(_ pixels: Pixels, _ orientation: Int) -> Pixels {
        guard (2...8).contains(orientation) else { return pixels }
        var out = Pixels(width: pixels.width, height: pixels.height)
        var w: Int32 = 0, h: Int32 = 0
        _ = img_orient(pixels.storage.pointer, Int32(pixels.width), Int32(pixels.height), Int32(orientation), out.storage.pointer, &w, &h)
        out.width = Int(w)
        out.height = Int(h)
        return out
    }

    static func encodeJPEG(_ pixels: Pixels, quality: Int, progressive: Bool, exif: Data?, icc: Data? = nil) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var result = img_result()
        let status = pixels.rgb.withMemoryRebound(to: UInt8.self) { rgb in
            (exif ?? Data()).withUnsafeBytes { meta in
                (icc ?? Data()).withUnsafeBytes { profile in
                    img_jpeg_encode(rgb.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(min(100, max(1, quality))),
                                    progressive ? 1 : 0, exif == nil ? nil : meta.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                    exif?.count ?? 0, icc == nil ? nil : profile.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                    icc?.count ?? 0, &out, &size, &result)
                }
            }
        }
        defer { free(out) }
        try check(status, result, .jpeg)
        return Data(bytes: out!, count: size)
    }

    static func encodePNG(_ pixels: Pixels, icc: Data? = nil) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var result = img_result()
        let status = pixels.rgb.withMemoryRebound(to: UInt8.self) { rgb in
            (icc ?? Data()).withUnsafeBytes { profile in
                img_png_encode(rgb.baseAddress, Int32(pixels.width), Int32(pixels.height),
                               icc == nil ? nil : profile.baseAddress?.assumingMemoryBound(to: UInt8.self), icc?.count ?? 0,
                               &out, &size, &result)
            }
        }
        defer { img_free(out) }
        try check(status, result, .png)
        return Data(bytes: out!, count: size)
    }
}
