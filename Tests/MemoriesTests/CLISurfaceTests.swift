import Foundation
import BlobStore
@testable import MemoriesKit
import Testing

/// What a person types, through the built `memories`: versions, typos, short options, missing
/// libraries, titles typed loosely, and the words of the report.
@Suite struct CLISurfaceTests {
    @Test func versionInThreeSpellings() throws {
        let box = Sandbox()
        for spelling in ["--version", "-V", "version"] {
            let result = try box.run(spelling)
            #expect(result.status == 0 && result.stdout == "memories 0.6.0\n", "\(spelling)")
        }
    }

    /// `--library` before the command: with a folder after it or `=FOLDER`, the last one given
    /// wins; without a folder it is a usage error. The import's re-exec reads the same options
    /// (it must find the command's name behind them to know it is an import).
    @Test func theLibraryBeforeTheCommand() throws {
        let box = Sandbox()
        let other = box.url.appendingPathComponent("other").path
        let stages = ["MEMORIES_IMPORT_STAGES": "1"]
        let imported = try box.run(["--library", "/nonexistent", "--library=\(other)", "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"], environment: stages)
        #expect(imported.status == 0, "\(imported.stderr)")
        if ImportTests.hugePagesAvailable { #expect(imported.stderr.contains("heap: re-executed yes"), "\(imported.stderr)") }
        #expect(try box.run(["--library=/nonexistent", "--library", other, "list"]).stdout.contains("R"))
        for words in [["--library"], ["--library", "--verbose", "list"], ["--library=", "list"], ["list", "--library="], ["--library", "", "import", "x"], ["list", "--library", ""]] {
            let result = try box.run(words)
            #expect(result.status == 64 && result.stderr.contains("--library needs a folder"), "\(words): \(result.stderr)")
        }
    }

    /// A library another process keeps locked is "busy", said in words: no SQLite code, message or
    /// statement (it printed "(5: database is locked in BEGIN IMMEDIATE)"). Waits out the 10 s timeout.
    @Test func aLockedLibraryIsBusyInWords() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R").status == 0)
        let holder = try Library(directory: box.library)
        try holder.context.execute("BEGIN EXCLUSIVE")
        defer { try? holder.context.execute("ROLLBACK") }
        let result = try box.run("edit", "R", "--title", "S")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the library is busy: another process (an import, gc or verify) kept it locked for over 10 seconds"), "\(result.stderr)")
        #expect(!result.stderr.contains("database is locked") && !result.stderr.contains("BEGIN") && !result.stderr.contains("(5"), "\(result.stderr)")
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
        #expect(short.status == 64 && short.stderr.contains("unknown option '-x' (short options here: -h, -j, -n, -q, -v)"))
        // Positional arguments are counted against the command's declaration.
        let missing = try box.run("export", "x")
        #expect(missing.status == 64 && missing.stderr.contains("missing <dest> (or --all to export every memory into <dest>)\nUsage: memories export [<memory>] <dest>"), "\(missing.stderr)")
        let extra = try box.run("show", "a", "b")
        #expect(extra.status == 64 && extra.stderr.contains("too many arguments: b\nUsage: memories show <memory>"), "\(extra.stderr)")
        let none = try box.run("import")
        #expect(none.status == 64 && none.stderr.contains("missing <folder-or-file>\nUsage: memories import <folder-or-file>..."))
        let help = try box.run("help", "imprt")
        #expect(help.status == 64 && help.stderr.contains("no command 'imprt'; did you mean 'import'?") && help.stderr.contains("Usage: memories help"))
        #expect(try box.run("help", "import").stdout.hasPrefix(try box.run("import", "--help").stdout.prefix(40)))
        // -h as an option's value is that value, not a request for help.
        let titled = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "-h")
        #expect(!titled.stdout.contains("Usage: memories import"), "\(titled.stdout)")
        #expect(try box.run("import", "--title", "x", "-h").stdout.contains("Usage: memories import"))
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
        for args in [["list"], ["show", "x"], ["export", "x", box.url.appendingPathComponent("out").path], ["gc"], ["verify"],
                     ["edit", "x", "--title", "y"], ["delete", "x", "--yes"], ["repair", box.url.path]] {
            let result = try box.run(args)
            #expect(result.status == 1, "\(args)")
            #expect(result.stderr == "memories: no library at \(box.library.path) (`memories import` creates one; `--library` or `$MEMORIES_LIBRARY` chooses another)\n",
                    "\(args): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: box.url.appendingPathComponent("out").path), "export made no folder")
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

    @Test func verifyNamesAMissingPhotoAndMemoryToo() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        let photo = try #require(try box.run("show", "Paris", "--json").json(ShowJSON.self).images.first { $0.filename == "IMG_0004.jpg" })
        try FileManager.default.removeItem(at: blob(box, photo.sha256))
        let verify = try box.run("verify")
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("missing: \(photo.sha256) (the photo IMG_0004.jpg in 'Paris')"), "\(verify.stdout)")
        #expect(verify.stdout.contains("to repair: `memories repair FOLDER...`"))
        #expect(try box.run("repair", fixturePhotos.appendingPathComponent("Paris").path).status == 0)
        #expect(try box.run("verify").status == 0)
    }

    func thumbnailDigest(_ box: Sandbox, _ original: String) throws -> String? {
        let lib = try Library(directory: box.library, readOnly: true)
        return try lib.context.query(#"SELECT "thumbnailData" FROM "MemoryImage" WHERE "sha256" = ?"#, [.text(original)]).first?.first?.stringValue
    }
}

/// `-v` names every file, `-q` prints only problems, every JSON object says which version wrote
/// it, and each help page is made from the command's declarations.
@Suite struct VerbosityTests {
    @Test func verboseNamesEverySkippedFileQuietOnlyProblems() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("DCIM")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixturePhotos.appendingPathComponent("Paris"), to: folder.appendingPathComponent("Paris"))
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("a.gif"))
        try Data("hello".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let quietDry = try box.run("import", folder.path, "-n", "-q")
        #expect(quietDry.status == 0 && quietDry.stdout.isEmpty)
        let verbose = try box.run("import", folder.path, "-v", "--title", "Paris")
        #expect(verbose.status == 0)
        #expect(verbose.stdout.contains("skipped \(folder.path)/a.gif: a GIF image (GIF is not supported)"), "\(verbose.stdout)")
        #expect(verbose.stdout.contains("skipped \(folder.path)/notes.txt: "), "\(verbose.stdout)")
        #expect(!verbose.stdout.contains("-v or --json lists each file"))

        let export = try box.run("export", "Paris", box.url.appendingPathComponent("out").path, "-v")
        let names = try FileManager.default.contentsOfDirectory(atPath: box.url.appendingPathComponent("out").path).filter { $0 != "manifest.json" }
        #expect(export.status == 0 && !names.isEmpty)
        for name in names { #expect(export.stdout.contains("wrote \(name) ("), "\(name): \(export.stdout)") }
        #expect(try box.run("export", "Paris", box.url.appendingPathComponent("out2").path, "-q").stdout.isEmpty)

        #expect(try box.run("verify", "-q").stdout.isEmpty, "a healthy library: nothing to say")
        // A stored file no memory uses: gc -v names it as it moves it.
        let orphan = Data("no memory uses this".utf8)
        let hex = SHA256.digest(orphan).hex
        let blob = box.library.appendingPathComponent(".library_SUPPORT/sha256/\(hex.prefix(2))/\(hex)")
        try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
        try orphan.write(to: blob)
        let gc = try box.run("gc", "-v")
        #expect(gc.status == 0 && gc.stdout.hasPrefix("moved to the trash: \(hex)\n"), "\(gc.stdout)")
        #expect(FileManager.default.fileExists(atPath: box.library.appendingPathComponent(".library_SUPPORT/trash/\(hex)").path))
    }

    @Test func jsonObjectsSayWhichVersionWroteThem() throws {
        let box = Sandbox()
        let version = try box.run("--version").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.hasPrefix("memories ") && version.split(separator: ".").count == 3)
        func generator(_ args: String...) throws -> String? {
            let object = try JSONSerialization.jsonObject(with: Data(try box.run(args).stdout.utf8)) as? [String: Any]
            return object?["generator"] as? String
        }
        #expect(try generator("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris", "--json") == version)
        #expect(try generator("show", "Paris", "--json") == version)
        #expect(try generator("verify", "--json") == version)
        #expect(try generator("gc", "-n", "--json") == version)
        #expect(try generator("export", "Paris", box.url.appendingPathComponent("out").path, "--json") == version)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: box.url.appendingPathComponent("out/manifest.json"))) as? [String: Any]
        #expect(manifest?["generator"] as? String == version)
        #expect(try JSONSerialization.jsonObject(with: Data(box.run("list", "--json").stdout.utf8)) is [Any], "list stays an array")
    }

    @Test func helpPagesAreMadeFromTheDeclarations() throws {
        let box = Sandbox()
        let help = try box.run("export", "--help").stdout
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "Export a memory's photos into a folder.")
        #expect(help.contains("Usage: memories export [<memory>] <dest> [--format F] [--max-size PX] [--quality Q]\n       [--strip-metadata] [--html] [--all] [-q|--quiet] [-v|--verbose] [--json]\n"), "\(help)")
        // Every option line has its help in one column, and no line is wider than the page.
        let options = lines.drop { $0 != "Options:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(options.count >= 9)
        for command in ["import", "list", "show", "edit", "remove", "move", "merge", "split", "export", "delete", "completion", "gc", "verify", "repair"] {
            for line in try box.run(command, "--help").stdout.split(separator: "\n") { #expect(line.count <= 100, "\(command): \(line)") }
        }
        #expect(options.contains { $0.hasPrefix("  -v, --verbose ") })
        #expect(options.contains { $0.hasPrefix("  -h, --help ") })
        let column = options.first!.range(of: "original (default)")!.lowerBound.utf16Offset(in: options.first!)
        for line in options where line.hasPrefix("  --") && line.count > column {
            #expect(line[line.index(line.startIndex, offsetBy: column - 1)] == " ", "\(line)")
        }
    }
}
