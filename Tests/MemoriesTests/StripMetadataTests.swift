import Foundation
@testable import Imaging
import Testing

struct ManifestJSON: Decodable {
    struct File: Decodable { var file: String; var format: String; var takenAt: String? }
    struct Note: Decodable { var originalFilename: String; var reason: String }
    var files: [File]
    var warnings: [Note]
}

/// `export --strip-metadata` without `--format` strips: JPEG and PNG losslessly, HEIC by converting.
@Suite struct StripMetadataTests {
    /// The pixels as decoded, upright, written as PNG (a deterministic encoding of them).
    func pixels(_ data: Data) throws -> Data { try Imaging.reencode(data, as: .png) }

    @Test func strippingRemovesGPSXMPAndTextButNotOnePixel() throws {
        let box = Sandbox()
        for name in ["private.jpg", "private.png", "rotated.heic"] {
            _ = box.copy(fixtureImages.appendingPathComponent("good/\(name)"), to: "in/\(name)")
        }
        #expect(try box.run("import", box.url.appendingPathComponent("in").path, "--title", "Private").status == 0)
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Private", out.path, "--strip-metadata")
        #expect(result.status == 0, "\(result.stderr)")

        let original = try Data(contentsOf: fixtureImages.appendingPathComponent("good/private.jpg"))
        let jpeg = try Data(contentsOf: out.appendingPathComponent("private.jpg"))
        #expect(try pixels(jpeg) == pixels(original), "the entropy-coded data is copied as it is")
        for secret in ["secret place", "a comment", "http://ns.adobe.com/xap/1.0/", "Fixture Camera", "2024:06:06"] {
            #expect(jpeg.range(of: Data(secret.utf8)) == nil, "\(secret) is gone")
        }
        let info = try Imaging.probe(jpeg)
        #expect(info.exif.orientation == 6 && info.exif.make == nil && info.exif.dateTimeOriginal == nil, "only the orientation stays")
        #expect(original.count - jpeg.count > 300)

        let png = try Data(contentsOf: out.appendingPathComponent("private.png"))
        #expect(try pixels(png) == pixels(try Data(contentsOf: fixtureImages.appendingPathComponent("good/private.png"))))
        #expect(png.range(of: Data("tEXt".utf8)) == nil && png.range(of: Data("secret place".utf8)) == nil)

        let heic = try Imaging.probe(try Data(contentsOf: out.appendingPathComponent("rotated.jpg")))
        #expect(heic.format == .jpeg && heic.uprightWidth == 48 && heic.exif.dateTimeOriginal == nil)
        let manifest = try JSONDecoder().decode(ManifestJSON.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.files.allSatisfy { $0.takenAt == nil }, "no capture times in a stripped export")
        #expect(manifest.files.first { $0.file == "rotated.jpg" }?.format == "jpeg")
        #expect(manifest.warnings.map(\.reason) == ["rotated.heic: converted from HEIC to JPEG to remove its metadata (no lossless way here)"])
        #expect(result.stderr.isEmpty || !result.stderr.contains("error"))
    }

    /// What phones put beside the image: an MPF segment, and after the end-of-image marker a
    /// second image or a Motion Photo video with EXIF and GPS of its own. A stripped copy keeps
    /// none of it; the scans (several, here) are copied as they are.
    @Test func aJPEGLosesItsMPFSegmentAndEverythingAfterItsEnd() throws {
        let scans = try Data(contentsOf: fixtureImages.appendingPathComponent("good/multiscan.jpg"))
        let tail = try Data(contentsOf: fixtureImages.appendingPathComponent("good/private.jpg"))
        let mpfPayload = Data("MPF\0".utf8) + Data("MM\0\u{2A}secret place".utf8)
        let mpf = Data([0xFF, 0xE2, 0, UInt8(mpfPayload.count + 2)]) + mpfPayload
        let phone = scans.prefix(2) + mpf + scans.dropFirst(2) + tail
        let stripped = try Imaging.strippingMetadata(phone).data
        #expect(try pixels(stripped) == pixels(scans))
        #expect(stripped.suffix(2) == Data([0xFF, 0xD9]), "ends at the end-of-image marker")
        #expect(stripped.range(of: Data("secret place".utf8)) == nil && stripped.range(of: Data("MPF".utf8)) == nil)
        #expect(stripped.range(of: Data([0xFF, 0xD8, 0xFF])) == 0..<3, "one image")
        // The colour profile stays.
        let p3 = try Data(contentsOf: fixtureImages.appendingPathComponent("good/display-p3.jpg"))
        #expect(try Imaging.strippingMetadata(p3).data.range(of: Data("ICC_PROFILE\0".utf8)) != nil)
    }

    /// Only the chunks that say how to show the pixels stay: a C2PA or private chunk goes, and
    /// bytes after IEND no longer make the strip fail ("a chunk runs past the end").
    @Test func aPNGKeepsOnlyTheChunksThatShowItsPixels() throws {
        let original = try Data(contentsOf: fixtureImages.appendingPathComponent("good/private.png"))
        // IEND is the last 12 bytes.
        let c2pa = Imaging.chunk("caBX", Array("GPS 47.37 N".utf8)) + Imaging.chunk("prVt", Array("secret".utf8))
        let png = original.dropLast(12) + Data(c2pa) + original.suffix(12) + Data("trailing GPS 47.37 N, more than twelve bytes".utf8)
        let stripped = try Imaging.strippingMetadata(png).data
        #expect(try pixels(stripped) == pixels(original))
        #expect(stripped.range(of: Data("GPS".utf8)) == nil && stripped.range(of: Data("secret".utf8)) == nil)
        #expect(stripped.suffix(12) == original.suffix(12), "ends with IEND")
    }

    /// Legal layouts the marker walk must pass through as they are: fill bytes before a restart
    /// marker inside a scan, and TEM and fill bytes between scans (both failed as "a segment runs
    /// past the end"). A JFIF thumbnail is dropped, its header kept.
    @Test func restartMarkersTEMAndFillBytesPassThroughAndTheJFIFThumbnailGoes() throws {
        let restart = try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/strip/restart-fill.jpg"))
        let stripped = try Imaging.strippingMetadata(restart).data
        #expect(try pixels(stripped) == pixels(restart))
        #expect(stripped.range(of: Data([0xFF, 0xFF, 0xD0])) != nil, "the scan is copied as it is")

        var scans = try Data(contentsOf: fixtureImages.appendingPathComponent("good/multiscan.jpg"))
        let second = try #require(scans.range(of: Data([0xFF, 0xDA]), in: scans.range(of: Data([0xFF, 0xDA]))!.upperBound..<scans.endIndex))
        scans.insert(contentsOf: [0xFF, 0x01, 0xFF, 0xFF], at: second.lowerBound)
        #expect(try pixels(try Imaging.strippingMetadata(scans).data) == pixels(scans))

        // A JFIF segment with a 2 × 1 RGB thumbnail ("THUMB!" as its pixels).
        let jpeg = try Data(contentsOf: fixtureImages.appendingPathComponent("good/photo.jpg"))
        let jfif: [UInt8] = [0xFF, 0xE0, 0, 22] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 2, 1] + Array("THUMB!".utf8)
        let withThumbnail = Data([0xFF, 0xD8] + jfif) + jpeg.dropFirst(2)
        let clean = try Imaging.strippingMetadata(withThumbnail).data
        #expect(clean.range(of: Data("THUMB!".utf8)) == nil)
        #expect(clean.prefix(20) == Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]))
        #expect(try pixels(clean) == pixels(withThumbnail))
    }

    /// Valid JPEGs whose segments cannot be walked exactly (Fixtures/make-strip-edge.sh: bytes between
    /// two segments, a Photoshop segment and an Adobe one whose lengths say less than they hold) are
    /// re-encoded from their pixels, and the export says so: they failed, advising `--format
    /// original`, which keeps the GPS position.
    @Test func aJPEGThatCannotBeWalkedExactlyIsReencodedNotRefusedOrCopied() throws {
        let box = Sandbox()
        let names = ["edge-junk-before-marker.jpg", "edge-broken-photoshop.jpg", "edge-truncated-app14.jpg"]
        for name in names { _ = box.copy(packageRoot.appendingPathComponent("Fixtures/strip/\(name)"), to: "in/\(name)") }
        #expect(try box.run("import", box.url.appendingPathComponent("in").path, "--title", "Edge").status == 0)
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Edge", out.path, "--strip-metadata")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("--format original"))
        for name in names {
            #expect(result.stderr.contains("\(name): re-encoded to remove its metadata: its segments could not be copied exactly"), "\(result.stderr)")
            let copy = try Data(contentsOf: out.appendingPathComponent(name))
            let info = try Imaging.probe(copy)
            #expect(info.format == .jpeg && info.exif.orientation == 1 && info.exif.dateTimeOriginal == nil && info.width == 48 && info.height == 32, "upright, as the pixels were")
            for secret in ["secret", "a comment", "GPS", "Photoshop", "http://ns.adobe.com/xap/1.0/", "Fixture Camera"] {
                #expect(copy.range(of: Data(secret.utf8)) == nil, "\(name) keeps \(secret)")
            }
        }
    }

    static let exiftool = "/usr/bin/exiftool"

    /// Every fixture the import accepts, exported with `--strip-metadata` and read back by exiftool:
    /// nothing but what shows the pixels (the format's structure, JFIF, the ICC profile, Adobe's
    /// colour transform) and an orientation.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: exiftool), "needs exiftool (scripts/setup.sh --tests)"))
    func exiftoolFindsNoGPSEXIFXMPOrIPTCInAnyStrippedExport() throws {
        let box = Sandbox()
        let folders = [fixtureImages.appendingPathComponent("good"), packageRoot.appendingPathComponent("Fixtures/strip")]
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix(".md") {
                _ = box.copy(folder.appendingPathComponent(name), to: "in/\(name)")
            }
        }
        #expect(try box.run("import", box.url.appendingPathComponent("in").path, "--title", "All").status == 0)
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "All", out.path, "--strip-metadata")
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "manifest.json" }.sorted()
        #expect(files.count == 45)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.exiftool)
        process.arguments = ["-j", "-G0", "-a"] + files.map { out.appendingPathComponent($0).path }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let json = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let read = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        #expect(read.count == files.count)
        let shown: Set<String> = ["APP14", "Composite", "ExifTool", "ICC_Profile", "JFIF", "SourceFile"]
        let pngStructure: Set<String> = ["BitDepth", "ColorType", "Compression", "Filter", "ImageHeight", "ImageWidth", "Interlace",
                                         "Palette", "Transparency", "Gamma", "SRGBRendering", "BackgroundColor", "SignificantBits",
                                         "PixelsPerUnitX", "PixelsPerUnitY", "PixelUnits", "WhitePointX", "WhitePointY",
                                         "RedX", "RedY", "GreenX", "GreenY", "BlueX", "BlueY", "ProfileName"]
        for file in read {
            for key in file.keys {
                let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
                let group = parts[0], tag = parts.count > 1 ? parts[1] : ""
                let allowed = shown.contains(group) || (group == "File" && tag != "Comment") || key == "EXIF:Orientation"
                    || (group == "PNG" && pngStructure.contains(tag))
                #expect(allowed, "\(file["SourceFile"] ?? "?") keeps \(key) = \(file[key] ?? "")")
            }
        }
    }

    /// Bytes hidden after a scan's data, before the end-of-image marker (libjpeg skips them as
    /// "extraneous": the file imports) went out with the scan, copied as it is; the memory's date,
    /// its first photo's capture time, stayed in the manifest and the gallery.
    @Test func bytesHiddenBesideTheImageDataAndTheMemorysDateDoNotGoOut() throws {
        let box = Sandbox()
        var jpeg = try Data(contentsOf: fixtureImages.appendingPathComponent("good/orientation-1.jpg"))
        let end = try #require(jpeg.range(of: Data([0xFF, 0xD9]), options: .backwards))
        jpeg.insert(contentsOf: Data("SECRET-GPS 47.3700N 8.5400E".utf8), at: end.lowerBound)
        try FileManager.default.createDirectory(at: box.url.appendingPathComponent("in"), withIntermediateDirectories: true)
        try jpeg.write(to: box.url.appendingPathComponent("in/hidden.jpg"))
        #expect(try box.run("import", box.url.appendingPathComponent("in").path, "--title", "Hidden").status == 0)
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Hidden", out.path, "--strip-metadata", "--html")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("hidden.jpg: re-encoded to remove its metadata: its segments could not be copied exactly (")
                && result.stderr.contains(" bytes outside its image data, which could hold anything)"),
                "\(result.stderr)")
        let written = try Data(contentsOf: out.appendingPathComponent("hidden.jpg"))
        #expect(written.range(of: Data("SECRET".utf8)) == nil)
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(!manifest.contains("\"date\"") && !manifest.contains("2024-06-01"), "\(manifest)")
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!html.contains("2024-06-01"), "the gallery shows no capture day")
    }

    /// Text hidden where a decoder does not look (an Adobe segment's spare bytes, a DNL segment, a
    /// quantization or Huffman table nothing uses, ICC segments that are no profile; PNG chunks
    /// longer than their contents, data after the compressed image, an iCCP that is no profile)
    /// went out copied as it was. Now such a photo is re-encoded, or the segment dropped; a real
    /// profile (Display P3) stays, and the copy stays lossless.
    @Test func textHiddenInSegmentsAndChunksDoesNotGoOut() throws {
        let secret = Array("SECRET-GPS 48.8584N 2.2945E".utf8)
        let jpeg = [UInt8](try Data(contentsOf: fixtureImages.appendingPathComponent("good/photo.jpg")))
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body }
        func beforeFrame(_ extra: [UInt8]) -> Data {
            let sof = jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }!
            return Data(jpeg[..<sof] + extra + jpeg[sof...])
        }
        let variants: [String: Data] = [
            "app14-extra.jpg": beforeFrame(segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1] + secret)),
            "app14-only.jpg": beforeFrame(segment(0xEE, Array("Adobe".utf8) + secret)),
            "dnl.jpg": beforeFrame(segment(0xDC, secret)),
            "dqt-unused.jpg": beforeFrame(segment(0xDB, [3] + Array((secret + [UInt8](repeating: 1, count: 64)).prefix(64)))),
            "dht-unused.jpg": beforeFrame(segment(0xC4, [0x13] + [UInt8](repeating: 0, count: 15) + [UInt8(secret.count)] + secret)),
            "icc-text.jpg": beforeFrame(segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + secret)),
        ]
        var png = [UInt8](try Data(contentsOf: fixtureImages.appendingPathComponent("good/rgba.png")))
        let idat = png.indices.first { Array(png[$0..<min($0 + 4, png.count)]) == Array("IDAT".utf8) }! - 4
        var pngs: [String: Data] = [:]
        for (name, extra) in [("phys-extra.png", Imaging.chunk("pHYs", [0, 0, 11, 19, 0, 0, 11, 19, 1] + secret)),
                              ("bkgd-extra.png", Imaging.chunk("bKGD", [0, 255, 0, 255, 0, 255] + secret))] {
            pngs[name] = Data(png[..<idat] + extra + png[idat...])
        }
        let idatLength = Int(png[idat]) << 24 | Int(png[idat + 1]) << 16 | Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        let compressed = Array(png[(idat + 8)..<(idat + 8 + idatLength)])
        png.replaceSubrange(idat..<(idat + 12 + idatLength), with: Imaging.chunk("IDAT", compressed + secret))
        pngs["idat-tail.png"] = Data(png)
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, data) in variants.merging(pngs, uniquingKeysWith: { a, _ in a }) { try data.write(to: folder.appendingPathComponent(name)) }
        _ = box.copy(fixtureImages.appendingPathComponent("good/display-p3.jpg"), to: "in/display-p3.jpg")
        let imported = try box.run("import", folder.path, "--title", "Hidden")
        #expect(imported.status == 0, "\(imported.stderr)")
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Hidden", out.path, "--strip-metadata")
        #expect(result.status == 0, "\(result.stderr)")
        for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
            let written = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(written.range(of: Data("SECRET".utf8)) == nil, "\(name) keeps the hidden text")
        }
        let p3 = try Data(contentsOf: out.appendingPathComponent("display-p3.jpg"))
        #expect(Imaging.iccProfile(of: p3, format: .jpeg) != nil && !result.stderr.contains("display-p3.jpg"), "a real profile stays, losslessly")
    }
}
