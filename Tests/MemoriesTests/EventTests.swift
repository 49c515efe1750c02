import Foundation
import Testing

/// Events as people keep them (issue 34): a memory titled by its folder's name belongs to that
/// folder; another folder of the same name makes its own memory, said; `--by-folder` makes one
/// memory per folder of a tree and syncs each into its own again.
@Suite struct EventTests {
    func list(_ box: Sandbox) throws -> [String] {
        try box.run("list", "--json").json([ListJSON].self).map { "\($0.title): \($0.imageCount)" }.sorted()
    }

    @Test func twoFoldersOfOneNameAreTwoMemories() throws {
        let box = Sandbox()
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "2020/Anna's birthday/a.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0002.jpg"), to: "2020/Anna's birthday/b.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "2023/Anna's birthday/c.jpg")
        let first = box.url.appendingPathComponent("2020/Anna's birthday"), second = box.url.appendingPathComponent("2023/Anna's birthday")
        #expect(try box.run("import", first.path).status == 0)
        let dry = try box.run("import", second.path, "-n")
        #expect(dry.stdout.contains("'Anna's birthday' is the memory of another folder of that name, so these photos would go into a new memory"), "\(dry.stdout)")
        let apart = try box.run("import", second.path)
        #expect(apart.status == 0 && apart.stdout.contains("imported 1 photo into 'Anna's birthday (2024)'")
                && apart.stdout.contains("so these photos went into 'Anna's birthday (2024)'; --into 'Anna's birthday' adds them to it instead"), "\(apart.stdout)")
        #expect(try list(box) == ["Anna's birthday (2024): 1", "Anna's birthday: 2"])

        // Each folder again goes to its own memory, even renamed; --into joins them on purpose.
        #expect(try box.run("edit", "Anna's birthday", "--title", "Anna turns 5").status == 0)
        #expect(try box.run("import", first.path, "--json").json(ImportJSON.self).memory?.title == "Anna turns 5")
        #expect(try box.run("import", second.path, "--json").json(ImportJSON.self).memory?.title == "Anna's birthday (2024)")
        #expect(try box.run("import", second.path, "--into", "Anna turns 5", "--json").json(ImportJSON.self).imported == 1)
        #expect(try list(box) == ["Anna turns 5: 3", "Anna's birthday (2024): 1"])
    }

    /// A memory made with --title (or before folders were recorded) is continued by a folder of
    /// that name, which then owns it: the import behaved so before.
    @Test func aMemoryNoFolderOwnsIsContinued() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Trip").status == 0)
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "a/Trip/x.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"), to: "b/Trip/y.jpg")
        #expect(try box.run("import", box.url.appendingPathComponent("a/Trip").path, "--json").json(ImportJSON.self).memory?.title == "Trip")
        #expect(try box.run("import", box.url.appendingPathComponent("b/Trip").path, "--json").json(ImportJSON.self).memory?.title == "Trip (2024)")
    }

    @Test func byFolderMakesAMemoryPerFolderAndSyncsEachIntoItsOwn() throws {
        let box = Sandbox()
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "Events/2020/Christmas/a.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0002.jpg"), to: "Events/2021/Christmas/b.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Events/Hike/c.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"), to: "Events/Hike/day 2/d.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0006.jpg"), to: "Events/loose.jpg")
        try Data("notes\n".utf8).write(to: box.url.appendingPathComponent("Events/2020/readme.txt"))
        let events = box.url.appendingPathComponent("Events")
        let dry = try box.run("import", events.path, "--by-folder", "-n")
        #expect(dry.status == 0 && !FileManager.default.fileExists(atPath: box.library.path), "\(dry.stderr)")
        let first = try box.run("import", events.path + "/", "--by-folder")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\(events.path)/2020/Christmas: imported 1 photo into '2020/Christmas'"), "\(first.stdout)")
        #expect(try list(box) == ["2020/Christmas: 1", "2021/Christmas: 1", "2020: 0", "Events: 1", "Hike: 1", "day 2: 1"].filter { !$0.hasSuffix(": 0") }.sorted())

        // Again, with a new photo in one folder and a new folder: each goes to its own memory.
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/day 2/IMG_0003.jpg"), to: "Events/Hike/e.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/day 2/IMG_0003.jpg"), to: "Events/New Year/f.jpg")
        let again = try box.run("import", events.path, "--by-folder", "--json")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try list(box) == ["2020/Christmas: 1", "2021/Christmas: 1", "Events: 1", "Hike: 2", "New Year: 1", "day 2: 1"])
        #expect(try box.run("import", events.path, "--by-folder", "--title", "X").status == 64)
    }

    /// A folder moved or renamed (its old path gone) is the same folder: its memory is continued
    /// and said, and what was removed from it stays out (review: a moved tree made 'Rome (2024)'
    /// with every photo, the removed ones included).
    @Test func aMovedFolderContinuesItsMemory() throws {
        let box = Sandbox()
        for name in ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0006.jpg"] {
            _ = box.copy(fixturePhotos.appendingPathComponent("Rome/\(name)"), to: "Pictures/Rome/\(name)")
        }
        #expect(try box.run("import", box.url.appendingPathComponent("Pictures/Rome").path).status == 0)
        #expect(try box.run("remove", "Rome", "IMG_0002.jpg").status == 0)
        try FileManager.default.moveItem(at: box.url.appendingPathComponent("Pictures"), to: box.url.appendingPathComponent("Photos"))
        let moved = try box.run("import", box.url.appendingPathComponent("Photos/Rome").path)
        #expect(moved.status == 0 && moved.stdout.contains("imported 0 photos into 'Rome'")
                && moved.stdout.contains("'Rome' was imported from \(box.url.path)/Pictures/Rome, which is gone (moved or renamed?): this folder continues it"),
                "\(moved.stdout)")
        #expect(moved.stdout.contains("1 removed earlier, not re-added"))
        #expect(try list(box) == ["Rome: 2"])
        // Linked now: the next sync says nothing more; a second folder of that name, present, is another.
        #expect(try !box.run("import", box.url.appendingPathComponent("Photos/Rome").path).stdout.contains("which is gone"))
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Other/Rome/x.jpg")
        #expect(try box.run("import", box.url.appendingPathComponent("Other/Rome").path, "--json").json(ImportJSON.self).memory?.title == "Rome (2024)")
    }

    /// A folder whose name is not UTF-8 is imported by --by-folder as by a plain import (it was
    /// "No such file or directory" on a path rebuilt from its display, its photos left out).
    @Test func byFolderTakesFoldersWhoseNamesAreNotUTF8() throws {
        let box = Sandbox()
        let tree = box.url.appendingPathComponent("tree")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "mkdir -p \"$1/$(printf 'caf\\351')\" && cp \"$2\" \"$1/$(printf 'caf\\351')/a.jpg\"", "sh", tree.path,
                           fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg").path]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let first = try box.run("import", tree.path, "--by-folder")
        #expect(first.status == 0 && first.stdout.contains("imported 1 photo into 'caf\u{FFFD}'"), "\(first.stdout) \(first.stderr)")
        let again = try box.run("import", tree.path, "--by-folder")
        #expect(again.status == 0 && again.stdout.contains("imported 0 photos into 'caf\u{FFFD}'"), "\(again.stdout) \(again.stderr)")
        #expect(try list(box) == ["caf\u{FFFD}: 1"])
    }
}

