import Foundation
import Testing

/// The command line under attack ("Never lose a photo"): options taken from other options'
/// values, impossible dates, and terminal escape sequences in names and titles.
@Suite struct CommandLineSafetyTests {
    let photo = fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg").path

    func expectUsageError(_ result: Sandbox.Result, _ message: String, usage command: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 64, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("Usage: memories \(command)"), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: Options and their values

    @Test func libraryIsNeverTakenFromAnotherOptionsValue() throws {
        let box = Sandbox()
        let other = box.url.appendingPathComponent("other")
        let result = try box.run("import", photo, "--title", "--library", other.path, "--notes", "n")
        expectUsageError(result, "--title needs a value", usage: "import")
        #expect(!FileManager.default.fileExists(atPath: other.path), "no library was opened at \(other.path)")
        // After the command name, --library is an option like the others.
        let after = try box.run("import", photo, "--title", "T", "--library", other.path)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(FileManager.default.fileExists(atPath: other.appendingPathComponent("library.store").path))
        #expect(try box.run(["--library", other.path, "list", "--json"]).json([ListJSON].self).map(\.title) == ["T"])
    }

    @Test func anOptionFollowedByAnotherOptionIsMissingItsValue() throws {
        let box = Sandbox()
        expectUsageError(try box.run("import", photo, "--title", "--json"), "--title needs a value (to give one starting with --, write --title=--json)", usage: "import")
        expectUsageError(try box.run("import", photo, "--notes", "--dry-run"), "--notes needs a value", usage: "import")
        expectUsageError(try box.run("import", photo, "--title", "--"), "--title needs a value", usage: "import")
        expectUsageError(try box.run("list", "--search", "--since=2024-01-01"), "--search needs a value", usage: "list")
        #expect(try box.run("list", "--json").stderr.contains("no library at"), "nothing was imported")
        expectUsageError(try box.run("import", photo, "--notes", "--- draft"), "--notes needs a value (to give one starting with --, write --notes=--- draft)", usage: "import")
        // Given with "=", such a value is taken.
        #expect(try box.run("import", photo, "--title=--json", "--notes=--- draft").status == 0)
        let detail = try box.run("show", "--json", "--", "--json").json(ShowJSON.self)
        #expect(detail.title == "--json" && detail.notes == "--- draft")
    }

    /// A memory is found by its title: an empty one (or only spaces) could only be reached by id.
    @Test func anEmptyTitleIsAUsageError() throws {
        let box = Sandbox()
        #expect(try box.run("import", photo, "--title", "R").status == 0)
        expectUsageError(try box.run("edit", "R", "--title", ""), "--title cannot be empty", usage: "edit")
        expectUsageError(try box.run("edit", "R", "--title", "  \t"), "--title cannot be empty", usage: "edit")
        expectUsageError(try box.run("import", photo, "--title", ""), "--title cannot be empty", usage: "import")
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.title) == ["R"])
    }

    // MARK: Dates

    @Test func datesOutsideYears1To9999OrUnparsableAreUsageErrors() throws {
        let box = Sandbox()
        #expect(try box.run("import", photo, "--title", "R").status == 0)
        expectUsageError(try box.run("edit", "R", "--date", "99999-01-01"), "'99999-01-01' is not a date", usage: "edit")
        expectUsageError(try box.run("edit", "R", "--date", "0000-12-31"), "'0000-12-31' is not a date", usage: "edit")
        expectUsageError(try box.run("edit", "R", "--date", "2024-02-30"), "'2024-02-30' is not a date", usage: "edit")
        expectUsageError(try box.run("import", photo, "--title", "S", "--date", "10000-01-01T00:00:00Z"), "is not a date", usage: "import")
        expectUsageError(try box.run("list", "--since", "yesterday"), "--since: 'yesterday' is not a date", usage: "list")
        expectUsageError(try box.run("list", "--until", "-2024-01-01"), "is not a date", usage: "list")
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.title) == ["R"], "S was not imported")
        #expect(try box.run("show", "R", "--json").json(ShowJSON.self).date == "2024-06-11T11:30:00Z", "R's date is unchanged")
        // The ends of the range are dates.
        #expect(try box.run("edit", "R", "--date", "9999-12-31").status == 0)
        #expect(try box.run("show", "R", "--json").json(ShowJSON.self).date == "9999-12-31T00:00:00Z")
        #expect(try box.run("edit", "R", "--date", "0001-01-01T12:00:00Z").status == 0)
        #expect(try box.run("show", "R", "--json").json(ShowJSON.self).date == "0001-01-01T12:00:00Z")
    }

    // MARK: Terminal safety

    @Test func controlCharactersInTitlesAndNamesAreEscapedForPeopleAndRawInJSON() throws {
        let box = Sandbox()
        let title = "evil\u{1b}]0;pwned\u{07}"
        let name = "red\u{1b}[31m\u{9b}2J\u{7f}.jpg"
        let folder = box.url.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: folder.appendingPathComponent(name).path)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("bad\u{1b}[2J\ttab.jpg"))
        let imported = try box.run("import", folder.path, "--title", title)
        #expect(imported.status == 2, "one rejected: \(imported.stderr)")
        let safeTitle = #"evil\e]0;pwned\u{7}"#
        let safeName = #"red\e[31m\u{9b}2J\u{7f}.jpg"#
        #expect(imported.stderr.contains(#"rejected \#(folder.path)/bad\e[2J\ttab.jpg: "#), "\(imported.stderr)")
        #expect(imported.stdout.contains("into '\(safeTitle)'"), "\(imported.stdout)")
        let list = try box.run("list")
        #expect(list.stdout.hasSuffix("  \(safeTitle)\n"), "\(list.stdout.debugDescription)")
        let show = try box.run("show", title)
        #expect(show.stdout.hasPrefix(safeTitle + "\n") && show.stdout.contains("  \(safeName)\n"), "\(show.stdout.debugDescription)")
        let missing = try box.run("show", "no\u{1b}[2Jsuch\nline")
        #expect(missing.status == 1 && missing.stderr.contains(#"no\e[2Jsuch"#), "\(missing.stderr.debugDescription)")
        for output in [imported.stdout, imported.stderr, list.stdout, show.stdout, missing.stderr] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x7F || $0 == "\t" },
                    "a raw control character reached the terminal: \(output.debugDescription)")
        }
        // JSON stays raw (and valid).
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.title) == [title])
        #expect(try box.run("show", title, "--json").json(ShowJSON.self).images.map(\.filename) == [name])
    }
}
