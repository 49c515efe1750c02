import Foundation
import Testing
@testable import Imaging

let fixtures: URL = {
    var dir = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
    return dir.appendingPathComponent("Fixtures/images")
}()

struct Expectation: CustomTestStringConvertible, Sendable {
    var file: String
    var outcome: [String]
    var testDescription: String { file }
}

let expectations: [Expectation] = {
    let text = (try? String(contentsOf: fixtures.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map {
        let parts = $0.split(separator: "\t")
        return Expectation(file: String(parts[0]), outcome: parts[1].split(separator: " ").map(String.init))
    }
}()

func kind(_ error: ImageError) -> String {
    switch error {
    case .unrecognized: return "unrecognized"
    case .truncated: return "truncated"
    case .corrupt: return "corrupt"
    case .unsupported: return "unsupported"
    case .tooLarge: return "tooLarge"
    case .outOfMemory: return "outOfMemory"
    }
}

/// Decodes a JPEG or PNG back to RGB (full size) for checking pixels.
func pixels(_ data: Data) throws -> Imaging.Pixels {
    try Imaging.decode(data, format: ImageFormat.sniff(data)!, scale: 1, limits: .default)
}

func colour(_ p: Imaging.Pixels, _ fx: Double, _ fy: Double) -> (Int, Int, Int) {
    let x = Int(Double(p.width) * fx), y = Int(Double(p.height) * fy)
    let i = (y * p.width + x) * 3
    return (Int(p.rgb[i]), Int(p.rgb[i + 1]), Int(p.rgb[i + 2]))
}

func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int), tolerance: Int = 40) -> Bool {
    abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
}

let red = (220, 30, 30), green = (30, 200, 30), blue = (30, 30, 220), white = (250, 250, 250)

@Suite struct ImagingTests {
    @Test func theFixtureListIsComplete() {
        #expect(expectations.count == 58)
    }

    @Test(arguments: expectations)
    func everyFixtureGivesItsExpectedResult(_ expectation: Expectation) throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(expectation.file))
        if expectation.outcome[0] == "ok" {
            let info = try Imaging.validate(data)
            #expect(info.format.rawValue == expectation.outcome[1])
            #expect(info.width == Int(expectation.outcome[2]) && info.height == Int(expectation.outcome[3]))
            #expect(info.exif.orientation == Int(expectation.outcome[4]))
            let thumb = try Imaging.thumbnail(of: data, maxSide: 24)
            #expect(max(thumb.width, thumb.height) == 24)
            #expect(try Imaging.probe(thumb.jpeg).format == .jpeg)
        } else {
            do {
                try Imaging.validate(data)
                Issue.record("\(expectation.file) was accepted")
            } catch let error as ImageError {
                #expect(kind(error) == expectation.outcome[1], "\(expectation.file): \(error.reason)")
                #expect(!error.reason.isEmpty)
            }
            #expect(throws: ImageError.self) { _ = try Imaging.thumbnail(of: data) }
        }
    }

    @Test func reasonsReadLikeTheIssueAsks() throws {
        func reason(_ file: String, limits: ImageLimits = .default) throws -> String {
            do {
                try Imaging.validate(try Data(contentsOf: fixtures.appendingPathComponent(file)), limits: limits)
                return "accepted"
            } catch let error as ImageError { return error.reason }
        }
        #expect(try reason("bad/truncated.jpg") == "truncated JPEG: premature end of data")
        #expect(try reason("bad/bomb.png") == "image 50000x50000 exceeds the 100 MP limit")
        #expect(try reason("bad/bomb.jpg") == "image 60000x60000 exceeds the 100 MP limit")
        #expect(try reason("bad/zero-bytes.jpg") == "empty file (0 bytes)")
        #expect(try reason("bad/text.jpg").hasPrefix("not a JPEG, PNG, HEIC, AVIF or WebP image"))
        #expect(try reason("bad/bomb.webp") == "image 16384x16384 exceeds the 100 MP limit")
        let small = try reason("good/photo.heic", limits: ImageLimits(maxPixels: 5000))
        #expect(small == "image 96x64 exceeds the 0.005 MP limit")
        #expect(try reason("good/photo.webp", limits: ImageLimits(maxPixels: 5000)) == "image 96x64 exceeds the 0.005 MP limit")
        #expect(try reason("bad/truncated.heic").hasPrefix("truncated HEIC"))
        let wide = try reason("bad/grid-bomb-wide.heic")
        #expect(wide.hasPrefix("over the pixel limit (Image size 28001x27756 exceeds the maximum image size"), "\(wide)")
        let bomb = try reason("bad/grid-bomb.heic")
        // The limit is the photo's own longest side (48) rounded up to whole coding blocks (128).
        #expect(bomb == "over the pixel limit (Image size 28001x27756 exceeds the maximum image size 128x128)", "a grid larger than its image declares")
        #expect(try reason("bad/truncated.webp").hasPrefix("truncated WebP"))
        #expect(try reason("bad/crc.png") == "corrupt PNG: IDAT: CRC error")
        #expect(try reason("good/photo.jpg", limits: ImageLimits(maxPixels: 5000)) == "image 96x64 exceeds the 0.005 MP limit")
    }

    @Test(arguments: 1...8)
    func thumbnailsOfEveryOrientationComeOutUpright(_ orientation: Int) throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("good/orientation-\(orientation).jpg"))
        let thumb = try Imaging.thumbnail(of: data, maxSide: 48, quality: 95)
        #expect(thumb.width == 48 && thumb.height == 32)
        let p = try pixels(thumb.jpeg)
        #expect(near(colour(p, 0.25, 0.25), red), "top-left of orientation \(orientation)")
        #expect(near(colour(p, 0.75, 0.25), green), "top-right of orientation \(orientation)")
        #expect(near(colour(p, 0.25, 0.75), blue), "bottom-left of orientation \(orientation)")
        #expect(near(colour(p, 0.75, 0.75), white), "bottom-right of orientation \(orientation)")
    }

    /// A phone's HEIC: libheif turns the pixels upright by the file's `irot`; its EXIF orientation
    /// (6, saying the same) is not applied a second time. A WebP has no transforms: EXIF turns it.
    @Test(arguments: ["good/rotated.heic", "good/orientation-6.webp"])
    func phoneFormatsComeOutUpright(_ file: String) throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(file))
        let info = try Imaging.probe(data)
        #expect(info.uprightWidth == 48 && info.uprightHeight == 32)
        let thumb = try Imaging.thumbnail(of: data, maxSide: 48, quality: 95)
        #expect(thumb.width == 48 && thumb.height == 32)
        let p = try pixels(thumb.jpeg)
        #expect(near(colour(p, 0.25, 0.25), red) && near(colour(p, 0.75, 0.25), green), "\(file)")
        #expect(near(colour(p, 0.25, 0.75), blue) && near(colour(p, 0.75, 0.75), white), "\(file)")
        let jpeg = try Imaging.reencode(data, as: .jpeg(quality: 95))
        let again = try Imaging.probe(jpeg)
        #expect(again.format == .jpeg && again.uprightWidth == 48 && again.uprightHeight == 32)
        #expect(again.exif.dateTimeOriginal == "2024:06:06 10:00:00", "EXIF carried into the JPEG")
    }

    @Test func captureTimesComeFromEXIFThenXMPWithTheirOffsets() throws {
        func capture(_ file: String) throws -> (date: Date, offset: Int?)? {
            try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent(file))).exif.capture
        }
        let night = try #require(try capture("good/date-zurich-night.jpg"))
        #expect(night.date == ISO8601DateFormatter().date(from: "2024-06-12T22:30:00Z")!.addingTimeInterval(0.25) && night.offset == 7200)
        for file in ["good/date-xmp-only.webp", "good/date-xmp-only.heic"] {
            let found = try #require(try capture(file), "\(file)")
            #expect(found.date == ISO8601DateFormatter().date(from: "2024-06-13T21:30:00Z")! && found.offset == 7200, "XMP in \(file)")
        }
        let photoshop = try #require(try capture("good/date-photoshop.jpg"))
        #expect(photoshop.date == ISO8601DateFormatter().date(from: "2023-03-04T10:06:07Z")! && photoshop.offset == -18000, "photoshop:DateCreated")
        let xmp = try #require(try capture("good/date-xmp-only.jpg"))
        #expect(xmp.date == ISO8601DateFormatter().date(from: "2024-06-13T21:30:00Z")! && xmp.offset == 7200)
        let png = try #require(try capture("good/date-xmp-only.png"))
        #expect(png.date == ISO8601DateFormatter().date(from: "2024-06-14T15:15:00Z")! && png.offset == -25200)
        #expect(try capture("good/photo.jpg") == nil, "no date: none is guessed")
        let withOffset = try #require(try capture("good/orientation-1.jpg"))
        #expect(withOffset.offset == 7200 && withOffset.date == ISO8601DateFormatter().date(from: "2024-06-01T08:00:00Z")!)
    }

    /// A capture time outside the years 1–9999 once its offset is applied is not used, the next
    /// source is (EXIF, then XMP), and `unusableDates` names it. A clock reading without an offset
    /// must stay in range in every zone (±14 hours).
    @Test func captureTimesOutsideTheYears1To9999AreSkippedForTheNextSource() {
        var exif = ExifInfo()
        exif.dateTimeOriginal = "9999:12:31 23:59:59"
        exif.offsetTimeOriginal = "-12:00"
        exif.xmpDate = "2024-06-13T23:30:00+02:00"
        #expect(exif.capture?.date == ISO8601DateFormatter().date(from: "2024-06-13T21:30:00Z")! && exif.capture?.offset == 7200)
        #expect(exif.unusableDates == ["EXIF 9999:12:31 23:59:59 -12:00"])
        #expect(exif.captureSource == "XMP 2024-06-13T23:30:00+02:00")
        exif.xmpDate = "99999-01-01"
        #expect(exif.capture == nil && exif.captureSource == nil)
        #expect(exif.unusableDates == ["EXIF 9999:12:31 23:59:59 -12:00", "XMP 99999-01-01"])
        exif.offsetTimeOriginal = "+14:00"
        #expect(exif.capture?.date == ISO8601DateFormatter().date(from: "9999-12-31T09:59:59Z")!, "in range once its offset is applied")
        exif.offsetTimeOriginal = nil
        #expect(exif.capture == nil, "a clock reading of 9999-12-31 23:59:59 is the year 10000 east of Greenwich")
        exif.dateTimeOriginal = "9999:12:31 09:59:59"
        #expect(exif.capture != nil && exif.unusableDates == ["XMP 99999-01-01"])
    }

    /// Dates read strictly (a second outside attack's cases): a day the calendar lacks is no date
    /// (Calendar rolled 30 February over to March); an offset written in DateTimeOriginal itself
    /// counts (it was cut at the minute and lost); years before 1800 are years; each XMP field is
    /// tried in turn; a signed year is no photo's; a date before the year 1 is named.
    @Test func datesAreReadStrictlyAndEveryXMPFieldIsTried() {
        func exif(_ text: String) -> ExifInfo { var e = ExifInfo(); e.dateTimeOriginal = text; return e }
        let iso = ISO8601DateFormatter()
        #expect(exif("2023:02:30 10:00:00").capture == nil && exif("2023:02:30 10:00:00").unusableDates.isEmpty)
        #expect(exif("0000:00:00 00:00:00").capture == nil && exif("    :  :     :  :  ").capture == nil)
        let inline = exif("2024:06:01 12:34:56+02:00").capture
        #expect(inline?.date == iso.date(from: "2024-06-01T10:34:56Z") && inline?.offset == 7200)
        #expect(exif("2024:06:01 12:34:56.5").capture?.date == iso.date(from: "2024-06-01T12:34:56Z")!.addingTimeInterval(0.5))
        #expect(exif("2024:06:01 12:34:56 junk").capture == nil)
        #expect(exif("1066:10:14 09:00:00").capture != nil, "a year before 1800 is a year")
        var xmp = ExifInfo()
        xmp.xmpDates = ["99999-01-01", "2003-03-03T10:00:00Z"]
        #expect(xmp.capture?.date == iso.date(from: "2003-03-03T10:00:00Z") && xmp.captureSource == "XMP 2003-03-03T10:00:00Z")
        #expect(xmp.unusableDates == ["XMP 99999-01-01"])
        xmp.xmpDates = ["-2024-06-13T12:00:00Z"]
        #expect(xmp.capture == nil && xmp.unusableDates.isEmpty, "a signed year is no date")
        xmp.xmpDates = ["0001-01-01T00:00:00+14:00"]
        #expect(xmp.capture == nil && xmp.unusableDates == ["XMP 0001-01-01T00:00:00+14:00"])
        // Fields Double would read (the first crashed the import: NaN to Int), or half read.
        for text in ["2024-06-13Tnan:00", "2024-06-13T1e300:00", "2024-06-13T-1e300:00Z", "2024-06-13T12:xx:30", "2024-06-13T0x1p3:00",
                     "9223372036854775807-01-01", "2024-6-13", "2024-06-13T12", "2024-06-13 12:00"] {
            xmp.xmpDates = [text]
            #expect(xmp.capture == nil && xmp.unusableDates.isEmpty, "\(text)")
        }
        #expect(exif("0001:01:02 23:59:59+00:00").capture != nil, "the year 1 in the command line's calendar")
    }

    @Test func xmpDatesParseInEveryWrittenForm() {
        var exif = ExifInfo()
        for (text, expected, offset) in [("2024-06-13T23:30:00+02:00", "2024-06-13T21:30:00Z", 7200 as Int?),
                                         ("2024-06-13T23:30:00.5Z", "2024-06-13T23:30:00Z", 0),
                                         ("2024-06-13T23:30", "2024-06-13T23:30:00Z", nil),
                                         ("2024-06-13", "2024-06-13T00:00:00Z", nil),
                                         ("2024-06-13T23:30:00-0530", "2024-06-14T05:00:00Z", -19800)] {
            exif.xmpDate = text
            let capture = exif.capture
            #expect(capture.map { $0.date.timeIntervalSince1970.rounded(.down) } == ISO8601DateFormatter().date(from: expected)!.timeIntervalSince1970, "\(text)")
            #expect(capture?.offset == offset, "\(text)")
        }
        exif.xmpDate = "yesterday"
        #expect(exif.capture == nil)
    }

    /// A Display P3 photo: thumbnails become sRGB (its colours as LittleCMS's transicc gives them);
    /// re-encoded copies keep the profile, or, without metadata, become sRGB too.
    @Test func colourProfilesAreHonoured() throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("good/display-p3.jpg"))
        let profile = try #require(Imaging.iccProfile(of: data, format: .jpeg))
        #expect(profile.count > 300 && profile[profile.startIndex + 36 ..< profile.startIndex + 40] == Data("acsp".utf8), "an ICC profile")
        func close(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Bool { abs(a.0 - b.0) <= 10 && abs(a.1 - b.1) <= 10 && abs(a.2 - b.2) <= 10 }
        let raw = try pixels(data)
        #expect(close(colour(raw, 0.25, 0.5), (200, 40, 40)) && close(colour(raw, 0.75, 0.5), (60, 190, 70)), "stored as P3 values")
        let thumb = try pixels(try Imaging.thumbnail(of: data, maxSide: 64, quality: 95).jpeg)
        #expect(close(colour(thumb, 0.25, 0.5), (218, 0, 26)), "\(colour(thumb, 0.25, 0.5))")
        #expect(close(colour(thumb, 0.75, 0.5), (0, 193, 45)), "\(colour(thumb, 0.75, 0.5))")
        for format in [Imaging.OutputFormat.jpeg(quality: 95), .png] {
            let kept = try Imaging.reencode(data, as: format)
            #expect(Imaging.iccProfile(of: kept, format: try Imaging.probe(kept).format) == profile, "\(format)")
            #expect(close(colour(try pixels(kept), 0.25, 0.5), (200, 40, 40)))
            let plain = try Imaging.reencode(data, as: format, keepMetadata: false)
            #expect(Imaging.iccProfile(of: plain, format: try Imaging.probe(plain).format) == nil)
            #expect(close(colour(try pixels(plain), 0.25, 0.5), (218, 0, 26)))
        }
    }

    @Test func aPanoramaWiderThanTenThousandPixelsIsAPhotoAndEmbeddedThumbnailsServe() throws {
        let pano = try Data(contentsOf: fixtures.appendingPathComponent("good/panorama.heic"))
        try Imaging.validate(pano)
        let thumb = try Imaging.thumbnail(of: pano, maxSide: 256)
        #expect(thumb.width == 256 && thumb.height == 17)
        // Within the side but over the pixel count: refused by the count, not by a per-side limit.
        #expect(throws: ImageError.self) { try Imaging.validate(pano, limits: ImageLimits(maxPixels: 9_000_000)) }
        // A thumbnail no larger than the embedded one (48 px) is made from it, once the photo decoded.
        let file = try Data(contentsOf: fixtures.appendingPathComponent("good/thumbnailed.heic"))
        let small = try Imaging.thumbnail(of: file, maxSide: 40)
        #expect(small.width == 40 && small.height == 27)
        let large = try Imaging.thumbnail(of: file, maxSide: 80)
        #expect(large.width == 80 && large.height == 53)
    }

    /// A large PNG is reduced while it is read: no full-size buffer, the same picture, and a damaged
    /// one is still refused (every row is read, every CRC checked).
    @Test func largePNGsAreReducedRowByRowAndStillValidated() throws {
        // 2000x1200: left half red, right half blue, a white band across the bottom third.
        let source = Imaging.Pixels(width: 2000, height: 1200)
        let p = UnsafeMutablePointer(mutating: source.rgb.baseAddress!)
        for y in 0..<1200 {
            for x in 0..<2000 {
                let c: (UInt8, UInt8, UInt8) = y >= 800 ? (250, 250, 250) : x < 1000 ? (220, 30, 30) : (30, 30, 220)
                let i = (y * 2000 + x) * 3
                (p[i], p[i + 1], p[i + 2]) = c
            }
        }
        let png = try Imaging.encodePNG(source)
        let reduced = try Imaging.decode(png, format: .png, scale: 1, limits: .default, maxSide: 256)
        #expect(reduced.width == 286 && reduced.height == 172, "reduced by 7 while read: \(reduced.width)x\(reduced.height)")
        let full = try Imaging.decode(png, format: .png, scale: 1, limits: .default)
        #expect(full.width == 2000 && full.height == 1200)
        let thumb = try Imaging.thumbnail(of: png, maxSide: 256)
        #expect(thumb.width == 256 && thumb.height == 154)
        let t = try pixels(thumb.jpeg)
        #expect(near(colour(t, 0.25, 0.3), red) && near(colour(t, 0.75, 0.3), blue) && near(colour(t, 0.5, 0.9), white))
        // A flipped byte in the last image data: refused on the reduced path too.
        var damaged = png
        let idat = damaged.range(of: Data("IEND".utf8))!.lowerBound - 20
        damaged[idat] ^= 0x55
        #expect(throws: ImageError.self) { try Imaging.thumbnail(of: damaged, maxSide: 256) }
        #expect(throws: ImageError.self) { try Imaging.validate(damaged) }
    }

    /// The row-by-row reduction gives, pixel for pixel, the block averages of the whole decode
    /// (alpha composited on white first), for PNGs with alpha, with tRNS and opaque ones (which are
    /// read as RGB, without an alpha channel).
    @Test func reducedPNGRowsEqualTheBlockAveragesOfTheWholeImage() throws {
        for file in ["good/rgba.png", "good/palette.png", "good/grey8.png", "good/rgb16.png", "good/grey1.png"] {
            let png = try Data(contentsOf: fixtures.appendingPathComponent(file))
            let full = try Imaging.decode(png, format: .png, scale: 1, limits: .default)
            let reduced = try Imaging.decode(png, format: .png, scale: 1, limits: .default, maxSide: 16)
            let k = 3  // 48 / 16
            #expect(reduced.width == 16 && reduced.height == 11, "\(file): \(reduced.width)x\(reduced.height)")
            var mismatches = 0
            for by in 0..<reduced.height {
                for bx in 0..<reduced.width {
                    for c in 0..<3 {
                        var sum = 0, n = 0
                        for y in by * k..<min(full.height, (by + 1) * k) {
                            for x in bx * k..<min(full.width, (bx + 1) * k) {
                                sum += Int(full.rgb[(y * full.width + x) * 3 + c])
                                n += 1
                            }
                        }
                        if Int(reduced.rgb[(by * reduced.width + bx) * 3 + c]) != (sum + n / 2) / n { mismatches += 1 }
                    }
                }
            }
            #expect(mismatches == 0, "\(file): \(mismatches) samples differ from the block averages")
        }
    }

    /// The zlib stream's own checksum (Adler-32) is not what refuses a damaged PNG: each IDAT
    /// chunk's CRC-32 is. A PNG whose Adler-32 alone is wrong (its CRCs right) decodes.
    @Test func aPNGIsRefusedByItsChunkCRCsNotByTheZlibChecksum() throws {
        var png = try Data(contentsOf: fixtures.appendingPathComponent("good/rgb16.png"))
        let iend = png.range(of: Data("IEND".utf8))!.lowerBound - 4
        // The IDAT chunk just before IEND: its last 4 data bytes are the Adler-32, then its CRC.
        let crcAt = iend - 4, adlerAt = crcAt - 4
        png[adlerAt] ^= 0xFF
        var crcInput = Data("IDAT".utf8)
        let lengthAt = png[..<adlerAt].range(of: Data("IDAT".utf8), options: .backwards)!.lowerBound - 4
        let length = png[lengthAt..<lengthAt + 4].reduce(0) { $0 << 8 | Int($1) }
        crcInput += png[lengthAt + 8..<lengthAt + 8 + length]
        let crc = crc32(crcInput)
        for i in 0..<4 { png[crcAt + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
        #expect(try Imaging.validate(png).width == 48)
        png[crcAt] ^= 0x01  // now the CRC is wrong too
        #expect(throws: ImageError.self) { try Imaging.validate(png) }
    }

    @Test func aDecodeBudgetBoundsWhatRunsAtOnceAndRunsAnOversizeDecodeAlone() throws {
        let budget = DecodeBudget(bytes: 100)
        let lock = NSLock()
        var running = 0, most = 0, bigRanAlone = true
        DispatchQueue.concurrentPerform(iterations: 24) { i in
            let bytes = i == 12 ? 500 : 40
            budget.withReservation(bytes) {
                lock.lock()
                running += bytes == 500 ? 100 : bytes
                most = max(most, running)
                if bytes == 500 && running != 100 { bigRanAlone = false }
                lock.unlock()
                usleep(2000)
                lock.lock()
                running -= bytes == 500 ? 100 : bytes
                lock.unlock()
            }
        }
        #expect(most <= 100 && most >= 80, "at most \(most) of 100 at once")
        #expect(bigRanAlone)
        // Served in order: the oversize reservation asked for 13th runs before the last ones asked.
        var order: [Int] = []
        let serial = DecodeBudget(bytes: 100)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<6 {
                let i = round * 4 + worker
                serial.withReservation(i == 12 ? 500 : 40) {
                    lock.lock(); order.append(i); lock.unlock()
                    usleep(1000)
                }
            }
        }
        #expect(order.count == 24)
        #expect(order.firstIndex(of: 12).map { $0 < 20 } == true, "the big one was not passed over: \(order)")
        // The waits are counted (the import shows them as a stage of their own): a decode that
        // finds the budget full waits; one thread alone never does.
        let full = DecodeBudget(bytes: 100), holding = DispatchSemaphore(value: 0)
        Thread.detachNewThread { full.withReservation(100) { holding.signal(); usleep(50_000) } }
        holding.wait()
        full.withReservation(10) {}
        #expect(full.secondsWaited > 0)
        let alone = DecodeBudget(bytes: 100)
        for _ in 0..<10 { alone.withReservation(500) { _ = usleep(100) } }
        #expect(alone.secondsWaited == 0)
        // The estimates: a progressive JPEG holds its coefficients, a baseline one almost nothing.
        let progressive = try Imaging.probe(Data(contentsOf: fixtures.appendingPathComponent("good/progressive.jpg")))
        let baseline = try Imaging.probe(Data(contentsOf: fixtures.appendingPathComponent("good/photo.jpg")))
        // 96x64 at 4:2:0: luma 12x8 blocks, each chroma 6x4, 64 two-byte coefficients a block
        // (counted as 3 full planes, the estimate was twice what libjpeg holds).
        #expect(progressive.coefficientBytes == (12 * 8 + 2 * 6 * 4) * 128)
        #expect(DecodeBudget.peakBytes(of: progressive, scale: 1, maxSide: 256) == 97 * 65 * 3 + progressive.coefficientBytes)
        // Sides rounded up to whole MCUs: 24x16 keeps luma 4x2 blocks (3 rounded up to 4) and chroma 2x1.
        let small = try Imaging.reencode(Data(contentsOf: fixtures.appendingPathComponent("good/progressive.jpg")),
                                         as: .jpeg(quality: 90, progressive: true), maxSide: 24)
        let smallInfo = try Imaging.probe(small)
        #expect(smallInfo.width == 24 && smallInfo.height == 16)
        #expect(smallInfo.coefficientBytes == (4 * 2 + 2 * 2 * 1) * 128)
        #expect(baseline.coefficientBytes == 0)
        // Baseline with one scan per component: the same whole-image arrays as progressive.
        let multiscan = try Imaging.probe(Data(contentsOf: fixtures.appendingPathComponent("good/multiscan.jpg")))
        #expect(!multiscan.isProgressive && multiscan.coefficientBytes == progressive.coefficientBytes)
        #expect(DecodeBudget.peakBytes(of: multiscan, scale: 8, maxSide: 256) > multiscan.coefficientBytes)
        #expect(DecodeBudget.peakBytes(of: baseline, scale: 8, maxSide: 256) < 96 * 64)
        // A large PNG read row by row needs a row and its reduction, an interlaced one too (from
        // its last pass); either decoded at full size, all of it.
        var png = try Imaging.probe(Data(contentsOf: fixtures.appendingPathComponent("good/rgb16.png")))
        (png.width, png.height) = (8000, 6000)
        #expect(DecodeBudget.peakBytes(of: png, scale: 1, maxSide: 256) < 1 << 20)
        png.isProgressive = true
        #expect(DecodeBudget.peakBytes(of: png, scale: 1, maxSide: 256) < 1 << 20)
        #expect(DecodeBudget.peakBytes(of: png, scale: 1, maxSide: 0) == 8000 * 6000 * 4)
    }

    @Test func heicAndWebPExifIsRead() throws {
        let heic = try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent("good/rotated.heic")))
        #expect(heic.exif.dateTimeOriginal == "2024:06:06 10:00:00" && heic.exif.offsetTimeOriginal == "+02:00")
        #expect(heic.exif.make == "Fixture Camera" && heic.exif.orientation == 1)
        let webp = try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent("good/orientation-6.webp")))
        #expect(webp.exif.model == "Model 6" && webp.exif.orientation == 6)
    }

    @Test func formatsNamedButNotSupportedSayWhatTheyAre() {
        #expect(ImageFormat.unsupportedKind(Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}".utf8)) == "a GIF image (GIF is not supported)")
        #expect(ImageFormat.unsupportedKind(Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0])) == "a TIFF image (TIFF is not supported)")
        #expect(ImageFormat.unsupportedKind(Data([0, 0, 0, 0x14]) + Data("ftypqt  ".utf8)) == "a video (QuickTime MOV)")
        #expect(ImageFormat.unsupportedKind(Data([0, 0, 0, 0x18]) + Data("ftypmp42".utf8)) == "a video (MP4)")
        #expect(ImageFormat.sniff(Data([0, 0, 0, 0x18]) + Data("ftypmp42".utf8)) == nil)
    }

    @Test func exifFieldsAreRead() throws {
        let info = try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent("good/orientation-6.jpg")))
        #expect(info.exif.orientation == 6 && info.width == 32 && info.uprightWidth == 48 && info.uprightHeight == 32)
        #expect(info.exif.dateTimeOriginal == "2024:06:06 10:00:00" && info.exif.offsetTimeOriginal == "+02:00")
        #expect(info.exif.make == "Fixture Camera" && info.exif.model == "Model 6")
        #expect(info.exif.capturedAt == ISO8601DateFormatter().date(from: "2024-06-06T08:00:00Z"))
        let plain = try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent("good/photo.jpg")))
        #expect(plain.exif == ExifInfo())
    }

    @Test func probeReportsProgressiveInterlacedDepthAndColour() throws {
        func info(_ file: String) throws -> ImageInfo { try Imaging.probe(try Data(contentsOf: fixtures.appendingPathComponent(file))) }
        #expect(try info("good/progressive.jpg").isProgressive)
        #expect(try !info("good/photo.jpg").isProgressive)
        #expect(try info("good/interlaced.png").isProgressive)
        #expect(try info("good/rgb16.png").bitDepth == 16)
        #expect(try info("good/greyscale.jpg").components == 1)
        #expect(try info("good/cmyk.jpg").components == 4)
        #expect(try info("good/palette.png").colorType == 3)
    }

    @Test func pngAlphaIsCompositedOnWhiteAndSixteenBitAndPaletteDecode() throws {
        let rgba = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/rgba.png")))
        #expect(near(colour(rgba, 0.25, 0.25), red, tolerance: 2) && near(colour(rgba, 0.75, 0.25), (255, 255, 255), tolerance: 2))
        let deep = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/rgb16.png")))
        #expect(near(colour(deep, 0.25, 0.75), blue, tolerance: 1))
        let palette = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/palette.png")))
        #expect(near(colour(palette, 0.25, 0.25), red, tolerance: 1) && near(colour(palette, 0.75, 0.75), (255, 255, 255), tolerance: 1))
        let interlaced = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/interlaced.png")))
        #expect(near(colour(interlaced, 0.75, 0.25), green, tolerance: 1))
    }

    @Test func cmykDecodesToTheSameColoursAsTheRGBOriginal() throws {
        let cmyk = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/cmyk.jpg")))
        let rgb = try pixels(Data(contentsOf: fixtures.appendingPathComponent("good/photo.jpg")))
        #expect(cmyk.width == rgb.width && cmyk.height == rgb.height)
        var total = 0
        for i in 0..<rgb.rgb.count { total += abs(Int(cmyk.rgb[i]) - Int(rgb.rgb[i])) }
        #expect(Double(total) / Double(rgb.rgb.count) < 40, "mean difference \(Double(total) / Double(rgb.rgb.count))")
    }

    @Test func reencodedImagesDecodeBackWithTheExpectedSizeUprightAndNotRotatedTwice() throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("good/orientation-6.jpg"))
        let jpeg = try Imaging.reencode(data, as: .jpeg(quality: 95, progressive: true), maxSide: 24)
        let info = try Imaging.probe(jpeg)
        #expect(info.format == .jpeg && info.width == 24 && info.height == 16 && info.isProgressive)
        #expect(info.exif.orientation == 1, "the tag is reset: the pixels are already upright")
        #expect(info.exif.dateTimeOriginal == "2024:06:06 10:00:00", "the rest of the metadata is kept")
        #expect(near(colour(try pixels(jpeg), 0.25, 0.25), red))
        let stripped = try Imaging.reencode(data, as: .jpeg(), keepMetadata: false)
        #expect(try Imaging.probe(stripped).exif == ExifInfo())
        let png = try Imaging.reencode(data, as: .png)
        let pngInfo = try Imaging.probe(png)
        #expect(pngInfo.format == .png && pngInfo.width == 48 && pngInfo.height == 32)
        #expect(near(colour(try pixels(png), 0.75, 0.75), white))
        let fromPNG = try Imaging.reencode(try Data(contentsOf: fixtures.appendingPathComponent("good/palette.png")), as: .jpeg(quality: 90), maxSide: 10)
        #expect(try Imaging.probe(fromPNG).width == 10)
    }

    @Test func thumbnailsAreNeverUpscaled() throws {
        let thumb = try Imaging.thumbnail(of: try Data(contentsOf: fixtures.appendingPathComponent("good/photo.jpg")), maxSide: 256)
        #expect(thumb.width == 96 && thumb.height == 64)
    }
}

/// CRC-32 as PNG computes it (ISO 3309), bit by bit.
func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// Fixtures/bombs/ (made by Fixtures/make-bombs.sh): files whose work grew with a header's numbers.
let bombs = fixtures.deletingLastPathComponent().appendingPathComponent("bombs")
let bombExpectations: [Expectation] = {
    let text = (try? String(contentsOf: bombs.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map {
        let parts = $0.split(separator: "\t")
        return Expectation(file: String(parts[0]), outcome: parts[1].split(separator: " ").map(String.init))
    }
}()

@Suite struct BombTests {
    @Test func theBombListIsComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: bombs.path).filter { $0 != "EXPECTED.tsv" }
        #expect(Set(files) == Set(bombExpectations.map(\.file)))
        #expect(bombExpectations.count == 17)
    }

    /// Each is accepted with a thumbnail, or refused as too large naming the limit; the time and
    /// memory each takes are checked by MemoriesTests' import of them (a process of its own).
    @Test(arguments: bombExpectations)
    func everyBombIsAcceptedOrRefusedByItsLimit(_ expectation: Expectation) throws {
        let data = try Data(contentsOf: bombs.appendingPathComponent(expectation.file))
        if expectation.outcome == ["ok"] {
            try Imaging.validate(data)
            let thumb = try Imaging.thumbnail(of: data, maxSide: 256)
            #expect(thumb.width >= 1 && thumb.height >= 1 && max(thumb.width, thumb.height) <= 256)
        } else {
            do {
                _ = try Imaging.thumbnail(of: data)
                Issue.record("\(expectation.file) was accepted")
            } catch let error as ImageError {
                #expect(kind(error) == expectation.outcome[0], "\(expectation.file): \(error.reason)")
                #expect(error.reason.contains(expectation.outcome[1]), "\(error.reason)")
            }
        }
    }

    @Test func anAnimationsFramesAreCountedAndTheCanvasTimesFramesIsLimited() throws {
        let file = try Data(contentsOf: bombs.appendingPathComponent("webp-600-frames-10000x10000.webp"))
        func reason(_ limits: ImageLimits) -> String {
            do { try Imaging.validate(file, limits: limits); return "accepted" } catch let error as ImageError { return error.reason } catch { return "\(error)" }
        }
        #expect(reason(.default) == "an animation of 600 frames on a 10000x10000 canvas exceeds the limit of 10 gigapixels (frames x canvas)")
        #expect(reason(ImageLimits(maxFrames: 599)) == "an animation of 600 frames exceeds the limit of 599 frames")
        #expect(reason(ImageLimits(maxAnimationPixels: 60_000_000_000)) == "accepted")
        let apng = try Data(contentsOf: bombs.appendingPathComponent("apng-10001-frames.png"))
        #expect(throws: ImageError.tooLarge("an animation of 10001 frames exceeds the limit of 10000 frames")) { try Imaging.validate(apng) }
    }

    /// Decoders that keep a whole image's arrays (a JPEG of several scans its coefficients, a
    /// lossless WebP its ARGB pixels) are held to a working-memory limit; an interlaced PNG is
    /// reduced from its last pass, so it needs none.
    @Test func wholeImageDecodersAreHeldToTheWorkingMemoryLimit() throws {
        let progressive = try Data(contentsOf: fixtures.appendingPathComponent("good/progressive.jpg"))
        let small = ImageLimits(maxWorkingBytes: 1000)
        #expect(throws: ImageError.tooLarge("a 96x64 JPEG of several scans needs 0 MB to decode (its coefficients), over the 0 MB limit; jpegtran makes it baseline")) {
            try Imaging.validate(progressive, limits: small)
        }
        #expect(throws: Never.self) { try Imaging.validate(progressive) }
        let lossless = try Data(contentsOf: fixtures.appendingPathComponent("good/lossless-alpha.webp"))
        #expect(throws: ImageError.self) { try Imaging.validate(lossless, limits: small) }
        let interlaced = try Data(contentsOf: bombs.appendingPathComponent("png-interlaced-7000x7000.png"))
        let thumb = try Imaging.thumbnail(of: interlaced, maxSide: 256)
        #expect(thumb.width == 256 && abs(thumb.height - 256) <= 2, "square, as the image: \(thumb.width)x\(thumb.height)")
    }

    /// The first frame is decoded where it stands on its canvas (scaled with it), the rest only
    /// demuxed: a frame whose bitstream header is damaged is still found.
    @Test func anAnimationsFirstFrameIsPlacedOnItsCanvasAndEveryFrameHeaderIsChecked() throws {
        let file = try Data(contentsOf: bombs.appendingPathComponent("webp-50-frames-10000x10000.webp"))
        // Frame 1 is 2x2 red at (2, 4) of 10000x10000: a red corner pixel in a white 256x256 thumbnail.
        let small = try Imaging.decode(file, format: .webp, scale: 1, limits: .default, maxSide: 256)
        #expect(small.width == 256 && small.height == 256)
        #expect(near(colour(small, 0, 0), red, tolerance: 60))
        #expect(near(colour(small, 0.5, 0.5), white, tolerance: 6) && near(colour(small, 0.99, 0.99), white, tolerance: 6))
        // The VP8L signature byte (0x2f) of the 30th frame's bitstream, broken.
        var damaged = [UInt8](file)
        var found = 0, at = 0
        for i in 0..<(damaged.count - 4) where damaged[i..<(i + 4)].elementsEqual("VP8L".utf8) {
            found += 1
            if found == 30 { at = i + 8; break }
        }
        #expect(damaged[at] == 0x2f)
        damaged[at] = 0x00
        #expect(throws: ImageError.corrupt(.webp, "the animation cannot be read")) { try Imaging.validate(Data(damaged)) }
    }
}
