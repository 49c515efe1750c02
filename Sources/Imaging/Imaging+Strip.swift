import CImaging
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
    ///   (APP2 `ICC_PROFILE`, when it is a profile) and Adobe's colour transform (APP14, written anew) stay;
    ///   tables and segments are kept only at their contents' length and when the image uses them; EXIF, XMP, MPF, IPTC, comments, and anything
    ///   after the end-of-image marker (a phone's second image or Motion Photo video, each with
    ///   EXIF and GPS of its own) are dropped. The entropy-coded data is copied as it is, so the
    ///   decoded pixels are identical. An orientation other than 1 is kept as the only EXIF tag,
    ///   so the photo still shows upright.
    /// - PNG: only the chunks that say how to show the pixels stay (`keptPNGChunks`, each at its
    ///   contents' length; iCCP when it is a profile); text, eXIf, tIME, C2PA, private chunks, APNG
    ///   frames and anything after IEND are dropped (an orientation other than 1 is kept as a
    ///   minimal eXIf).
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
            // Bytes the decoder skips as not image data (after a JPEG scan's data; after a PNG's
            // compressed image) would be copied with the data by a walk that cannot tell them from
            // it: anything may be there.
            if case let skipped = try extraneousBytes(data, format: info.format, limits: limits), skipped > 0 {
                return try reencoded(info.format == .jpeg ? "\(skipped) bytes outside its image data, which could hold anything"
                                                          : "data after its compressed image, which could hold anything")
            }
            do {
                if info.format == .jpeg { return Stripped(data: try strippedJPEG(data, orientation: info.exif.orientation), format: .jpeg) }
                let png = try strippedPNG(data, orientation: info.exif.orientation)
                return Stripped(data: png.data, format: .png,
                                note: png.droppedAnimation ? "its animation frames were left out to remove its metadata: nothing here can check their data" : nil)
            } catch let refusal as NotCopiable {
                return try reencoded(refusal.reason)
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
    /// (every scan is still entropy-decoded); for a PNG, how many times libpng found data after
    /// its image (a reduced decode still reads every row).
    static func extraneousBytes(_ data: Data, format: ImageFormat, limits: ImageLimits) throws -> Int {
        Int(try decodeReporting(data, format: format, scale: 8, limits: limits, maxSide: format == .png ? 64 : 0).report.extraneous)
    }

    /// Why a JPEG's segments or a PNG's chunks cannot be copied exactly (the strip re-encodes).
    struct NotCopiable: Error {
        let reason: String
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
        // The ICC profile stays only when it is one (LittleCMS reads it, its size its own):
        // anything else in its segments is not how to show the pixels.
        var keepsProfile = false
        if let profile = iccProfile(of: data, format: .jpeg) {
            keepsProfile = profile.withUnsafeBytes { img_icc_valid($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) == 0 }
        }
        var tables = JPEGTables()
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
                try tables.checkAllUsed()
                out += [0xFF, 0xD9]
                return Data(out)
            }
            guard i + 4 <= bytes.count else { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let end = i + 2 + length
            guard length >= 2, end <= bytes.count else { throw ImageError.truncated(.jpeg, "a segment runs past the end") }
            // What is kept is image data, each segment exactly as long as what it holds, and each
            // table one that the image uses: bytes anywhere else could hold anything.
            let keep: Bool
            let body = Array(bytes[(i + 4)..<end])
            switch marker {
            case 0xE0 where starts(i + 4, end, with: "JFIF\0") && length >= 16:
                // JFIF without its thumbnail (which may show the photo before it was cropped):
                // the 14 bytes of the header, thumbnail size 0 × 0.
                out += [0xFF, 0xE0, 0, 16] + bytes[(i + 4)..<(i + 16)] + [0, 0]
                keep = false
            case 0xE2: keep = keepsProfile && starts(i + 4, end, with: "ICC_PROFILE\0")
            case 0xEE where starts(i + 4, end, with: "Adobe"):
                // Adobe's colour transform, written anew: libjpeg reads only its transform (0–2), and
                // the version and flags could carry anything.
                guard length >= 14, bytes[i + 15] <= 2 else { throw NotCopiable(reason: "an Adobe segment that is not one") }
                out += [0xFF, 0xEE, 0, 14] + Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, bytes[i + 15]]
                keep = false
            case 0xE0...0xEF, 0xFE: keep = false
            case 0xDB: try tables.defineQuantization(body); keep = true
            case 0xC4: try tables.defineHuffman(body); keep = true
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF: try tables.frame(body); keep = true
            case 0xCC: guard body.count % 2 == 0 else { throw NotCopiable(reason: "an arithmetic conditioning segment of odd length") }; keep = true
            case 0xDD: guard body.count == 2 else { throw NotCopiable(reason: "a restart interval segment of \(body.count) bytes") }; keep = true
            case 0xDA: try tables.scan(body); keep = true
            default: throw NotCopiable(reason: String(format: "a segment (marker FF%02X) that is neither image data nor known metadata", marker))
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
                    try tables.checkAllUsed()
                    out += bytes[i...]
                    return Data(out)
                }
                out += bytes[i..<j]
                i = j
            }
        }
        if sawScan {
            try tables.checkAllUsed()
            return Data(out)
        }
        throw ImageError.truncated(.jpeg, "no image data (start of scan) found")
    }

    /// A JPEG's quantization and Huffman tables as its segments define them and its frame and
    /// scans use them: a table defined and never used (before it is defined again), or a segment
    /// longer than its tables, is room for hidden bytes, and a strip that cannot copy exactly
    /// what the image needs re-encodes instead.
    struct JPEGTables {
        private var quantization: [Int: Int] = [:]   // id -> times defined
        private var quantizationUsed = Set<Int>()
        private var huffmanUnused = Set<Int>()        // class << 2 | id, defined and not yet used

        static func fail(_ why: String) -> NotCopiable { NotCopiable(reason: why) }

        mutating func defineQuantization(_ body: [UInt8]) throws {
            var at = 0
            while at < body.count {
                let precision = Int(body[at] >> 4), id = Int(body[at] & 0x0F)
                guard precision <= 1, id <= 3 else { throw Self.fail("a quantization table of precision \(precision), id \(id)") }
                at += 1 + 64 * (precision + 1)
                quantization[id, default: 0] += 1
            }
            guard at == body.count else { throw Self.fail("a quantization segment longer or shorter than its tables") }
        }

        mutating func defineHuffman(_ body: [UInt8]) throws {
            var at = 0
            while at < body.count {
                guard at + 17 <= body.count else { throw Self.fail("a Huffman segment cut short") }
                let kind = Int(body[at] >> 4), id = Int(body[at] & 0x0F)
                guard kind <= 1, id <= 3 else { throw Self.fail("a Huffman table of class \(kind), id \(id)") }
                let values = body[(at + 1)..<(at + 17)].reduce(0) { $0 + Int($1) }
                guard values <= 256 else { throw Self.fail("a Huffman table of \(values) values") }
                // A table defined again before any scan used it held nothing the image needs.
                guard huffmanUnused.insert(kind << 2 | id).inserted else { throw Self.fail("a Huffman table no scan uses") }
                at += 17 + values
            }
            guard at == body.count else { throw Self.fail("a Huffman segment longer or shorter than its tables") }
        }

        mutating func frame(_ body: [UInt8]) throws {
            guard body.count >= 6, body.count == 6 + 3 * Int(body[5]) else { throw Self.fail("a frame header of the wrong length") }
            for component in 0..<Int(body[5]) { quantizationUsed.insert(Int(body[6 + 3 * component + 2])) }
        }

        mutating func scan(_ body: [UInt8]) throws {
            guard !body.isEmpty, body.count == 4 + 2 * Int(body[0]) else { throw Self.fail("a scan header of the wrong length") }
            let count = Int(body[0])
            let start = body[1 + 2 * count], end = body[2 + 2 * count], high = body[3 + 2 * count] >> 4
            for component in 0..<count {
                let selectors = body[2 + 2 * component]
                // A first DC scan decodes with its DC table; any scan of AC coefficients with its AC table.
                if start == 0 && high == 0 { huffmanUnused.remove(0 << 2 | Int(selectors >> 4)) }
                if end > 0 { huffmanUnused.remove(1 << 2 | Int(selectors & 0x0F)) }
            }
        }

        func checkAllUsed() throws {
            guard huffmanUnused.isEmpty else { throw Self.fail("a Huffman table no scan uses") }
            for (id, times) in quantization where times > 1 || !quantizationUsed.contains(id) {
                throw Self.fail("a quantization table \(times > 1 ? "defined twice" : "no component uses")")
            }
        }
    }

    /// The PNG chunks a stripped copy keeps: the image itself and what says how to show it
    /// (palette, transparency, colour space, pixel size), each of the length its contents have.
    /// Everything else goes, APNG frames too: nothing here decodes them, so bytes hidden in their
    /// data could not be found (the copy is the still image every viewer without APNG shows).
    static let keptPNGChunks: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP",
                                             "mDCv", "cLLi", "sBIT", "bKGD", "pHYs"]
    /// The lengths the kept chunks of fixed contents may have.
    static let pngChunkLengths: [String: Set<Int>] = ["IHDR": [13], "gAMA": [4], "cHRM": [32], "sRGB": [1], "pHYs": [9], "cICP": [4],
                                                       "mDCv": [24], "cLLi": [8], "bKGD": [1, 2, 6], "sBIT": [1, 2, 3, 4]]

    static func strippedPNG(_ data: Data, orientation: Int) throws -> (data: Data, droppedAnimation: Bool) {
        let bytes = [UInt8](data)
        var out = Array(bytes[0..<8])
        var i = 8
        var sawData = false
        var droppedAnimation = false
        var keepsProfile: Bool?
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let end = i + 12 + length
            guard length >= 0, end <= bytes.count else { throw ImageError.truncated(.png, "a chunk runs past the end") }
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            if type == "IDAT" && !sawData {
                if orientation != 1 { out += chunk("eXIf", [UInt8](orientationOnlyExif(orientation).dropFirst(6))) }
                sawData = true
            }
            if let lengths = pngChunkLengths[type], !lengths.contains(length) {
                throw NotCopiable(reason: "a \(type) chunk of \(length) bytes, not the length its contents have")
            }
            if type == "PLTE" && (length % 3 != 0 || length > 768) || type == "tRNS" && length > 256 {
                throw NotCopiable(reason: "a \(type) chunk of \(length) bytes")
            }
            if ["acTL", "fcTL", "fdAT"].contains(type) { droppedAnimation = true }
            if type == "iCCP" {
                // Kept only when it is a profile LittleCMS reads (whose size is its own).
                keepsProfile = keepsProfile ?? iccProfile(of: data, format: .png).map { profile in
                    profile.withUnsafeBytes { img_icc_valid($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) == 0 }
                } ?? false
                if keepsProfile == true { out += bytes[i..<end] }
            } else if keptPNGChunks.contains(type) {
                out += bytes[i..<end]
            }
            // Whatever follows IEND is not this image (dropped).
            if type == "IEND" { break }
            i = end
        }
        guard sawData else { throw ImageError.truncated(.png, "no image data (IDAT) found") }
        return (Data(out), droppedAnimation)
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
