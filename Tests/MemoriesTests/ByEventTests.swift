import Foundation
import Testing

/// `import ROLL --by-event` (issue 34): a flat camera roll becomes a memory per event, split by
/// gaps in capture time and titled by its dates; syncing the roll again puts new photos into the
/// right event, never merges two, and keeps what the user curated.
@Suite struct ByEventTests {
    /// What `import --by-event --json` prints.
    struct EventsJSON: Decodable {
        struct Event: Decodable { var new: Bool; var title: String; var retitledFrom: String?; var report: SyncJSON }
        var events: [Event]
        var unread: SyncJSON
        var undated: Int
    }

    /// A copy of a fixture photo taken at `time` ("2024:06:10 09:00:00"): its EXIF
    /// DateTimeOriginal (and DateTime) rewritten in place, so each time gives other bytes.
    @discardableResult
    func photo(_ box: Sandbox, _ name: String, at time: String) throws -> URL {
        var bytes = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
        let old = Data("2024:06:11 11:30:00".utf8), new = Data(time.utf8)
        precondition(new.count == old.count)
        var found = 0
        while let range = bytes.range(of: old) {
            bytes.replaceSubrange(range, with: new)
            found += 1
        }
        precondition(found > 0)
        let url = box.url.appendingPathComponent("Roll/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
        return url
    }

    func list(_ box: Sandbox) throws -> [String] {
        try box.run("list", "--json").json([ListJSON].self).map { "\($0.title): \($0.imageCount)" }.sorted()
    }

    func sync(_ box: Sandbox, _ extra: String...) throws -> (status: Int32, report: EventsJSON) {
        let result = try box.run(["import", box.url.appendingPathComponent("Roll").path, "--by-event", "--json"] + extra)
        return (result.status, try result.json(EventsJSON.self))
    }

    /// A trip of three days (nights between), a day out a week later, a photo in July: three
    /// events, titled by their dates; a note beside them is skipped, as an import skips it.
    func makeRoll(_ box: Sandbox) throws {
        try photo(box, "IMG_0001.jpg", at: "2024:06:10 09:00:00")
        try photo(box, "IMG_0002.jpg", at: "2024:06:10 21:40:00")
        try photo(box, "IMG_0003.jpg", at: "2024:06:11 10:15:00")
        try photo(box, "IMG_0004.jpg", at: "2024:06:12 08:30:00")
        try photo(box, "IMG_0010.jpg", at: "2024:06:18 12:00:00")
        try photo(box, "IMG_0011.jpg", at: "2024:06:18 12:05:00")
        try photo(box, "IMG_0020.jpg", at: "2024:07:01 08:00:00")
        try Data("shopping list".utf8).write(to: box.url.appendingPathComponent("Roll/notes.txt"))
        ResyncTests.settle(box.url.appendingPathComponent("Roll"))
    }

    @Test func aRollBecomesAMemoryPerEventAndASyncFindsNothingNew() throws {
        let box = Sandbox()
        try makeRoll(box)
        let dry = try sync(box, "-n")
        #expect(dry.report.events.map(\.title) == ["10-12 Jun 2024", "18 Jun 2024", "1 Jul 2024"])
        #expect(dry.report.events.map(\.report.imported) == [4, 2, 1] && dry.report.events.allSatisfy(\.new))
        #expect(!FileManager.default.fileExists(atPath: box.library.path), "a dry run made a library")

        let first = try sync(box)
        #expect(first.status == 0)
        #expect(first.report.events.map(\.title) == dry.report.events.map(\.title))
        #expect(first.report.events.map(\.report.imported) == [4, 2, 1])
        #expect(first.report.events.map(\.report.skipped).reduce(0, +) == 1, "the note is skipped once")
        #expect(try list(box) == ["1 Jul 2024: 1", "10-12 Jun 2024: 4", "18 Jun 2024: 2"])
        #expect(try box.sql("SELECT count(*) FROM source_event") == "3")
        // Each memory is dated by its first photo.
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.date).sorted().first?.hasPrefix("2024-06-10") == true)

        // Again: nothing is read, no event changes.
        let again = try sync(box)
        #expect(again.report.events.isEmpty)
        #expect(again.report.unread.unchanged == 8 && again.report.unread.skipped == 1)
        let text = try box.run("import", box.url.appendingPathComponent("Roll").path, "--by-event")
        #expect(text.stdout.contains("no event changed; 8 unchanged (not read)"), "\(text.stdout)")
        #expect(try list(box) == ["1 Jul 2024: 1", "10-12 Jun 2024: 4", "18 Jun 2024: 2"])
    }

    @Test func newPhotosJoinTheirEventAndNeverMergeTwo() throws {
        let box = Sandbox()
        try makeRoll(box)
        _ = try sync(box)
        #expect(try box.run("edit", "18 Jun 2024", "--title", "Zoo").status == 0)
        // A run of photos every 20 hours from the trip to the zoo, and the zoo's evening: each
        // joins the nearer event (the two are not merged), and a photo in late July is an event.
        try photo(box, "IMG_0005.jpg", at: "2024:06:13 04:30:00")
        try photo(box, "IMG_0006.jpg", at: "2024:06:14 00:30:00")
        try photo(box, "IMG_0007.jpg", at: "2024:06:14 20:30:00")
        try photo(box, "IMG_0008.jpg", at: "2024:06:15 16:30:00")
        try photo(box, "IMG_0009.jpg", at: "2024:06:16 12:30:00")
        try photo(box, "IMG_0013.jpg", at: "2024:06:17 08:30:00")
        try photo(box, "IMG_0014.jpg", at: "2024:06:18 04:30:00")
        try photo(box, "IMG_0012.jpg", at: "2024:06:18 22:00:00")
        try photo(box, "IMG_0030.jpg", at: "2024:07:25 10:00:00")
        let second = try sync(box)
        #expect(second.status == 0)
        let byTitle = Dictionary(uniqueKeysWithValues: second.report.events.map { ($0.title, $0) })
        #expect(byTitle["10-14 Jun 2024"]?.report.imported == 3 && byTitle["10-14 Jun 2024"]?.retitledFrom == "10-12 Jun 2024")
        // Renamed by its user: it keeps the name.
        #expect(byTitle["Zoo"]?.report.imported == 5 && byTitle["Zoo"]?.retitledFrom == nil)
        #expect(byTitle["25 Jul 2024"]?.new == true && byTitle["25 Jul 2024"]?.report.imported == 1)
        #expect(second.report.unread.unchanged == 8)
        #expect(try list(box) == ["1 Jul 2024: 1", "10-14 Jun 2024: 7", "25 Jul 2024: 1", "Zoo: 7"])
    }

    @Test func curationOfEventsLasts() throws {
        let box = Sandbox()
        try makeRoll(box)
        _ = try sync(box)
        #expect(try box.run("remove", "10-12 Jun 2024", "IMG_0002.jpg").status == 0)
        #expect(try box.run("move", "10-12 Jun 2024", "IMG_0003.jpg", "--to", "1 Jul 2024").status == 0)
        #expect(try box.run("merge", "18 Jun 2024", "--into", "1 Jul 2024").status == 0)
        // Touched files are read again, and still go nowhere new.
        let now = Date()
        for name in ["IMG_0002.jpg", "IMG_0003.jpg", "IMG_0010.jpg"] {
            try FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: box.url.appendingPathComponent("Roll/" + name).path)
        }
        let after = try sync(box)
        #expect(after.report.events.map(\.report.imported).reduce(0, +) == 0, "\(after.report.events)")
        #expect(after.report.events.map(\.report.removedEarlier).reduce(0, +) + after.report.unread.removedEarlier == 1)
        #expect(try list(box) == ["1 Jul 2024: 4", "10-12 Jun 2024: 2"])
        // Asked for, the removed ones come back.
        let back = try sync(box, "--include-removed")
        #expect(back.report.events.map(\.report.imported).reduce(0, +) == 1)
        #expect(try list(box) == ["1 Jul 2024: 4", "10-12 Jun 2024: 3"])
    }

    @Test func aPhotoWithoutACaptureTimeGoesByItsFilesTime() throws {
        let box = Sandbox()
        try makeRoll(box)
        let png = box.copy(fixtureImages.appendingPathComponent("good/grey8.png"), to: "Roll/Screenshot.png")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let july = calendar.date(from: DateComponents(year: 2024, month: 7, day: 1, hour: 20))!
        try FileManager.default.setAttributes([.modificationDate: july], ofItemAtPath: png.path)
        let first = try sync(box)
        #expect(first.report.undated == 1)
        #expect(try list(box) == ["1 Jul 2024: 2", "10-12 Jun 2024: 4", "18 Jun 2024: 2"])
    }

    @Test func twoSyncsOfOneRollAtOnceMakeEachEventOnce() throws {
        let box = Sandbox()
        try makeRoll(box)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path).status == 0)  // the library exists
        let roll = box.url.appendingPathComponent("Roll").path
        let runs = (0..<2).map { _ in box.start(["--library", box.library.path, "import", roll, "--by-event", "-q"]) }
        for run in runs {
            _ = run.out.fileHandleForReading.readDataToEndOfFile()
            _ = run.err.fileHandleForReading.readDataToEndOfFile()
            run.process.waitUntilExit()
            #expect(run.process.terminationStatus == 0)
        }
        #expect(try list(box) == ["1 Jul 2024: 1", "10-12 Jun 2024: 4", "18 Jun 2024: 2", "Paris: 3"])
        #expect(try sync(box).report.events.isEmpty)
    }

    /// Found by an outside attack: two events of one day are two memories (the second titled
    /// apart), not one.
    @Test func twoEventsOfOneDayAreTwoMemories() throws {
        let box = Sandbox()
        try photo(box, "m1.jpg", at: "2024:06:10 08:00:00")
        try photo(box, "e1.jpg", at: "2024:06:10 20:00:00")
        let first = try sync(box, "--gap", "2h")
        #expect(first.report.events.map(\.title) == ["10 Jun 2024", "10 Jun 2024 (2)"])
        #expect(try list(box) == ["10 Jun 2024 (2): 1", "10 Jun 2024: 1"])
    }

    /// Found by an outside attack: a roll moved (or mounted elsewhere), a subfolder of it, or a
    /// renamed file is recognised by its photos' digests: nothing is imported twice, removed
    /// photos stay out, and the events follow the roll to its new path.
    @Test func aMovedRollARenamedFileAndASubfolderImportNothingTwice() throws {
        let box = Sandbox()
        try makeRoll(box)
        try FileManager.default.createDirectory(at: box.url.appendingPathComponent("Roll/101APPLE"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: box.url.appendingPathComponent("Roll/IMG_0020.jpg"),
                                         to: box.url.appendingPathComponent("Roll/101APPLE/IMG_0020.jpg"))
        _ = try sync(box)
        #expect(try box.run("remove", "10-12 Jun 2024", "IMG_0002.jpg").status == 0)
        #expect(try box.run("split", "18 Jun 2024", "IMG_0011.jpg", "--title", "Split off").status == 0)
        // Renamed in place, then the roll moved.
        for name in ["IMG_0002.jpg", "IMG_0011.jpg"] {
            try FileManager.default.moveItem(at: box.url.appendingPathComponent("Roll/" + name),
                                             to: box.url.appendingPathComponent("Roll/renamed-" + name))
        }
        let renamed = try sync(box)
        #expect(renamed.report.events.map(\.report.imported).reduce(0, +) == 0, "\(renamed.report.events)")
        try FileManager.default.moveItem(at: box.url.appendingPathComponent("Roll"), to: box.url.appendingPathComponent("Moved"))
        let moved = try box.run("import", box.url.appendingPathComponent("Moved").path, "--by-event", "--json").json(EventsJSON.self)
        #expect(moved.events.allSatisfy { !$0.new && $0.report.imported == 0 }, "\(moved.events)")
        let sub = try box.run("import", box.url.appendingPathComponent("Moved/101APPLE").path, "--by-event", "--json").json(EventsJSON.self)
        #expect(sub.events.allSatisfy { !$0.new && $0.report.imported == 0 }, "\(sub.events)")
        #expect(try list(box) == ["1 Jul 2024: 1", "10-12 Jun 2024: 3", "18 Jun 2024: 1", "Split off: 1"])
        // The moved roll's events are its own now: a new photo there joins the right one.
        try photo(box, "../Moved/IMG_0099.jpg", at: "2024:07:01 09:00:00")
        let grown = try box.run("import", box.url.appendingPathComponent("Moved").path, "--by-event", "--json").json(EventsJSON.self)
        #expect(grown.events.filter { $0.report.imported > 0 }.map(\.title) == ["1 Jul 2024"] && grown.events.allSatisfy { !$0.new })
    }

    /// Found by an outside attack: copies of one photo without a capture time, whose files have
    /// different times, go into one event (not one each), and an event of such photos is dated
    /// by their files' time, not by the day it was imported.
    @Test func copiesOfOneUndatedPhotoGoTogether() throws {
        let box = Sandbox()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for (name, month) in [("a.png", 3), ("b.png", 5)] {
            let copy = box.copy(fixtureImages.appendingPathComponent("good/grey8.png"), to: "Roll/" + name)
            try FileManager.default.setAttributes([.modificationDate: calendar.date(from: DateComponents(year: 2024, month: month, day: 1, hour: 12))!],
                                                  ofItemAtPath: copy.path)
        }
        let first = try sync(box)
        #expect(first.report.events.map(\.title) == ["1 Mar 2024"] && first.report.events[0].report.imported == 1)
        #expect(first.report.events[0].report.repeatedInFolders == 1)
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.date).first?.hasPrefix("2024-03-01") == true)
    }

    /// A roll of files that are not photos makes no event, and says what it skipped.
    @Test func aRollWithoutPhotosMakesNoEvent() throws {
        let box = Sandbox()
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/notes.txt"), to: "Roll/notes.txt")
        let result = try sync(box)
        #expect(result.report.events.isEmpty && result.report.unread.skipped == 1)
        #expect(try list(box).isEmpty)
    }

    @Test func usageMistakesAreRefusedInWords() throws {
        let box = Sandbox()
        try makeRoll(box)
        let roll = box.url.appendingPathComponent("Roll").path
        for (args, words) in [(["--by-event", "--title", "X"], "not with --title"), (["--gap", "2d"], "--gap is --by-event's"),
                              (["--by-event", "--gap", "soon"], "--gap must be a duration"), (["--by-event", "--gap", "0h"], "--gap must be a duration"),
                              (["--by-event", "--by-folder"], "not with --title, --into or --by-folder")] {
            let result = try box.run(["import", roll] + args)
            #expect(result.status == 64 && result.stderr.contains(words), "\(args): \(result.stderr)")
        }
        // A gap of two weeks makes the roll one event.
        #expect(try sync(box, "--gap", "14d").report.events.map(\.title) == ["10 Jun - 1 Jul 2024"])
    }
}
