import Foundation
import Testing

/// Curation lasts (issue 34): a photo removed from a memory stays out of it through every later
/// import of any folder (unchanged, renamed, in a dry run), until `--include-removed` brings it
/// back; `remove` takes many photos and patterns, all or none.
@Suite struct CurationTests {
    struct Report: Decodable {
        var imported: Int
        var removedEarlier: Int
        var unchanged: Int
    }

    @Test func removedPhotosStayRemovedUntilAskedFor() throws {
        let box = Sandbox()
        for (source, name) in [("Rome/IMG_0001.jpg", "IMG_0001.jpg"), ("Rome/IMG_0002.jpg", "IMG_0002.jpg"), ("Rome/day 2/IMG_0003.jpg", "IMG_0003.jpg"),
                               ("Paris/IMG_0004.jpg", "IMG_0004.jpg"), ("Rome/IMG_0006.jpg", "IMG_0006.jpg")] {
            _ = box.copy(fixturePhotos.appendingPathComponent(source), to: "Roll/\(name)")
        }
        let roll = box.url.appendingPathComponent("Roll")
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        let removal = try box.run("remove", "Roll", "IMG_0002.jpg", "IMG_000[34].jpg")
        #expect(removal.status == 0 && removal.stdout == "removed 3 photos from 'Roll'\n", "\(removal.stdout) \(removal.stderr)")
        func names(_ title: String) throws -> [String] {
            try box.run("show", title, "--json").json(ShowJSON.self).images.map(\.filename).sorted()
        }
        #expect(try names("Roll") == ["IMG_0001.jpg", "IMG_0006.jpg"])

        // Synced again as it is, renamed, in a dry run: the three stay out, and are said.
        let again = try box.run("import", roll.path, "--title", "Roll")
        #expect(again.status == 0 && again.stdout.contains("3 removed earlier, not re-added (--include-removed adds them)"), "\(again.stdout)")
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0002.jpg"), to: roll.appendingPathComponent("renamed.jpg"))
        let renamed = try box.run("import", roll.path, "--title", "Roll", "--json").json(Report.self)
        #expect(renamed.imported == 0 && renamed.removedEarlier == 3, "\(renamed)")
        let dry = try box.run("import", roll.path, "--title", "Roll", "-n", "--json").json(Report.self)
        #expect(dry.imported == 0 && dry.removedEarlier == 3, "\(dry)")
        #expect(try names("Roll") == ["IMG_0001.jpg", "IMG_0006.jpg"])

        // Another memory is another curation.
        #expect(try box.run("import", roll.path, "--title", "Other", "--json").json(Report.self).imported == 5)

        // Asked for, they come back, and the memory forgets it removed them.
        let back = try box.run("import", roll.path, "--title", "Roll", "--include-removed", "--json").json(Report.self)
        #expect(back.imported == 3 && back.removedEarlier == 0, "\(back)")
        #expect(try names("Roll").count == 5)
        #expect(try box.run("import", roll.path, "--title", "Roll", "--json").json(Report.self).removedEarlier == 0)

        // All or none: a pattern that matches nothing, or every photo, removes nothing.
        let none = try box.run("remove", "Roll", "IMG_0001.jpg", "nothing*")
        #expect(none.status == 1 && none.stderr.contains("memory Roll has no image matching 'nothing*'"), "\(none.stderr)")
        let all = try box.run("remove", "Roll", "*.jpg")
        #expect(all.status == 1 && all.stderr.contains("these 5 photos are all of 'Roll'"), "\(all.stderr)")
        #expect(try names("Roll").count == 5)
    }

    @Test func aDeletedMemoryTakesItsRemovalsWithIt() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        #expect(try box.run("remove", "Rome", "IMG_0001.jpg").status == 0)
        func removals() throws -> String {
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            sqlite.arguments = ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from removed_photo').fetchone()[0])",
                                box.library.appendingPathComponent("library.store").path]
            let out = Pipe()
            sqlite.standardOutput = out
            try sqlite.run()
            sqlite.waitUntilExit()
            return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(try removals() == "1\n")
        #expect(try box.run("delete", "Rome", "--yes").status == 0)
        #expect(try removals() == "0\n")
        // A new memory of the same title starts with nothing removed.
        let fresh = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "--json").json(Report.self)
        #expect(fresh.imported == 4 && fresh.removedEarlier == 0)
    }
}
