import BlobStore
import CSQLite
import Foundation
@testable import MemoriesKit
import Testing

/// `count` distinct valid JPEGs (a fixture photo with different trailing bytes) in a new folder.
func distinctPhotos(_ count: Int, in folder: URL) throws {
    let source = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for i in 0..<count {
        var bytes = source
        bytes.append(contentsOf: Array("photo \(i)".utf8))
        try bytes.write(to: folder.appendingPathComponent(String(format: "p%04d.jpg", i)))
    }
}

let canMount: Bool = {
    guard getuid() == 0 else { return false }
    let probe = FileManager.default.temporaryDirectory.appendingPathComponent("mount-probe-\(getpid())")
    try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: probe) }
    guard mount("tmpfs", probe.path, "tmpfs", 0, "size=1m") == 0 else { return false }
    umount(probe.path)
    return true
}()

@Suite struct ReliabilityTests {
    @Test(.enabled(if: canMount, "needs root and tmpfs mounts"))
    func aFullDiskFailsClearlyKeepsTheLibraryHealthyAndTheImportCompletesLater() throws {
        let box = Sandbox()
        try distinctPhotos(120, in: box.url.appendingPathComponent("photos"))  // about 6.5 MB of originals
        let disk = box.url.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        #expect(mount("tmpfs", disk.path, "tmpfs", 0, "size=3m") == 0)
        defer { umount2(disk.path, Int32(MNT_DETACH)) }
        let library = disk.appendingPathComponent("lib").path
        let full = try box.run(["--library", library, "import", box.url.appendingPathComponent("photos").path, "--title", "Full", "--jobs", "1"])
        #expect(full.status == 1, "\(full.stderr)")
        #expect(full.stderr.contains("the disk holding the library is full"), "\(full.stderr)")
        let verify = try box.run(["--library", library, "verify", "--json"])
        #expect(verify.status == 0, "\(verify.stdout)")
        let tmp = disk.appendingPathComponent("lib/.library_SUPPORT/tmp")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: tmp.path))?.isEmpty ?? true, "no half-written blob is left")
        // Space freed: the same import completes.
        #expect(mount("tmpfs", disk.path, "tmpfs", UInt(MS_REMOUNT), "size=64m") == 0)
        let again = try box.run(["--library", library, "import", box.url.appendingPathComponent("photos").path, "--title", "Full", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let show = try box.run(["--library", library, "show", "Full", "--json"]).json(ShowJSON.self)
        #expect(show.images.count == 120)
        #expect(try box.run(["--library", library, "verify"]).status == 0)
    }

    /// `init` on a disk that fills at each step of making the library (store file, identity, the
    /// photo folder's owner record, the search index): it fails clearly, and once there is room
    /// the same `init` succeeds. (A claim left by the failed store named a store that no longer
    /// existed, and the retry was refused as "does not belong with the files".)
    @Test(.enabled(if: canMount, "needs root and tmpfs mounts"))
    func anInitThatFillsTheDiskCanBeRunAgainOnceThereIsRoom() throws {
        let box = Sandbox()
        var failures = 0
        for kilobytes in [8, 16, 32, 64, 96, 128, 160, 256] {
            for folderExisted in [false, true] {
                let disk = box.url.appendingPathComponent("disk\(kilobytes)-\(folderExisted)")
                try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
                #expect(mount("tmpfs", disk.path, "tmpfs", 0, "size=\(kilobytes)k") == 0)
                defer { umount2(disk.path, Int32(MNT_DETACH)) }
                let library = disk.appendingPathComponent("lib")
                if folderExisted {
                    try FileManager.default.createDirectory(at: library.appendingPathComponent(".library_SUPPORT"), withIntermediateDirectories: true)
                }
                let first = try box.run(["--library", library.path, "init"])
                #expect(mount("tmpfs", disk.path, "tmpfs", UInt(MS_REMOUNT), "size=64m") == 0)
                if first.status != 0 {
                    failures += 1
                    #expect(first.status == 1 && first.stderr.contains("the disk holding the library is full"), "\(kilobytes) KB: \(first.stderr)")
                    let retry = try box.run(["--library", library.path, "init"])
                    #expect(retry.status == 0, "\(kilobytes) KB, folder existed: \(folderExisted): \(retry.stderr)")
                }
                let imported = try box.run(["--library", library.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R", "--json"])
                #expect(imported.status == 0, "\(kilobytes) KB: \(imported.stderr)")
                #expect(try box.run(["--library", library.path, "verify"]).status == 0)
            }
        }
        #expect(failures >= 8, "the small disks must make init fail for this test to say anything")
    }

    /// Two `init`s in one folder at the same moment: exactly one makes the library, the other is
    /// told the folder holds one, and the library is whole. (Both used to pass the existence check,
    /// so both said they had made it, and a failing one would have removed the other's store.)
    @Test func twoInitsAtOnceMakeOneLibraryAndTheOtherIsRefused() throws {
        let box = Sandbox()
        for round in 0..<12 {
            let library = box.url.appendingPathComponent("lib\(round)").path
            let both = (0..<2).map { _ in box.start(["--library", library, "init"]) }
            var statuses: [Int32] = []
            var messages: [String] = []
            for started in both {
                _ = started.out.fileHandleForReading.readDataToEndOfFile()
                messages.append(String(decoding: started.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
                started.process.waitUntilExit()
                statuses.append(started.process.terminationStatus)
            }
            #expect(statuses.sorted() == [0, 1], "round \(round): \(statuses) \(messages)")
            #expect(messages.contains { $0.contains("already holds a library") }, "round \(round): \(messages)")
            #expect(try box.run(["--library", library, "verify"]).status == 0)
        }
    }

    /// An `init` stopped between making `library.store` and its first write leaves an empty
    /// file. Alone, that is no library: commands say there is none, and `init` runs again. With
    /// stored photos beside it, or while another init holds the folder, it is left as it is.
    @Test func anInitStoppedBeforeItsFirstWriteCanBeRunAgain() throws {
        let box = Sandbox()
        let library = box.url.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: library.appendingPathComponent("library.store").path, contents: Data())
        for command in [["list"], ["gc"], ["verify"]] {
            let result = try box.run(["--library", library.path] + command)
            #expect(result.status == 1 && result.stderr.contains("no library at \(library.path)"), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.path) == ["library.store"], "nothing made by reading or maintaining it")
        let again = try box.run(["--library", library.path, "init"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try box.run(["--library", library.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"]).status == 0)
        #expect(try box.run(["--library", library.path, "verify"]).status == 0)

        // Photos beside the emptied store: a library whose store was lost, never a new one.
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R").status == 0)
        for name in ["library.store-wal", "library.store-shm"] { try? FileManager.default.removeItem(at: box.library.appendingPathComponent(name)) }
        try Data().write(to: box.library.appendingPathComponent("library.store"))
        let refused = try box.run(["--library", box.library.path, "init"])
        #expect(refused.status == 1 && refused.stderr.contains("already holds a library"), "\(refused.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: box.library.appendingPathComponent("library.store").path)[.size] as? Int == 0)
        #expect(Library.holdsPhotos(box.library))

        // Photos only in the trash, or a half-written one, beside an emptied store: a library too.
        for leftover in ["trash/" + String(repeating: "ab", count: 32), "tmp/partial-1"] {
            let emptied = box.url.appendingPathComponent("emptied-\(leftover.prefix(4))")
            try FileManager.default.createDirectory(at: emptied.appendingPathComponent(".library_SUPPORT/" + leftover).deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data("bytes".utf8).write(to: emptied.appendingPathComponent(".library_SUPPORT/" + leftover))
            _ = FileManager.default.createFile(atPath: emptied.appendingPathComponent("library.store").path, contents: Data())
            let initAgain = try box.run(["--library", emptied.path, "init"])
            #expect(initAgain.status == 1 && initAgain.stderr.contains("already holds a library"), "\(leftover): \(initAgain.stderr)")
            #expect(try FileManager.default.attributesOfItem(atPath: emptied.appendingPathComponent("library.store").path)[.size] as? Int == 0,
                    "a refused init leaves the store as it was")
            for command in ["list", "gc"] {
                let result = try box.run(["--library", emptied.path, command])
                #expect(result.status == 1 && result.stderr.contains("holds photos: restore library.store"), "\(leftover) \(command): \(result.stderr)")
            }
            #expect(try FileManager.default.attributesOfItem(atPath: emptied.appendingPathComponent("library.store").path)[.size] as? Int == 0,
                    "gc did not make a new store beside the trashed photos")
        }

        // An init that keeps photos in a bucket does not take up an unfinished store (an import
        // finding no blobs.json would make the library in the folder): it says what to do.
        let bucketInit = box.url.appendingPathComponent("bucket-init")
        try FileManager.default.createDirectory(at: bucketInit, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bucketInit.appendingPathComponent("library.store").path, contents: Data())
        let toBucket = try box.run(["--library", bucketInit.path, "init", "--blobs", "s3://bucket/j", "--endpoint", "http://127.0.0.1:9"])
        #expect(toBucket.status == 1 && toBucket.stderr.contains("holds an unfinished library"), "\(toBucket.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bucketInit.path) == ["library.store"])

        // Another init holds the folder (it made the empty store and is about to write it).
        let busy = box.url.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: busy.appendingPathComponent("library.store").path, contents: Data())
        let folder = open(busy.path, O_RDONLY | O_DIRECTORY)
        #expect(flock(folder, LOCK_EX) == 0)
        let waiting = try box.run(["--library", busy.path, "init"])
        close(folder)
        #expect(waiting.status == 1 && waiting.stderr.contains("already holds a library"), "\(waiting.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: busy.appendingPathComponent("library.store").path)[.size] as? Int == 0)
    }

    /// An import killed in its first milliseconds leaves an empty store with a journal beside it,
    /// or a store of one page with no table yet (SQLite wrote the header, then the process died).
    /// Neither holds anything: readers say there is no library (they said photos were left, the
    /// library could not be written, or that the store "lacks Memory, MemoryImage"), and init
    /// and import make the library in it.
    @Test func aStoreKilledBeforeItsFirstTableIsNoLibraryYet() throws {
        let box = Sandbox()
        func tableless(_ path: String) {
            var db: OpaquePointer?
            #expect(sqlite3_open(path, &db) == SQLITE_OK)
            #expect(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nil, nil, nil) == SQLITE_OK)
            sqlite3_close(db)
        }
        /// A write killed before the store was in WAL mode: a hot rollback journal beside it (the
        /// files copied while a transaction is open are what a kill leaves). Readers said the
        /// library could not be written (found by a CI run under load).
        func hotJournal(_ folder: URL) {
            let scratch = box.url.appendingPathComponent("scratch-\(UUID().uuidString).db").path
            var db: OpaquePointer?
            #expect(sqlite3_open(scratch, &db) == SQLITE_OK)
            // Its first transaction, as an import's first write is: rolled back, nothing is left.
            #expect(sqlite3_exec(db, "PRAGMA cache_size=1; BEGIN; CREATE TABLE t(x)", nil, nil, nil) == SQLITE_OK)
            for _ in 0..<500 { sqlite3_exec(db, "INSERT INTO t VALUES (randomblob(500))", nil, nil, nil) }
            try? FileManager.default.copyItem(atPath: scratch, toPath: folder.appendingPathComponent("library.store").path)
            try? FileManager.default.copyItem(atPath: scratch + "-journal", toPath: folder.appendingPathComponent("library.store-journal").path)
            sqlite3_close(db)
        }
        for (name, make) in [("hot-journal", hotJournal), ("journal", { (folder: URL) in
                                 _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("library.store").path, contents: Data())
                                 _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("library.store-journal").path,
                                                                    contents: Data(count: 512))
                             }), ("header", { (folder: URL) in tableless(folder.appendingPathComponent("library.store").path) })] {
            for finisher in ["init", "import"] {
                let folder = box.url.appendingPathComponent("\(name)-\(finisher)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                make(folder)
                if name == "header" {
                    #expect(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("library.store").path)[.size] as? Int == 4096)
                    #expect(Library.isEmptyStore(folder.appendingPathComponent("library.store")))
                }
                for command in [["list"], ["show", "R"], ["verify"], ["gc"]] {
                    let result = try box.run(["--library", folder.path] + command)
                    #expect(result.status == 1 && result.stderr.contains("no library at \(folder.path)"), "\(name) \(command): \(result.stderr)")
                }
                if finisher == "init" { #expect(try box.run(["--library", folder.path, "init"]).status == 0) }
                let imported = try box.run(["--library", folder.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"])
                #expect(imported.status == 0, "\(name) \(finisher): \(imported.stderr)")
                #expect(try box.run(["--library", folder.path, "verify"]).status == 0)
            }
        }
        // Killed after OpenSwiftData's own record, before the models' tables (a first import
        // killed 50 ms in): readers say there is no library yet, and an import finishes it.
        let recordOnly = box.url.appendingPathComponent("record-only")
        try FileManager.default.createDirectory(at: recordOnly, withIntermediateDirectories: true)
        var record: OpaquePointer?
        #expect(sqlite3_open(recordOnly.appendingPathComponent("library.store").path, &record) == SQLITE_OK)
        #expect(sqlite3_exec(record, "PRAGMA journal_mode=WAL; CREATE TABLE _osd_metadata (key TEXT PRIMARY KEY, value TEXT)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(record)
        for command in [["list"], ["show", "R"], ["verify"]] {
            let result = try box.run(["--library", recordOnly.path] + command)
            #expect(result.status == 1 && result.stderr == "memories: no library at \(recordOnly.path) (`memories import` creates one; "
                    + "`--library` or `$MEMORIES_LIBRARY` chooses another)\n", "record only \(command): \(result.stderr)")
        }
        #expect(try box.run(["--library", recordOnly.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"]).status == 0)
        #expect(try box.run(["--library", recordOnly.path, "verify"]).status == 0)

        // Through a link, the log and journal that count are those beside the file it names (SQLite
        // keeps them there): a first import's tables in the target's -wal are a library.
        let linked = box.url.appendingPathComponent("linked")
        let far = box.url.appendingPathComponent("far")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: far, withIntermediateDirectories: true)
        tableless(far.appendingPathComponent("real.store").path)
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent("library.store").path, withDestinationPath: "../far/real.store")
        #expect(Library.isEmptyStore(linked.appendingPathComponent("library.store")))
        for beside in ["real.store-wal", "real.store-journal"] {
            _ = FileManager.default.createFile(atPath: far.appendingPathComponent(beside).path, contents: Data(count: 32))
            #expect(!Library.isEmptyStore(linked.appendingPathComponent("library.store")), "\(beside)")
            try FileManager.default.removeItem(at: far.appendingPathComponent(beside))
        }
        try FileManager.default.removeItem(at: far.appendingPathComponent("real.store"))
        _ = FileManager.default.createFile(atPath: far.appendingPathComponent("real.store").path, contents: Data())
        _ = FileManager.default.createFile(atPath: far.appendingPathComponent("real.store-wal").path, contents: Data(count: 32))
        #expect(!Library.isEmptyStore(linked.appendingPathComponent("library.store")), "an empty file whose log is beside its target")
        // Opened, the log holds no frame (32 bytes of nothing) and the store no table: no library yet.
        #expect(try box.run(["--library", linked.path, "list"]).stderr.hasPrefix("memories: no library at \(linked.path) ("))

        // A store of one page that names a table is a library (an empty one), not "no library".
        let oneTable = box.url.appendingPathComponent("one-table")
        try FileManager.default.createDirectory(at: oneTable, withIntermediateDirectories: true)
        var db: OpaquePointer?
        #expect(sqlite3_open(oneTable.appendingPathComponent("library.store").path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; CREATE TABLE t(x)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        #expect(!Library.isEmptyStore(oneTable.appendingPathComponent("library.store")))
        #expect(try box.run(["--library", oneTable.path, "init"]).stderr.contains("already holds a library"))
    }

    /// An `import` making the library in an unfinished store (it waits for a lock another reader
    /// holds) while an `init` takes the same store up: one library, both commands succeed, the
    /// photos are in it. (Removing the empty file to start afresh, as `init` once did, split the
    /// two onto different stores that shared one journal: the library was left unusable.)
    @Test func anInitAndAnImportMakingOneUnfinishedStoreAtOnceMakeOneLibrary() throws {
        let box = Sandbox()
        try FileManager.default.createDirectory(at: box.library, withIntermediateDirectories: true)
        let store = box.library.appendingPathComponent("library.store").path
        _ = FileManager.default.createFile(atPath: store, contents: Data())
        var reader: OpaquePointer?
        #expect(sqlite3_open(store, &reader) == SQLITE_OK)
        #expect(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM sqlite_master;", nil, nil, nil) == SQLITE_OK)
        let importing = box.start(["--library", box.library.path, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"])
        usleep(700_000)
        let initing = box.start(["--library", box.library.path, "init"])
        usleep(700_000)
        #expect(sqlite3_exec(reader, "COMMIT", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(reader)
        for (name, started) in [("import", importing), ("init", initing)] {
            let err = String(decoding: started.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            _ = started.out.fileHandleForReading.readDataToEndOfFile()
            started.process.waitUntilExit()
            #expect(started.process.terminationStatus == 0, "\(name): \(err)")
        }
        let verify = try box.run("verify")
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(try box.run("show", "R", "--json").json(ShowJSON.self).images.count == 4)
    }

    /// A `library.store` that links to nothing is said as such by every command, and left alone
    /// (`init` used to say the folder held a library, every other command that there was none).
    @Test func aStoreLinkedToNothingIsSaidAsSuch() throws {
        let box = Sandbox()
        let library = box.url.appendingPathComponent("linked")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let target = box.url.appendingPathComponent("unmounted/library.store").path
        try FileManager.default.createSymbolicLink(atPath: library.appendingPathComponent("library.store").path, withDestinationPath: target)
        for command in [["init"], ["list"], ["verify"], ["import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"]] {
            let result = try box.run(["--library", library.path] + command)
            #expect(result.status == 1 && result.stderr.contains("is a symbolic link to \(target), which does not exist or cannot be followed"), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: library.appendingPathComponent("library.store").path) == target)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.path) == ["library.store"])
    }

    /// A `library.store` that is a folder or a pipe is said as such by every command, and left
    /// alone (it was "the disk may be full or failing", and a pipe could block a reader).
    @Test func aStoreThatIsNotAFileIsSaidAsSuch() throws {
        let box = Sandbox()
        for (kind, make) in [("folder", { (path: String) in mkdir(path, 0o755) }), ("named pipe", { (path: String) in mkfifo(path, 0o644) })] {
            let library = box.url.appendingPathComponent(kind.replacingOccurrences(of: " ", with: "-"))
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
            let store = library.appendingPathComponent("library.store").path
            #expect(make(store) == 0)
            for command in [["init"], ["list"], ["verify"], ["gc"], ["import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"]] {
                let result = try box.run(["--library", library.path] + command)
                #expect(result.status == 1 && result.stderr.contains("\(store) is a \(kind), not a library's store file"), "\(kind) \(command): \(result.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: library.path) == ["library.store"])
        }
    }

    @Test func aDamagedLibraryIsReportedPreciselyAndNothingCrashes() throws {
        let box = Sandbox()
        let imported = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R", "--json").json(ImportJSON.self)
        #expect(imported.imported == 4)
        let store = try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
        let images = try box.run("show", "R", "--json").json(ShowJSON.self).images
        let flipped = try #require(BlobDigest(hex: images[0].sha256))
        let truncated = try #require(BlobDigest(hex: images[1].sha256))
        let missing = try #require(BlobDigest(hex: images[2].sha256))
        var bytes = try Data(contentsOf: store.url(for: flipped))
        bytes[100] ^= 1
        try bytes.write(to: store.url(for: flipped))
        try Data(try Data(contentsOf: store.url(for: truncated)).prefix(1000)).write(to: store.url(for: truncated))
        try FileManager.default.removeItem(at: store.url(for: missing))  // gone for good, not in the trash
        try Data("stray".utf8).write(to: box.library.appendingPathComponent(".library_SUPPORT/sha256/stray.txt"))
        let report = try box.run("verify", "--json")
        #expect(report.status == 1)
        let json = try report.json(VerifyJSON.self)
        #expect(Set(json.corrupt) == [flipped.hex, truncated.hex] && json.missing == [missing.hex] && json.database == "ok")
        let export = try box.run("export", "R", box.url.appendingPathComponent("out").path)
        #expect(export.status == 1)
        for image in images.prefix(3) {
            #expect(!FileManager.default.fileExists(atPath: box.url.appendingPathComponent("out/\(image.filename)").path), "\(image.filename) was written")
            #expect(export.stderr.contains("\(image.filename) is damaged"))
        }
        #expect(FileManager.default.fileExists(atPath: box.url.appendingPathComponent("out/\(images[3].filename)").path))
        // A corrupt SQLite page: verify says so instead of crashing.
        let storeFile = box.library.appendingPathComponent("library.store")
        _ = try box.run("list")  // checkpoint nothing in particular; the WAL is folded into the file when connections close
        var db = try Data(contentsOf: storeFile)
        if db.count > 8192 {
            for i in 4096..<4196 { db[i] = 0xA5 }
            try db.write(to: storeFile)
            try? FileManager.default.removeItem(at: box.library.appendingPathComponent("library.store-wal"))
            try? FileManager.default.removeItem(at: box.library.appendingPathComponent("library.store-shm"))
            let broken = try box.run("verify", "--json")
            #expect(broken.status == 1)
            #expect(!broken.stderr.contains("Fatal error") && !broken.stderr.contains("Segmentation"))
        }
    }

    @Test func hostileFoldersAreWalkedWithoutHarm() throws {
        let box = Sandbox()
        let root = box.url.appendingPathComponent("tree")
        var deep = root
        for i in 0..<70 { deep.appendPathComponent("d\(i)") }
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0002.jpg"), to: "tree/top.jpg")
        try FileManager.default.copyItem(at: fixturePhotos.appendingPathComponent("Rome/IMG_0006.jpg"), to: deep.appendingPathComponent("too-deep.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: root.path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("dangling.jpg").path, withDestinationPath: "/no/such/file")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.jpg").path, withDestinationPath: root.appendingPathComponent("top.jpg").path)
        mkfifo(root.appendingPathComponent("fifo.jpg").path, 0o644)
        let result = try box.run("import", root.path, "--title", "Hostile", "--json")
        #expect(result.status == 2)
        let report = try result.json(ImportJSON.self)
        #expect(report.imported == 1 && report.duplicates == 1, "top.jpg, and link.jpg to it")
        #expect(report.rejected.map { ($0.path as NSString).lastPathComponent } == ["dangling.jpg"])
        #expect(report.skipped == 3, "the loop, the FIFO and the folder too deep")
    }

    @Test func gcRunningAlongsideImportsAndDeletesLosesNothing() throws {
        let box = Sandbox()
        try distinctPhotos(80, in: box.url.appendingPathComponent("a"))
        try distinctPhotos(40, in: box.url.appendingPathComponent("b"))
        try box.run("import", fixturePhotos.path, "--title", "seed")
        let stop = Flag()
        let gcFailures = SharedCount()
        let gcThread = Thread {
            while !stop.value {
                if (try? box.run("gc"))?.status != 0 { gcFailures.increment() }
            }
        }
        gcThread.start()
        let a = try box.run("import", box.url.appendingPathComponent("a").path, "--title", "A", "--jobs", "1")
        let b = try box.run("import", box.url.appendingPathComponent("b").path, "--title", "B", "--jobs", "1")
        let d = try box.run("delete", "seed", "--yes")
        _ = stop.setOnce()
        while gcThread.isExecuting { usleep(10_000) }
        #expect(a.status == 0 && b.status == 0 && d.status == 0, "\(a.stderr) \(b.stderr) \(d.stderr)")
        #expect(gcFailures.value == 0)
        let verify = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(verify.ok && verify.missing.isEmpty)
        #expect(try box.run("show", "A", "--json").json(ShowJSON.self).images.count == 80)
        #expect(try box.run("show", "B", "--json").json(ShowJSON.self).images.count == 40)
    }
}
