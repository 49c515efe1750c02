import Foundation
@testable import MemoriesKit
import Testing

/// What a person types, through the built `memories`: versions, typos, short options, missing
/// libraries, titles typed loosely, and the words of the report.
@Suite struct CLISurfaceTests {
    @Test func versionInThreeSpellings() throws {
        let box = Sandbox()
        for spelling in ["--version", "-V", "version"] {
            let result = try box.run(spelling)
            #expect(result.status == 0 && result.stdout == "memories 0.5.0\n", "\(spelling)")
        }
    }

    @Test func typosGetASuggestionAndExit64() throws {
        let box = Sandbox()
        let command = try box.run("imprt", "x")
        #expect(command.status == 64 && command.stderr.contains("unknown command 'imprt'; did you mean 'import'?"))
        let option = try box.run("list", "--jsn")
        #expect(option.status == 64 && option.stderr.contains("unknown option '--jsn' (did you mean '--json'?)"))
        #expect(option.stderr.contains("Usage: memories list"))
        let value = try box.run("import", box.url.path, "--title", "--foo")
        #expect(value.status == 64 && value.stderr.contains("--title needs a value (to give one starting with --, write --title=--foo)"))
        let short = try box.run("import", box.url.path, "-x")
        #expect(short.status == 64 && short.stderr.contains("unknown option '-x' (short options here: -j, -n, -q)"))
    }

    @Test func shortOptionsAndQuiet() throws {
        let box = Sandbox()
        let dry = try box.run("import", fixturePhotos.path, "-n", "-j", "1", "--title", "Rome 2024")
        #expect(dry.status == 0 && dry.stdout.hasPrefix("would import 6 photos into 'Rome 2024' (dry run); "), "\(dry.stdout)")
        #expect(try box.run("import", fixturePhotos.path, "-j1", "-q", "--title", "Rome 2024").stdout.isEmpty)
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.imageCount) == [6])
        #expect(try box.run("gc", "-n", "--json").json(GCJSON.self).dryRun)
    }

    @Test func onlyImportMakesALibraryAndSaysSo() throws {
        let box = Sandbox()
        for args in [["list"], ["show", "x"], ["gc"], ["verify"], ["edit", "x", "--title", "y"], ["delete", "x", "--yes"], ["repair", box.url.path]] {
            let result = try box.run(args)
            #expect(result.status == 1 && result.stderr.contains("there is no library at \(box.library.path)"), "\(args): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: box.library.path), "nothing was created")
        let first = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path)
        #expect(first.status == 0 && first.stderr.contains("created a new library at \(box.library.path)"))
        #expect(try !box.run("import", fixturePhotos.appendingPathComponent("Paris").path).stderr.contains("created"))
        let emptyBox = Sandbox()
        _ = try emptyBox.run("import", emptyBox.url.path, "--title", "nothing")
        let empty = try emptyBox.run("list")
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr.contains("no memories yet: `memories import FOLDER --title T` makes one"))
    }

    @Test func titlesTypedLooselyAndTheReportsWords() throws {
        let box = Sandbox()
        let first = try box.run("import", fixturePhotos.path, "--title", "Rome 2024")
        // Paris holds a copy of a Rome photo under another name.
        #expect(first.stdout.contains("imported 6 photos into 'Rome 2024'") && first.stdout.contains("0 already in this memory, 1 repeated in these folders"), "\(first.stdout)")
        let again = try box.run("import", fixturePhotos.path, "--title", "Rome 2024")
        #expect(again.stdout.contains("imported 0 photos") && again.stdout.contains("7 already in this memory"), "\(again.stdout)")
        #expect(try box.run("show", "  rome 2024 ", "--json").json(ShowJSON.self).title == "Rome 2024")
        let typo = try box.run("show", "Rmoe 2024")
        #expect(typo.status == 1 && typo.stderr.contains("no memory matches 'Rmoe 2024'; did you mean 'Rome 2024'?"), "\(typo.stderr)")
        let json = try box.run("import", fixturePhotos.path, "--title", "Rome 2024", "--json")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["alreadyInMemory"] as? Int == 7 && report?["repeatedInFolders"] as? Int == 0)
    }
}

/// `verify` names the photo and memory of every damaged file and says how to repair; `repair`
/// makes a damaged thumbnail again from its photo.
@Suite struct DamageWordingTests {
    func blob(_ box: Sandbox, _ hex: String) -> URL {
        box.library.appendingPathComponent(".library_SUPPORT/sha256/\(hex.prefix(2))/\(hex)")
    }

    @Test func verifyNamesWhatIsDamagedAndRepairMakesAThumbnailAgain() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        let probe = try box.run("show", "Paris", "--json").json(ShowJSON.self)
        let photo = try #require(probe.images.first { $0.filename == "IMG_0005.jpg" })
        let thumbnailHex = try #require(try thumbnailDigest(box, photo.sha256))
        for (hex, offset) in [(thumbnailHex, 100), (photo.sha256, 200)] {
            let handle = try FileHandle(forWritingTo: blob(box, hex))
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data("xx".utf8))
            try handle.close()
        }
        let verify = try box.run("verify")
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("corrupt: \(thumbnailHex) (the thumbnail of IMG_0005.jpg in 'Paris')"), "\(verify.stdout)")
        #expect(verify.stdout.contains("corrupt: \(photo.sha256) (the photo IMG_0005.jpg in 'Paris')"))
        #expect(verify.stdout.contains("to repair: `memories repair FOLDER...`"))
        // The photo comes back from the folder; then its thumbnail is made again from it.
        let repair = try box.run("repair", fixturePhotos.appendingPathComponent("Paris").path)
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        #expect(repair.stdout.contains("restored \(thumbnailHex.prefix(12)) from the photo IMG_0005.jpg in 'Paris' (thumbnail made again)"), "\(repair.stdout)")
        #expect(!repair.stderr.contains("could not be loaded"), "the damaged thumbnail is not read to be replaced: \(repair.stderr)")
        #expect(try box.run("verify").status == 0)
    }

    func thumbnailDigest(_ box: Sandbox, _ original: String) throws -> String? {
        let lib = try Library(directory: box.library, readOnly: true)
        return try lib.context.query(#"SELECT "thumbnailData" FROM "MemoryImage" WHERE "sha256" = ?"#, [.text(original)]).first?.first?.stringValue
    }
}
