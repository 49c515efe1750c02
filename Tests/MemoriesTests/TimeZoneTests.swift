import Foundation
import Testing

/// Capture times keep their offset; what people see and type is in their own zone (`TZ`).
@Suite struct TimeZoneTests {
    func imported(_ box: Sandbox) throws -> URL {
        let folder = box.url.appendingPathComponent("Night")
        for name in ["date-zurich-night.jpg", "date-xmp-only.jpg", "date-xmp-only.png"] {
            _ = box.copy(fixtureImages.appendingPathComponent("good/\(name)"), to: "Night/\(name)")
        }
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: folder.appendingPathComponent("date-xmp-only.jpg").path)
        #expect(try box.run("import", folder.path, "--title", "Night").status == 0)
        return folder
    }

    /// The titles `list OPTION DAY --json` gives under `TZ=zone`.
    func titles(_ box: Sandbox, _ option: String, _ day: String, _ zone: String) throws -> [String] {
        try box.run("list", option, day, "--json", environment: ["TZ": zone]).json([ListJSON].self).map(\.title)
    }

    @Test func capturesKeepTheirOffsetAndTheFileTimeIsRecordedBeside() throws {
        let box = Sandbox()
        _ = try imported(box)
        let show = try box.run("show", "Night", "--json").json(ShowJSON.self)
        let byName = Dictionary(uniqueKeysWithValues: show.images.map { ($0.filename, $0) })
        #expect(byName["date-zurich-night.jpg"]?.takenAt == "2024-06-13T00:30:00+02:00")
        #expect(byName["date-xmp-only.jpg"]?.takenAt == "2024-06-13T23:30:00+02:00", "from XMP")
        #expect(byName["date-xmp-only.png"]?.takenAt == "2024-06-14T08:15:00-07:00", "from the PNG's XMP")
        #expect(byName["date-xmp-only.jpg"]?.fileModifiedAt == "2023-11-14T22:13:20Z")
        #expect(show.date == "2024-06-12T22:30:00Z", "the memory's date is its earliest capture")
    }

    @Test func datesShowAndFilterInTheUsersZone() throws {
        let box = Sandbox()
        _ = try imported(box)
        func since(_ day: String, _ zone: String) throws -> [String] { try titles(box, "--since", day, zone) }
        // The memory began at 00:30 on the 13th in Zurich, 22:30 on the 12th in UTC, 15:30 on the 12th in LA.
        #expect(try since("2024-06-13", "Europe/Zurich") == ["Night"])
        #expect(try since("2024-06-13", "UTC") == [])
        #expect(try since("2024-06-12", "America/Los_Angeles") == ["Night"])
        #expect(try since("2024-06-13", "America/Los_Angeles") == [])
        #expect(try since("2024-06-12T23:00:00Z", "Europe/Zurich") == [], "an offset given wins")
        let zurich = try box.run("show", "Night", environment: ["TZ": "Europe/Zurich"]).stdout
        #expect(zurich.hasPrefix("Night\n2024-06-13  id"))
        #expect(zurich.contains("2024-06-13 00:30 ") && zurich.contains("times in Europe/Zurich"), "\(zurich)")
        let losAngeles = try box.run("show", "Night", environment: ["TZ": "America/Los_Angeles"]).stdout
        #expect(losAngeles.hasPrefix("Night\n2024-06-12  id"))
        #expect(losAngeles.contains("2024-06-12 15:30 ") && losAngeles.contains("2024-06-14 08:15 "), "\(losAngeles)")
        #expect(try box.run("list", environment: ["TZ": "Europe/Zurich"]).stdout.hasPrefix("2024-06-13"))
        #expect(try box.run("list", "--json", environment: ["TZ": "Europe/Zurich"]).json([ListJSON].self).first?.date == "2024-06-13T00:30:00+02:00")
    }

    /// A camera that records no zone gives its clock's reading (03:00 on the 11th). The memory's
    /// day is that reading where the user imports it: stored as UTC, a New York user saw the memory
    /// dated the 10th above a photo line of the 11th, and `--since` the 11th missed it.
    @Test func aCameraClockReadingDatesTheMemoryInTheUsersZone() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("Dawn")
        _ = box.copy(fixtureImages.appendingPathComponent("good/date-camera-clock.jpg"), to: "Dawn/dawn.jpg")
        let newYork = ["TZ": "America/New_York"]
        #expect(try box.run("import", folder.path, "--title", "Dawn", environment: newYork).status == 0)
        let show = try box.run("show", "Dawn", environment: newYork).stdout
        #expect(show.contains("2024-06-11") && !show.contains("2024-06-10"), "\(show)")
        #expect(try box.run("show", "Dawn", "--json").json(ShowJSON.self).date == "2024-06-11T07:00:00Z", "03:00 in New York (EDT)")
        #expect(try titles(box, "--since", "2024-06-11", "America/New_York") == ["Dawn"])
        #expect(try titles(box, "--until", "2024-06-11", "America/New_York") == [])
        // The photo keeps the reading as written.
        #expect(try box.run("show", "Dawn", "--json").json(ShowJSON.self).images.first?.takenAt?.hasPrefix("2024-06-11T03:00:00") == true)
    }

    @Test func untilAndEditDateAreReadInTheUsersZoneAndUndatedPhotosShowTheirFileTime() throws {
        let box = Sandbox()
        let folder = try imported(box)
        func until(_ day: String, _ zone: String) throws -> [String] { try titles(box, "--until", day, zone) }
        // --until D: dated before D's midnight. 00:30 on the 13th in Zurich is before the 14th there,
        // not before the 13th; 15:30 on the 12th in LA is before the 13th there.
        #expect(try until("2024-06-14", "Europe/Zurich") == ["Night"])
        #expect(try until("2024-06-13", "Europe/Zurich") == [])
        #expect(try until("2024-06-13", "America/Los_Angeles") == ["Night"])
        #expect(try until("2024-06-12", "America/Los_Angeles") == [])
        // edit --date: a day is midnight where the user is.
        #expect(try box.run("edit", "Night", "--date", "2024-07-01", environment: ["TZ": "Europe/Zurich"]).status == 0)
        #expect(try box.run("show", "Night", "--json").json(ShowJSON.self).date == "2024-06-30T22:00:00Z")
        #expect(try box.run("list", environment: ["TZ": "Europe/Zurich"]).stdout.hasPrefix("2024-07-01"))
        #expect(try box.run("list", environment: ["TZ": "America/Los_Angeles"]).stdout.hasPrefix("2024-06-30"))
        // A photo that says no time: its file's time is shown, marked, and never taken as the capture.
        let undated = box.copy(fixtureImages.appendingPathComponent("good/rgba.png"), to: "Night/undated.png")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: undated.path)
        #expect(try box.run("import", folder.path, "--into", "Night").status == 0)
        let show = try box.run("show", "Night", environment: ["TZ": "Europe/Zurich"]).stdout
        let line = try #require(show.split(separator: "\n").first { $0.hasSuffix("undated.png") })
        #expect(line.contains("2023-11-14 23:13f"), "\(show)")
        #expect(show.contains("(f the file's time: the photo does not say when it was taken)"))
        let json = try box.run("show", "Night", "--json").json(ShowJSON.self).images.first { $0.filename == "undated.png" }
        #expect(json?.takenAt == nil && json?.fileModifiedAt == "2023-11-14T22:13:20Z")
    }

    @Test func xmpDatesAreReadFromHEICAndWebPAndPhotoshopsField() throws {
        let box = Sandbox()
        for name in ["date-xmp-only.webp", "date-xmp-only.heic", "date-photoshop.jpg"] {
            _ = box.copy(fixtureImages.appendingPathComponent("good/\(name)"), to: "XMP/\(name)")
        }
        #expect(try box.run("import", box.url.appendingPathComponent("XMP").path, "--title", "XMP").status == 0)
        let images = try box.run("show", "XMP", "--json").json(ShowJSON.self).images
        let byName = Dictionary(uniqueKeysWithValues: images.map { ($0.filename, $0.takenAt) })
        #expect(byName["date-xmp-only.webp"] == "2024-06-13T23:30:00+02:00", "the WebP's XMP chunk")
        #expect(byName["date-xmp-only.heic"] == "2024-06-13T23:30:00+02:00", "the HEIC's XMP item")
        #expect(byName["date-photoshop.jpg"] == "2023-03-04T05:06:07-05:00", "photoshop:DateCreated")
    }

    /// A file's capture time past the year 9999 once its offset is applied (EXIF 9999-12-31
    /// 23:59:59 at -12:00 is 10000-01-01 in UTC), as the command line refuses it, is not used and
    /// is named in the report: the memory sorted first for ever and `list` printed a five-digit year.
    @Test func captureTimesPastTheYear9999AreNotUsedAndAreNamed() throws {
        let box = Sandbox()
        func patched(_ fixture: String, _ replacements: [(String, String)], as name: String) throws {
            var bytes = try Data(contentsOf: fixtureImages.appendingPathComponent("good/\(fixture)"))
            for (old, new) in replacements {
                let range = try #require(bytes.range(of: Data(old.utf8)))
                bytes.replaceSubrange(range, with: Data(new.utf8))
            }
            try FileManager.default.createDirectory(at: box.url.appendingPathComponent("Far"), withIntermediateDirectories: true)
            try bytes.write(to: box.url.appendingPathComponent("Far/\(name)"))
        }
        try patched("date-zurich-night.jpg", [("2024:06:13 00:30:00", "9999:12:31 23:59:59"), ("+02:00", "-12:00")], as: "exif.jpg")
        try patched("date-xmp-only.jpg", [("2024-06-13T23:30:00+02:00", "9999-12-31T23:30:00-12:00")], as: "xmp.jpg")
        let folder = box.url.appendingPathComponent("Far")
        let imported = try box.run("import", folder.path, "--title", "Far")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("\(folder.path)/exif.jpg: its capture time EXIF 9999:12:31 23:59:59 -12:00 is outside the years 1-9999 and was not used; it has no other capture time"), "\(imported.stderr)")
        #expect(imported.stderr.contains("\(folder.path)/xmp.jpg: its capture time XMP 9999-12-31T23:30:00-12:00 is outside the years 1-9999 and was not used; it has no other capture time"), "\(imported.stderr)")
        let json = try box.run("import", folder.path, "--title", "Far", "--json", "--dry-run")
        #expect(json.stdout.contains("\"unusableDates\""), "\(json.stdout)")
        let show = try box.run("show", "Far", "--json").json(ShowJSON.self)
        #expect(show.images.allSatisfy { $0.takenAt == nil }, "\(show.images.map(\.takenAt))")
        #expect(show.date.hasPrefix("2") && show.date.count == 20, "dated by the import, not the year 10000: \(show.date)")
        let list = try box.run("list")
        #expect(!list.stdout.contains("10000") && !list.stdout.contains("9999"), "\(list.stdout)")
    }
}
