import BlobStore
import Foundation
@testable import MemoriesKit
import Testing


/// Importing a folder again reads only what changed since the library last read it (issue 34):
/// an unchanged file is counted without being opened, which `strace` shows; anything else is
/// read as before, and what decides a photo's place is still its digest.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace (scripts/setup.sh --tests)"))
struct ResyncTests {
    /// A camera roll: Rome's four photos, Paris's IMG_0004, and a note that is not a photo.
    static func roll(_ box: Sandbox) throws -> URL {
        let roll = box.url.appendingPathComponent("Roll")
        for name in ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0006.jpg"] {
            _ = box.copy(fixturePhotos.appendingPathComponent(name == "IMG_0003.jpg" ? "Rome/day 2/\(name)" : "Rome/\(name)"), to: "Roll/\(name)")
        }
        try Data("not a photo\n".utf8).write(to: roll.appendingPathComponent("notes.txt"))
        settle(roll)
        return roll
    }

    /// Waits until every file under `folder` was last changed more than the record's margin ago
    /// (two seconds: a file changed within its file system's time resolution of being read is
    /// read again, see `SourceIndex`).
    static func settle(_ folder: URL) {
        var newest = 0.0
        for path in (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String]) ?? [] {
            var info = stat()
            if stat(folder.appendingPathComponent(path).path, &info) == 0 {
                newest = max(newest, Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
            }
        }
        let wait = newest + 2.2 - Date().timeIntervalSince1970
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }

    /// `import --json` under strace: the report, and the files under `folder` it opened (not the folders it listed).
    static func traced(_ box: Sandbox, _ args: [String], folder: URL) throws -> (SyncJSON, [String]) {
        let log = box.url.appendingPathComponent("strace-\(UUID().uuidString).log")
        let run = try box.run(wrappedBy: ["/usr/bin/strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log.path], ["import", "--json"] + args)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let opened = lines.filter { !$0.contains("O_DIRECTORY") && !$0.contains("= -1") }.compactMap { line -> String? in
            guard let start = line.range(of: "\""), let end = line[start.upperBound...].range(of: "\"") else { return nil }
            let path = String(line[start.upperBound..<end.lowerBound])
            return path.hasPrefix(folder.path + "/") ? String(path.dropFirst(folder.path.count + 1)) : nil
        }
        return (try run.json(SyncJSON.self), opened.sorted())
    }

    @Test func aReSyncOpensOnlyTheFilesThatChanged() throws {
        let box = Sandbox()
        let roll = try Self.roll(box)
        let (first, read) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(first.imported == 4 && first.skipped == 1 && first.unchanged == 0)
        #expect(read == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0006.jpg", "notes.txt"], "the first import reads each file once")

        let (again, none) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(none.isEmpty, "nothing changed, nothing opened: \(none)")
        #expect(again.imported == 0 && again.alreadyInMemory == 4 && again.skipped == 1 && again.unchanged == 5, "\(again)")

        // A new photo, one written again with the same bytes (its times change), one replaced by
        // another photo: only those three are read.
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Roll/IMG_0004.jpg")
        let same = try Data(contentsOf: roll.appendingPathComponent("IMG_0002.jpg"))
        try same.write(to: roll.appendingPathComponent("IMG_0002.jpg"))
        try FileManager.default.removeItem(at: roll.appendingPathComponent("IMG_0003.jpg"))
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"), to: "Roll/IMG_0003.jpg")
        Self.settle(roll)
        let (grown, changed) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(changed == ["IMG_0002.jpg", "IMG_0003.jpg", "IMG_0004.jpg"], "\(changed)")
        #expect(grown.imported == 2 && grown.alreadyInMemory == 3 && grown.unchanged == 3, "\(grown)")
        let show = try box.run("show", "Roll", "--json").json(ShowJSON.self)
        #expect(show.images.count == 6, "the replaced photo stays: a sync adds, it does not delete")

        // The same folder reached through a link, or by a path with "..": the same files.
        let link = box.url.appendingPathComponent("RollLink")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: roll)
        let (linked, throughLink) = try Self.traced(box, [link.path, "--title", "Roll"], folder: link)
        #expect(throughLink.isEmpty && linked.unchanged == 6, "\(linked) \(throughLink)")
    }

    /// What the record says is trusted only for photos the memory holds whose stored copies are
    /// there: another memory reads the files; a deleted original or thumbnail is put back; a
    /// damaged one needs --rehash, which reads everything.
    @Test func theRecordIsTrustedOnlyForWhatTheMemoryHoldsWhole() throws {
        let box = Sandbox()
        let roll = try Self.roll(box)
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        let (other, read) = try Self.traced(box, [roll.path, "--title", "Elsewhere"], folder: roll)
        #expect(other.imported == 4 && other.unchanged == 1 && read.count == 4, "a new memory reads its photos; the note is known: \(other) \(read)")

        let store = try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
        let show = try box.run("show", "Roll", "--json").json(ShowJSON.self)
        let first = try #require(show.images.first { $0.filename == "IMG_0001.jpg" })
        try FileManager.default.removeItem(at: store.url(for: try #require(BlobDigest(hex: first.sha256))))
        let (restored, reread) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(reread == ["IMG_0001.jpg"] && restored.unchanged == 4, "\(restored) \(reread)")
        #expect(try box.run("verify").status == 0, "the missing original was put back")

        let second = try #require(show.images.first { $0.filename == "IMG_0002.jpg" })
        let url = store.url(for: try #require(BlobDigest(hex: second.sha256)))
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: url)
        let (_, notRead) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(notRead.isEmpty, "damage is not found without reading: verify finds it")
        #expect(try box.run("verify").status == 1)
        let (rehashed, everything) = try Self.traced(box, [roll.path, "--title", "Roll", "--rehash"], folder: roll)
        #expect(everything.count == 5 && rehashed.unchanged == 0, "\(everything)")
        #expect(try box.run("verify").status == 0, "--rehash proved every stored copy and repaired the damaged one")
    }

    /// A dry run reads the record but writes none of it; a file rewritten within two seconds of
    /// being recorded (the file system's time resolution) is read again.
    @Test func aDryRunRecordsNothingAndARacilyCleanFileIsReadAgain() throws {
        let box = Sandbox()
        let roll = try Self.roll(box)
        #expect(try box.run("import", roll.path, "--title", "Roll", "-n").status == 0)
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        func recorded() throws -> Int { Int(try box.sql("select count(*) from source_file")) ?? -1 }
        #expect(try recorded() == 5)
        let dry = try box.run("import", roll.path, "--title", "Roll", "-n", "--json").json(SyncJSON.self)
        #expect(dry.unchanged == 5 && dry.imported == 0)

        // Written again now, and synced at once: its times are within the margin of the record
        // made now, so the next sync reads it again too.
        let racy = roll.appendingPathComponent("IMG_0001.jpg")
        try Data(contentsOf: racy).write(to: racy)
        let (soon, first) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(first == ["IMG_0001.jpg"] && soon.unchanged == 4)
        let (_, second) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(second == ["IMG_0001.jpg"], "still within two seconds of its record: read again")
        Self.settle(roll)
        let (_, third) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(third.isEmpty || third == ["IMG_0001.jpg"], "read again while its last record is within two seconds of it")
        let (settled, fourth) = try Self.traced(box, [roll.path, "--title", "Roll"], folder: roll)
        #expect(fourth.isEmpty && settled.unchanged == 5, "recorded two seconds after it was written: trusted")
    }

    /// Two re-syncs of one folder with new photos at once, and a re-sync killed at several
    /// moments: the memory ends with exactly the folder's photos, each once, and verify is healthy.
    @Test func concurrentAndKilledReSyncsLeaveTheMemoryWhole() throws {
        let box = Sandbox()
        let roll = try Self.roll(box)
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        for name in ["IMG_0004.jpg", "IMG_0005.jpg", "copy of IMG_0001.jpg"] {
            _ = box.copy(fixturePhotos.appendingPathComponent("Paris/\(name)"), to: "Roll/\(name)")
        }
        let a = box.start(["--library", box.library.path, "import", roll.path, "--title", "Roll", "-q"])
        let b = box.start(["--library", box.library.path, "import", roll.path, "--title", "Roll", "-q"])
        for process in [a, b] {
            _ = process.err.fileHandleForReading.readDataToEndOfFile()
            process.process.waitUntilExit()
            #expect(process.process.terminationStatus == 0)
        }
        #expect(try box.run("show", "Roll", "--json").json(ShowJSON.self).images.count == 6, "4 + 2 new (the copy is a repeat)")

        for (i, delay) in [0.02, 0.08, 0.2].enumerated() {
            _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-\(i + 1).jpg"), to: "Roll/new-\(i).jpg")
            let run = box.start(["--library", box.library.path, "import", roll.path, "--title", "Roll", "-q"])
            Thread.sleep(forTimeInterval: delay)
            kill(run.process.processIdentifier, SIGKILL)
            run.process.waitUntilExit()
            #expect(try box.run("verify").status == 0, "after a kill at \(delay) s")
        }
        let done = try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self)
        #expect(try box.run("show", "Roll", "--json").json(ShowJSON.self).images.count == 9, "\(done)")
        #expect(try box.run("verify").status == 0)
    }
}

/// What is recorded of a file is what was read, never what the walk saw before it: a file
/// replaced between the walk and its read is recorded as read; one written while it is read is
/// not recorded at all (its next sync reads it again).
@Suite struct SourceRecordTests {
    @Test func aFileChangedAfterTheWalkIsRecordedAsRead() throws {
        let box = Sandbox()
        let roll = try ResyncTests.roll(box)
        var entries: [FileWalker.Entry] = []
        FileWalker().walk([roll.path], visit: { entries.append($0) }, problem: { _ in })
        let walked = try #require(entries.first { $0.name == "IMG_0001.jpg" })
        let path = roll.appendingPathComponent("IMG_0001.jpg")
        try FileManager.default.removeItem(at: path)
        let other = try Data(contentsOf: fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"))
        try other.write(to: path)
        guard case .image(let data, _, let identity?) = ImportFile.read(walked, maxSize: 1 << 30) else {
            Issue.record("the replaced photo was not read whole")
            return
        }
        var now = stat()
        #expect(stat(path.path, &now) == 0)
        #expect(data == other && identity == FileIdentity(now) && identity != walked.identity)

        let fd = open(path.path, O_RDONLY)
        defer { close(fd) }
        var before = stat()
        #expect(fstat(fd, &before) == 0)
        #expect(ImportFile.unchanged(fd, since: before) == FileIdentity(before))
        let handle = try FileHandle(forWritingTo: path)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        #expect(ImportFile.unchanged(fd, since: before) == nil, "written while read: not recorded")
    }

    /// Stored files no photo names beside a store with no photo: after a first import killed
    /// between storing its photos and saving their rows, the record of imported files says an
    /// import was here, and they are gc's (verify said "restore library.store from a backup");
    /// a store put back from a backup made before any import is said to have lost its photos.
    @Test func storedFilesBesideAStoreWithoutPhotosAreAnImportsOrALostStores() throws {
        let box = Sandbox()
        #expect(try box.run("init").status == 0)
        let store = box.library.appendingPathComponent("library.store")
        let backup = box.url.appendingPathComponent("backup.store")
        try FileManager.default.copyItem(at: store, to: backup)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        // What a first import killed after storing its photos and before saving their rows leaves.
        try box.sql("delete from MemoryImage")
        try box.sql("delete from Memory")
        let emptied = try box.run("verify", "--json")
        #expect(emptied.status == 0, "\(emptied.stdout)")
        #expect(try emptied.json(VerifyJSON.self).orphans > 0)

        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
        try FileManager.default.copyItem(at: backup, to: store)
        let lost = try box.run("verify")
        #expect(lost.status == 1 && lost.stdout.contains("the store has no photos but its folder holds"), "\(lost.stdout) \(lost.stderr)")
    }

    /// A file read again whose bytes are a photo the memory holds whole (renamed, moved, its ctime
    /// changed by a hard link) or one removed from it is hashed, not decoded; a new photo is
    /// decoded. --rehash decodes everything. Counted from the import's stages.
    @Test func aKnownPhotoReadAgainIsHashedNotDecoded() throws {
        let box = Sandbox()
        let roll = try ResyncTests.roll(box)
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        #expect(try box.run("remove", "Roll", "IMG_0006.jpg").status == 0)
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0001.jpg"), to: roll.appendingPathComponent("renamed.jpg"))
        try FileManager.default.createDirectory(at: roll.appendingPathComponent("moved"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0002.jpg"), to: roll.appendingPathComponent("moved/IMG_0002.jpg"))
        try FileManager.default.linkItem(at: roll.appendingPathComponent("IMG_0003.jpg"), to: box.url.appendingPathComponent("backup-link.jpg"))
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0006.jpg"), to: roll.appendingPathComponent("removed-then-renamed.jpg"))
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"), to: "Roll/new.jpg")
        func stages(_ extra: [String]) throws -> (report: SyncJSON, decoded: Int, hashed: Int) {
            let run = box.start(["--library", box.library.path, "import", roll.path, "--title", "Roll", "--json"] + extra,
                                environment: ["MEMORIES_IMPORT_STAGES": "1"])
            let out = run.out.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: run.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.process.waitUntilExit()
            #expect(run.process.terminationStatus == 0, "\(err)")
            func count(_ stage: String) -> Int {
                guard let range = err.range(of: stage + " ") else { return -1 }
                let rest = err[range.upperBound...]
                guard let open = rest.firstIndex(of: "("), let close = rest.firstIndex(of: ")") else { return -1 }
                return Int(rest[rest.index(after: open)..<close]) ?? -1
            }
            return (try JSONDecoder().decode(SyncJSON.self, from: out), count("validate+thumbnail"), count("hash"))
        }
        // Read: renamed, moved, linked (ctime), removed-then-renamed, new; decoded: the new one only.
        let sync = try stages([])
        #expect(sync.hashed == 5 && sync.decoded == 1, "\(sync)")
        #expect(sync.report.imported == 1 && sync.report.removedEarlier == 1 && sync.report.unchanged == 1, "\(sync.report)")
        let rehash = try stages(["--rehash"])
        #expect(rehash.hashed == 5 && rehash.decoded == 4, "every photo file, but the removed one is left out before its decode: \(rehash)")
    }

    /// A file skipped under other rules (an older version, or a table from before the rules were
    /// recorded) is read again: a kind of file a later version imports is not left out for good.
    @Test func aFileSkippedUnderOtherRulesIsReadAgain() throws {
        let box = Sandbox()
        let roll = try ResyncTests.roll(box)
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        #expect(try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self).unchanged == 5)
        try box.sql("update source_file set rules = 0 where skipped is not null")
        let older = try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self)
        #expect(older.unchanged == 4 && older.skipped == 1, "the note is read again: \(older)")
        try box.sql("alter table source_file drop column rules")
        #expect(try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self).unchanged == 4, "rows of a table without rules: 0")
        #expect(try box.sql("select count(*) from pragma_table_info('source_file') where name = 'rules'") == "1")
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self).unchanged == 5)
    }
}

