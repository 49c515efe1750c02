import CImaging
import Foundation

/// Probe, validate, thumbnail and re-encode JPEG, PNG, HEIC/AVIF and WebP images held in memory.
///
/// ```swift
/// let info = try Imaging.probe(data)                  // header and EXIF, no pixels
/// let thumb = try Imaging.thumbnail(of: data)         // validates every scan, 256 px JPEG, upright
/// let copy = try Imaging.reencode(data, as: .jpeg(quality: 85), maxSide: 2048)
/// ```
public enum Imaging {
    /// Header and EXIF, without decoding pixels.
    public static func probe(_ data: Data) throws -> ImageInfo {
        let format = try sniff(data)
        var info = img_info()
        var result = img_result()
        let status = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            switch format {
            case .jpeg: return img_jpeg_probe(base, raw.count, &info, &result)
            case .png: return img_png_probe(base, raw.count, &info, &result)
            case .heic, .avif: return img_heif_probe(base, raw.count, &info, &result)
            case .webp: return img_webp_probe(base, raw.count, &info, &result)
            }
        }
        try check(status, result, format)
        return ImageInfo(format: format, width: Int(info.width), height: Int(info.height), components: Int(info.components),
                         colorType: Int(info.color_type), bitDepth: Int(info.bit_depth), isProgressive: info.progressive != 0,
                         coefficientBytes: Int(info.coefficient_bytes), exif: exif(of: data, format: format))
    }

    /// Decodes the whole image (a JPEG at 1/8 scale, which still reads every scan) and throws on any
    /// error or on warnings that mean lost data.
    @discardableResult
    public static func validate(_ data: Data, limits: ImageLimits = .default) throws -> ImageInfo {
        let info = try probe(data)
        _ = try decode(data, format: info.format, scale: 8, limits: limits)
        return info
    }

    static func sniff(_ data: Data) throws -> ImageFormat {
        if data.isEmpty { throw ImageError.unrecognized("empty file (0 bytes)") }
        guard let format = ImageFormat.sniff(data) else {
            let head = data.prefix(4).map { String(format: "%02x", $0) }.joined(separator: " ")
            if let kind = ImageFormat.unsupportedKind(data) { throw ImageError.unrecognized(kind) }
            throw ImageError.unrecognized("not \(ImageFormat.acceptedNames) (it starts with \(head))")
        }
        return format
    }

    static func check(_ status: Int32, _ result: img_result, _ format: ImageFormat) throws {
        guard status != Int32(IMG_OK) else { return }
        let message = withUnsafeBytes(of: result.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        switch status {
        case Int32(IMG_ETRUNCATED):
            throw ImageError.truncated(format, message.lowercased().contains("premature end") ? "premature end of data" : message)
        case Int32(IMG_ETOOLARGE): throw ImageError.tooLarge(message)
        case Int32(IMG_ENOMEM): throw ImageError.outOfMemory(message)
        case Int32(IMG_EUNSUPPORTED):
            throw ImageError.unsupported(format, message.isEmpty ? "it uses a feature the decoder lacks" : message)
        default:
            throw ImageError.corrupt(format, message.isEmpty ? "the decoder rejected it" : message)
        }
    }

    /// Pixels as 8-bit RGB, stored orientation, in a buffer the C wrapper allocated (not copied).
    struct Pixels {
        let storage: PixelStorage
        var width: Int
        var height: Int
        var rgb: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage.pointer, count: width * height * 3) }

        init(width: Int, height: Int) {
            storage = PixelStorage(malloc(max(1, width * height * 3))!.assumingMemoryBound(to: UInt8.self))
            self.width = width
            self.height = height
        }

        init(adopting pointer: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
            storage = PixelStorage(pointer)
            self.width = width
            self.height = height
        }
    }

    /// Owns a malloc'ed pixel buffer.
    final class PixelStorage {
        let pointer: UnsafeMutablePointer<UInt8>
        init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
        deinit { free(pointer) }
    }

    /// `scale`: a JPEG's DCT scale (1, 2, 4, 8); `maxSide`: a WebP (or an animation's first frame) is scaled by its decoder to fit
    /// it, a non-interlaced PNG is reduced row by row as it is read (to no less than it), and a HEIF's
    /// embedded thumbnail at least that large stands for its pixels once the photo itself has decoded
    /// (0: full size).
    static func decode(_ data: Data, format: ImageFormat, scale: Int, limits: ImageLimits, maxSide: Int = 0) throws -> Pixels {
        try decodeReporting(data, format: format, scale: scale, limits: limits, maxSide: maxSide).pixels
    }

    /// `decode`, with what the decoder reported beside the pixels (its warnings, the bytes it skipped).
    static func decodeReporting(_ data: Data, format: ImageFormat, scale: Int, limits: ImageLimits,
                                maxSide: Int = 0) throws -> (pixels: Pixels, report: img_result) {
        var info = img_info()
        var result = img_result()
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var cLimits = limits.c
        let status = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            switch format {
            case .jpeg: return img_jpeg_decode(base, raw.count, Int32(scale), &cLimits, &info, &pixels, &width, &height, &result)
            case .png: return img_png_decode(base, raw.count, &cLimits, Int32(maxSide), &info, &pixels, &width, &height, &result)
            case .heic, .avif: return img_heif_decode(base, raw.count, &cLimits, Int32(maxSide), &info, &pixels, &width, &height, &result)
            case .webp: return img_webp_decode(base, raw.count, Int32(maxSide), &cLimits, &info, &pixels, &width, &height, &result)
            }
        }
        if status != Int32(IMG_OK) { img_free(pixels) }
        try check(status, result, format)
        guard let pixels else { throw ImageError.corrupt(format, "no pixels") }
        return (Pixels(adopting: pixels, width: Int(width), height: Int(height)), result)
    }

    /// The EXIF block as "Exif\0\0" and TIFF data (or a whole JPEG, which libexif reads too).
    static func exifPayload(of data: Data, format: ImageFormat) -> Data? {
        switch format {
        case .jpeg: return data
        case .png: return pngChunk("eXIf", in: data).map { Data("Exif\0\0".utf8) + $0 }
        case .heic, .avif, .webp: return metadata(IMG_META_EXIF, of: data, format: format)
        }
    }

    /// A metadata block of a HEIF or WebP file (`IMG_META_EXIF` or `IMG_META_ICC`).
    static func metadata(_ kind: Int, of data: Data, format: ImageFormat) -> Data? {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let found = data.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return format == .webp ? img_webp_metadata(base, raw.count, Int32(kind), &out, &size)
                                   : img_heif_metadata(base, raw.count, Int32(kind), &out, &size)
        }
        defer { img_free(out) }
        guard found == 0, let out else { return nil }
        return Data(bytes: out, count: size)
    }

    /// The XMP packet: a JPEG's APP1 after Adobe's namespace, a PNG's XML:com.adobe.xmp iTXt chunk
    /// (uncompressed), a HEIF application/rdf+xml item, a WebP XMP chunk.
    static func xmpPacket(of data: Data, format: ImageFormat) -> Data? {
        switch format {
        case .jpeg:
            let bytes = [UInt8](data.prefix(1 << 20))
            let signature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
            var i = 2
            while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
                let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                guard length >= 2, i + 2 + length <= bytes.count else { return nil }
                if bytes[i + 1] == 0xE1, length - 2 > signature.count, Array(bytes[(i + 4)..<(i + 4 + signature.count)]) == signature {
                    return Data(bytes[(i + 4 + signature.count)..<(i + 2 + length)])
                }
                i += 2 + length
            }
            return nil
        case .png:
            guard let chunk = pngChunk("iTXt", in: data, keyword: "XML:com.adobe.xmp") else { return nil }
            // keyword\0, compression flag, method, language\0, translated keyword\0, text
            let bytes = [UInt8](chunk)
            guard let end = bytes.firstIndex(of: 0), end + 2 < bytes.count, bytes[end + 1] == 0 else { return nil }
            var i = end + 3
            for _ in 0..<2 {
                guard let zero = bytes[i...].firstIndex(of: 0) else { return nil }
                i = zero + 1
            }
            return Data(bytes[i...])
        case .heic, .avif, .webp:
            return metadata(IMG_META_XMP, of: data, format: format)
        }
    }

    /// The XMP capture dates, as written: exif:DateTimeOriginal, xmp:CreateDate, photoshop:DateCreated.
    static func xmpDates(of data: Data, format: ImageFormat) -> [String] {
        guard let packet = xmpPacket(of: data, format: format) else { return [] }
        var raw = img_xmp()
        let status = packet.withUnsafeBytes { img_xmp_dates($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, &raw) }
        guard status == 0 else { return [] }
        func text<T>(_ field: T) -> String? {
            let s = withUnsafeBytes(of: field) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            return s.isEmpty ? nil : s
        }
        return [text(raw.date_time_original), text(raw.create_date), text(raw.date_created)].compactMap { $0 }
    }

    /// EXIF from a JPEG's APP1, a PNG's eXIf chunk, a HEIF Exif item or a WebP EXIF chunk, and the
    /// XMP capture date when EXIF has none that can be used.
    static func exif(of data: Data, format: ImageFormat) -> ExifInfo {
        var exif = exifFields(of: data, format: format)
        if exif.capture == nil {
            exif.xmpDates = xmpDates(of: data, format: format)
            exif.xmpDate = exif.xmpDates.first
        }
        return exif
    }

    static func exifFields(of data: Data, format: ImageFormat) -> ExifInfo {
        guard let payload = exifPayload(of: data, format: format) else { return ExifInfo() }
        var raw = img_exif()
        let found = payload.withUnsafeBytes { img_exif_read($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &raw) }
        var exif = ExifInfo()
        guard found == 0 else { return exif }
        func text<T>(_ field: T) -> String? {
            let s = withUnsafeBytes(of: field) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            return s.isEmpty ? nil : s
        }
        // libheif applies a HEIF's rotation and mirroring (irot, imir) as it decodes; the EXIF
        // orientation, which says the same, must not turn it again.
        exif.orientation = raw.orientation == 0 || format.isHEIF ? 1 : Int(raw.orientation)
        exif.dateTimeOriginal = text(raw.date_time_original)
        exif.offsetTimeOriginal = text(raw.offset_time_original)
        exif.subSecTimeOriginal = text(raw.subsec_time_original)
        exif.make = text(raw.make)
        exif.model = text(raw.model)
        return exif
    }

    /// The data of the first chunk of `type` in a PNG (whose text starts with `keyword\0`, if given).
    static func pngChunk(_ type: String, in data: Data, keyword: String? = nil) -> Data? {
        // Read in place: the chunks sought come before the image data, and a copy of the whole
        // file (three per PNG: EXIF, XMP, ICC) was a fifth of a corpus import's page faults.
        let wanted = Array(type.utf8)
        let prefix = keyword.map { Array($0.utf8) + [0] }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Data? in
            var offset = 8
            while offset + 8 <= bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                let name = UnsafeRawBufferPointer(rebasing: bytes[offset + 4 ..< offset + 8])
                let start = offset + 8
                guard start + length <= bytes.count else { return nil }
                let body = UnsafeRawBufferPointer(rebasing: bytes[start ..< start + length])
                if name.elementsEqual(wanted), prefix.map({ body.starts(with: $0) }) ?? true {
                    return Data(body)
                }
                if name.elementsEqual("IDAT".utf8) || name.elementsEqual("IEND".utf8) { return nil }
                offset = start + length + 4
            }
            return nil
        }
    }
}
