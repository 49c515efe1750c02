import Foundation
@testable import Imaging
import Testing

struct SkippedImportJSON: Decodable {
    struct File: Decodable { var path: String; var reason: String }
    var memory: ImportJSON.Ref?
    var imported: Int
    var skipped: Int
    var skippedFiles: [File]
    var rejected: [File]
}

/// A phone's folder through the built `memories`: HEIC, AVIF and WebP go in; damaged ones are
/// rejected with reasons; GIF, videos and other files are skipped, each named.
@Suite struct PhoneFolderTests {
    func phoneFolder(_ box: Sandbox) throws -> URL {
        let folder = box.url.appendingPathComponent("DCIM")
        for (fixture, name) in [("good/rotated.heic", "IMG_0001.HEIC"), ("good/heic-named.jpg", "IMG_0002.jpg"),
                                ("good/photo.webp", "shared.webp"), ("good/animated.webp", "sticker.webp"),
                                ("good/photo.avif", "IMG_0003.avif"), ("bad/truncated.heic", "IMG_0004.HEIC"),
                                ("bad/truncated.webp", "broken.webp")] {
            _ = box.copy(fixtureImages.appendingPathComponent(fixture), to: "DCIM/\(name)")
        }
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("funny.gif"))
        try (Data([0, 0, 0, 0x14]) + Data("ftypqt  \u{0}\u{0}\u{0}\u{0}qt  ".utf8)).write(to: folder.appendingPathComponent("IMG_0001.MOV"))
        try Data("notes\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data("x".utf8).write(to: folder.appendingPathComponent(".DS_Store"))
        return folder
    }

    @Test func heicAvifAndWebPAreImportedAndEverythingElseIsNamed() throws {
        let box = Sandbox()
        let folder = try phoneFolder(box)
        let result = try box.run("import", folder.path, "--title", "Phone", "--json")
        #expect(result.status == 2, "some files were rejected: \(result.stderr)")
        let report = try result.json(SkippedImportJSON.self)
        #expect(report.imported == 5)
        let rejected = Dictionary(uniqueKeysWithValues: report.rejected.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason) })
        #expect(rejected["IMG_0004.HEIC"]?.hasPrefix("truncated HEIC") == true, "\(rejected)")
        #expect(rejected["broken.webp"]?.hasPrefix("truncated WebP") == true, "\(rejected)")
        let skipped = Dictionary(uniqueKeysWithValues: report.skippedFiles.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason) })
        #expect(skipped == ["funny.gif": "a GIF image (GIF is not supported)", "IMG_0001.MOV": "a video (QuickTime MOV)",
                            "notes.txt": "not an image", ".DS_Store": "hidden"])
        #expect(report.skipped == 4)

        let show = try box.run("show", "Phone", "--json").json(ShowJSON.self)
        let byName = Dictionary(uniqueKeysWithValues: show.images.map { ($0.filename, $0) })
        let rotated = try #require(byName["IMG_0001.HEIC"])
        #expect(rotated.format == "heic" && rotated.width == 48 && rotated.height == 32, "as displayed, the irot applied")
        #expect(rotated.takenAt == "2024-06-06T10:00:00+02:00" && rotated.takenAtZoneKnown == true, "EXIF read from the HEIF Exif item, with its offset")
        #expect(byName["IMG_0002.jpg"]?.format == "heic", "recognised by content, not by name")
        #expect(byName["IMG_0003.avif"]?.format == "avif" && byName["sticker.webp"]?.format == "webp")

        // The gallery's thumbnail of the rotated HEIC is upright, as displayed.
        let gallery = box.url.appendingPathComponent("gallery")
        #expect(try box.run("export", "Phone", gallery.path, "--html").status == 0)
        let thumbData = try Data(contentsOf: gallery.appendingPathComponent("thumbs/IMG_0001.jpg"))
        let thumb = try Imaging.probe(thumbData)
        #expect(thumb.uprightWidth == 48 && thumb.uprightHeight == 32)
        // Upright by its pixels too: red, green above; blue, white below (the photo as it was taken).
        let pixels = try Imaging.decode(thumbData, format: .jpeg, scale: 1, limits: .default)
        func colour(_ fx: Double, _ fy: Double) -> (Int, Int, Int) {
            let i = (Int(Double(pixels.height) * fy) * pixels.width + Int(Double(pixels.width) * fx)) * 3
            return (Int(pixels.rgb[i]), Int(pixels.rgb[i + 1]), Int(pixels.rgb[i + 2]))
        }
        func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Bool { abs(a.0 - b.0) <= 40 && abs(a.1 - b.1) <= 40 && abs(a.2 - b.2) <= 40 }
        #expect(near(colour(0.25, 0.25), (220, 30, 30)) && near(colour(0.75, 0.25), (30, 200, 30)), "\(colour(0.25, 0.25)) \(colour(0.75, 0.25))")
        #expect(near(colour(0.25, 0.75), (30, 30, 220)) && near(colour(0.75, 0.75), (250, 250, 250)))

        // Originals come out byte for byte; --format jpeg converts them, upright.
        let originals = box.url.appendingPathComponent("originals")
        #expect(try box.run("export", "Phone", originals.path).status == 0)
        #expect(try sha256(originals.appendingPathComponent("IMG_0001.HEIC")) == sha256(folder.appendingPathComponent("IMG_0001.HEIC")))
        let jpegs = box.url.appendingPathComponent("jpegs")
        #expect(try box.run("export", "Phone", jpegs.path, "--format", "jpeg").status == 0)
        let converted = try Imaging.probe(try Data(contentsOf: jpegs.appendingPathComponent("IMG_0001.jpg")))
        #expect(converted.format == .jpeg && converted.uprightWidth == 48 && converted.uprightHeight == 32)
        #expect(converted.exif.dateTimeOriginal == "2024:06:06 10:00:00")
    }

    @Test func anImportOfNothingMakesNoMemoryAndSaysWhatItSkipped() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("Clips")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("a.gif"))
        try Data("GIF87a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("b.gif"))
        try (Data([0, 0, 0, 0x18]) + Data("ftypmp42\u{0}\u{0}\u{0}\u{0}mp42isom".utf8)).write(to: folder.appendingPathComponent("c.mp4"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent(".hidden"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("a.txt"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("b.txt"))
        let result = try box.run("import", folder.path)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("imported no photos; 6 skipped, 0 rejected\n"), "\(result.stdout)")
        #expect(result.stdout.contains("skipped 6: 2 GIF images (GIF is not supported), 2 files that are not images, 1 video (MP4), 1 hidden file; -v or --json lists each file"), "\(result.stdout)")
        #expect(result.stdout.contains("no memory was made"))
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty)
    }
}

@Suite struct ColourExportTests {
    @Test func reencodedExportsKeepTheColourProfileUnlessStripped() throws {
        let box = Sandbox()
        let photo = box.copy(fixtureImages.appendingPathComponent("good/display-p3.jpg"), to: "P3/display-p3.jpg")
        #expect(try box.run("import", photo.deletingLastPathComponent().path, "--title", "P3").status == 0)
        let original = try Imaging.iccProfile(of: Data(contentsOf: photo), format: .jpeg)
        #expect(original != nil)
        for format in ["jpeg", "png"] {
            let out = box.url.appendingPathComponent("out-\(format)")
            #expect(try box.run("export", "P3", out.path, "--format", format, "--html").status == 0)
            let file = out.appendingPathComponent("display-p3.\(format == "png" ? "png" : "jpg")")
            #expect(Imaging.iccProfile(of: try Data(contentsOf: file), format: format == "png" ? .png : .jpeg) == original, "\(format)")
            let thumb = try Data(contentsOf: out.appendingPathComponent("thumbs/display-p3.jpg"))
            #expect(Imaging.iccProfile(of: thumb, format: .jpeg) == nil, "gallery thumbnails are sRGB")
        }
        let stripped = box.url.appendingPathComponent("stripped")
        #expect(try box.run("export", "P3", stripped.path, "--format", "jpeg", "--strip-metadata").status == 0)
        #expect(Imaging.iccProfile(of: try Data(contentsOf: stripped.appendingPathComponent("display-p3.jpg")), format: .jpeg) == nil)
        // A HEIC's and a WebP's profile go into their JPEG copies the same way.
        for (source, format) in [("display-p3.heic", ImageFormat.heic), ("display-p3.webp", .webp)] {
            let file = box.copy(fixtureImages.appendingPathComponent("good/\(source)"), to: "\(source)-folder/\(source)")
            #expect(try box.run("import", file.deletingLastPathComponent().path, "--title", source).status == 0)
            let profile = Imaging.iccProfile(of: try Data(contentsOf: file), format: format)
            #expect(profile != nil && profile == original, "\(source) carries the same profile")
            let out = box.url.appendingPathComponent("out-\(source)")
            #expect(try box.run("export", source, out.path, "--format", "jpeg").status == 0)
            #expect(Imaging.iccProfile(of: try Data(contentsOf: out.appendingPathComponent("display-p3.jpg")), format: .jpeg) == profile, "\(source)")
        }
    }
}
