import Foundation

extension Imaging {
    /// A copy of an image without its metadata, and what was done to get it.
    public struct Stripped: Sendable {
        /// The file without its metadata.
        public var data: Data
        /// Its format (JPEG for HEIC, AVIF and WebP, which are converted).
        public var format: ImageFormat
        /// Set when the image had to be re-encoded (HEIC, AVIF, WebP: no lossless strip here).
        public var note: String?
    }

    /// Removes EXIF (with GPS), XMP, IPTC, comments and text without touching the pixels where
    /// the format allows it:
    /// - JPEG: of the application segments only JFIF (APP0, without its thumbnail), the ICC profile
    ///   (APP2 `ICC_PROFILE`) and Adobe's colour transform (APP14) stay; EXIF, XMP, MPF, IPTC, comments, and anything
    ///   after the end-of-image marker (a phone's second image or Motion Photo video, each with
    ///   EXIF and GPS of its own) are dropped. The entropy-coded data is copied as it is, so the
    ///   decoded pixels are identical. An orientation other than 1 is kept as the only EXIF tag,
    ///   so the photo still shows upright.
    /// - PNG: only the chunks that say how to show the pixels stay (`keptPNGChunks`); text,
    ///   eXIf, tIME, C2PA, private chunks and anything after IEND are dropped (an orientation
    ///   other than 1 is kept as a minimal eXIf).
    /// - HEIC, AVIF, WebP: re-encoded as JPEG (upright, without metadata), and `note` says so.
    ///
    /// A JPEG or PNG whose segments or chunks cannot be walked exactly (bytes between two JPEG
    /// segments, a length that runs past the end) is re-encoded from its pixels instead, in its own
    /// format, and `note` says why: a walk that resynchronised on guessed markers could copy part of
    /// a metadata segment.
    public static func strippingMetadata(_ data: Data, quality: Int = 92, limits: ImageLimits = .default) throws -> Stripped {
        let info = try probe(data)
        switch info.format {
        case .jpeg, .png:
            func reencoded(_ why: String) throws -> Stripped {
                let output: OutputFormat = info.format == .jpeg ? .jpeg(quality: quality) : .png
                let copy = try reencode(data, as: output, keepMetadata: false, limits: limits)
                return Stripped(data: copy, format: info.format,
                                note: "re-encoded to remove its metadata: its \(info.format == .jpeg ? "segments" : "chunks") could not be copied exactly (\(why))")
            }
            // Bytes libjpeg skips as not image data (after a scan's data, before a marker) would be
            // copied with the scan by a walk that cannot tell them from it: anything may be there.
            if info.format == .jpeg, case let skipped = try extraneousBytes(data, limits: limits), skipped > 0 {
                return try reencoded("\(skipped) bytes outside its image data, which could hold anything")
            }
            do {
                let stripped = info.format == .jpeg ? try strippedJPEG(data, orientation: info.exif.orientation)
                                                    : try strippedPNG(data, orientation: info.exif.orientation)
                return Stripped(data: stripped, format: info.format)
            } catch let error as ImageError {
                return try reencoded(error.reason)
            }
        case .heic, .avif, .webp:
            let jpeg = try reencode(data, as: .jpeg(quality: quality), keepMetadata: false, limits: limits)
            return Stripped(data: jpeg, format: .jpeg,
                            note: "converted from \(info.format.displayName) to JPEG to remove its metadata (no lossless way here)")
        }
    }

    /// How many bytes of a JPEG libjpeg skips as not image data, read by a decode at 1/8 scale
    /// (every scan is still entropy-decoded).
    static func extraneousBytes(_ data: Data, limits: ImageLimits) throws -> Int {
        Int(try decodeReporting(data, format: .jpeg, scale: 8, limits: limits).report.extraneous)
    }

    /// "Exif\0\0" and a big-endian TIFF block holding one tag: the orientation.
    static func orientationOnlyExif(_ orientation: Int) -> Data {
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]  // header, IFD0 at 8
        tiff += [0, 1]                                             // one entry
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0]  // 0x0112 SHORT ×1
        tiff += [0, 0, 0, 0]                                       // no next IFD
        return Data("Exif\0\0".utf8) + Data(tiff)
    }

    static func strippedJPEG(_ data: Data, orientation: Int) throws -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = [0xFF, 0xD8]
        var i = 2
        var wroteOrientation = false
        func orientationSegment() {
            guard !wroteOrientation, orientation != 1 else { return }
            let payload = [UInt8](orientationOnlyExif(orientation))
            out += [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            wroteOrientation = true
        }
        func starts(_ at: Int, _ end: Int, with identifier: String) -> Bool {
            let id = Array(identifier.utf8)
            return at + id.count <= end && Array(bytes[at..<(at + id.count)]) == id
        }
        var sawScan = false
        while i + 2 <= bytes.count {
            guard bytes[i] == 0xFF else { throw ImageError.corrupt(.jpeg, "a marker was expected at byte \(i)") }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                // Restart markers and TEM stand alone (no length).
                out += [0xFF, marker]
                i += 2
                continue
            }
            if marker == 0xD9 {
                // End of image: whatever follows is not this image (dropped).
                guard sawScan else { break }
                out += [0xFF, 0xD9]
                return Data(out)
            }
            guard i + 4 <= bytes.count else { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let end = i + 2 + length
            guard length >= 2, end <= bytes.count else { throw ImageError.truncated(.jpeg, "a segment runs past the end") }
            let keep: Bool
            switch marker {
            case 0xE0 where starts(i + 4, end, with: "JFIF\0") && length >= 16:
                // JFIF without its thumbnail (which may show the photo before it was cropped):
                // the 14 bytes of the header, thumbnail size 0 × 0.
                out += [0xFF, 0xE0, 0, 16] + bytes[(i + 4)..<(i + 16)] + [0, 0]
                keep = false
            case 0xE0: keep = false
            case 0xE2: keep = starts(i + 4, end, with: "ICC_PROFILE\0")
            case 0xEE: keep = starts(i + 4, end, with: "Adobe")
            case 0xE1, 0xE3...0xED, 0xEF, 0xFE: keep = false
            default: keep = true
            }
            if marker != 0xE0 { orientationSegment() }  // after JFIF, before the rest
            if keep { out += bytes[i..<end] }
            i = end
            if marker == 0xDA {
                // A scan's entropy-coded data, copied as it is, up to the next marker (0xFF
                // followed by 0x00 is a stuffed byte, by 0xD0–0xD7 a restart: both are data).
                sawScan = true
                var j = i
                while j + 1 < bytes.count {
                    if bytes[j] == 0xFF {
                        // Fill bytes may come before a marker (a restart one too).
                        var k = j + 1
                        while k < bytes.count && bytes[k] == 0xFF { k += 1 }
                        if k < bytes.count && bytes[k] != 0x00 && !(0xD0...0xD7).contains(bytes[k]) { break }
                        j = k
                        continue
                    }
                    j += 1
                }
                if j + 1 >= bytes.count {
                    // No end-of-image marker: the data runs to the end of the file.
                    out += bytes[i...]
                    return Data(out)
                }
                out += bytes[i..<j]
                i = j
            }
        }
        if sawScan { return Data(out) }
        throw ImageError.truncated(.jpeg, "no image data (start of scan) found")
    }

    /// The PNG chunks a stripped copy keeps: the image itself and what says how to show it
    /// (palette, transparency, colour space, pixel size, APNG animation). Everything else goes.
    static let keptPNGChunks: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP",
                                             "mDCv", "cLLi", "sBIT", "bKGD", "pHYs", "acTL", "fcTL", "fdAT"]

    static func strippedPNG(_ data: Data, orientation: Int) throws -> Data {
        let bytes = [UInt8](data)
        var out = Array(bytes[0..<8])
        var i = 8
        var sawData = false
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let end = i + 12 + length
            guard length >= 0, end <= bytes.count else { throw ImageError.truncated(.png, "a chunk runs past the end") }
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            if type == "IDAT" && !sawData {
                if orientation != 1 { out += chunk("eXIf", [UInt8](orientationOnlyExif(orientation).dropFirst(6))) }
                sawData = true
            }
            if keptPNGChunks.contains(type) { out += bytes[i..<end] }
            // Whatever follows IEND is not this image (dropped).
            if type == "IEND" { break }
            i = end
        }
        guard sawData else { throw ImageError.truncated(.png, "no image data (IDAT) found") }
        return Data(out)
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        let n = UInt32(payload.count), crc = crc32(body)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
