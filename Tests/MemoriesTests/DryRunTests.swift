import Foundation
import Testing

/// `import -n` says what the real run would do, with the same counts, and writes nothing anywhere:
/// no library where there was none, nothing in one that exists (issue 34: it reported every photo
/// as new when continuing a memory, and made a library on a new path).
@Suite struct DryRunTests {
    /// Every path under `folder` with its size and modification time, and the folder's own.
    static func tree(_ folder: URL) -> [String] {
        var entries: [String] = []
        for path in [""] + ((FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String]) ?? []) {
            var info = stat()
            guard lstat(folder.appendingPathComponent(path).path, &info) == 0 else { continue }
            entries.append("\(path) \(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
        }
        return entries.sorted()
    }

    @Test func aDryRunCountsWhatTheRealRunDoesAndWritesNothing() throws {
        let box = Sandbox()
        for (source, name) in [("Rome/IMG_0001.jpg", "IMG_0001.jpg"), ("Rome/IMG_0002.jpg", "IMG_0002.jpg"), ("Rome/day 2/IMG_0003.jpg", "IMG_0003.jpg")] {
            _ = box.copy(fixturePhotos.appendingPathComponent(source), to: "Roll/\(name)")
        }
        let roll = box.url.appendingPathComponent("Roll")
        try Data("not a photo\n".utf8).write(to: roll.appendingPathComponent("notes.txt"))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: roll.appendingPathComponent("broken.jpg"))

        // No library yet: nothing is made, and the counts are the first import's.
        let dryFirst = try box.run("import", roll.path, "--title", "Roll", "-n", "--json")
        #expect(dryFirst.status == 2 && !FileManager.default.fileExists(atPath: box.library.path), "\(dryFirst.stderr)")
        let first = try box.run("import", roll.path, "--title", "Roll", "--json")
        #expect(try dryFirst.json(SyncJSON.self) == first.json(SyncJSON.self))

        // A library with the memory: more photos, a repeat, a removal; the dry run matches the
        // real run and leaves every file of the library as it was (the store, its log, locks).
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Roll/IMG_0004.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Roll/again.jpg")
        #expect(try box.run("remove", "Roll", "IMG_0002.jpg").status == 0)
        // SQLite's readers of a WAL store leave its shared-memory index and an empty log beside
        // it (as `list` does); nothing else is made, and nothing changes.
        func tree() -> [String] {
            Self.tree(box.library).filter { !$0.hasPrefix(" ") && !$0.hasPrefix("library.store-shm ") && !$0.hasPrefix("library.store-wal ") }
        }
        let before = tree()
        let dry = try box.run("import", roll.path, "--title", "Roll", "-n", "--json")
        #expect(tree() == before, "a dry run changed the library")
        let log = try FileManager.default.attributesOfItem(atPath: box.library.appendingPathComponent("library.store-wal").path)
        #expect(log[.size] as? Int == 0)
        let real = try box.run("import", roll.path, "--title", "Roll", "--json")
        let expected = SyncJSON(imported: 1, alreadyInMemory: 2, repeatedInFolders: 1, removedEarlier: 1, skipped: 1,
                                unchanged: try real.json(SyncJSON.self).unchanged, rejected: try real.json(SyncJSON.self).rejected)
        #expect(try dry.json(SyncJSON.self) == real.json(SyncJSON.self))
        #expect(try real.json(SyncJSON.self) == expected)

    }

    /// The scratch library a dry run counts in when there is no library is gone when it exits; one
    /// a killed dry run left behind (its process gone) is removed by the next.
    @Test func aDryRunLeavesNoScratchBehind() throws {
        let box = Sandbox()
        let temporary = box.url.appendingPathComponent("tmp")
        let done = Process()
        done.executableURL = URL(fileURLWithPath: "/bin/true")
        try done.run()
        done.waitUntilExit()
        let left = temporary.appendingPathComponent("memories-dry-run-\(done.processIdentifier)-AbC123/library")
        try FileManager.default.createDirectory(at: left, withIntermediateDirectories: true)
        // A running dry run's (this process stands for it), and a folder of another shape: kept.
        let running = temporary.appendingPathComponent("memories-dry-run-\(getpid())-XyZ789")
        let other = temporary.appendingPathComponent("memories-dry-run-notes")
        for kept in [running, other] { try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true) }
        let run = box.start(["--library", box.library.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "-n"],
                            environment: ["TMPDIR": temporary.path])
        _ = run.out.fileHandleForReading.readDataToEndOfFile()
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 0)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: temporary.path)) == [other.lastPathComponent, running.lastPathComponent])
        #expect(!FileManager.default.fileExists(atPath: box.library.path))
    }
}

