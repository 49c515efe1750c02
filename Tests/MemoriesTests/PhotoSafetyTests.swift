import BlobStore
import Foundation
import OpenSwiftData
import Testing
@testable import MemoriesKit

/// The ways an outside attack made the journal lose or mislead about photos (issue "Never lose a
/// photo"), each reproduced through the `memories` binary as a user would meet it.
@Suite struct PhotoSafetyTests {
    func seeded() throws -> (Sandbox, ImportJSON) {
        let box = Sandbox()
        let report = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "--json").json(ImportJSON.self)
        #expect(report.imported == 4)
        return (box, report)
    }

    func blobStore(_ box: Sandbox) throws -> BlobStore {
        try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
    }

    func removeStoreFiles(_ box: Sandbox) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: box.library.appendingPathComponent("library.store").path + suffix) }
    }

    /// Runs `memories` and kills it if it has not finished within `seconds` (a hang is a failure, not a stuck suite).
    func run(_ box: Sandbox, within seconds: Double, _ args: [String]) -> (status: Int32, stdout: String, stderr: String, hung: Bool) {
        let (process, out, err) = box.start(["--library", box.library.path] + args)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let hung = process.isRunning
        if hung { process.terminate() }
        process.waitUntilExit()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stdout, stderr, hung)
    }

    // MARK: 2. An emptied or deleted store

    @Test func anEmptiedOrDeletedStoreIsUnhealthyAndGCRemovesNothing() throws {
        for damage in ["emptied", "deleted"] {
            let (box, _) = try seeded()
            let before = box.blobFiles()
            #expect(before.count == 8)
            if damage == "emptied" {
                removeStoreFiles(box)
                try Data().write(to: box.library.appendingPathComponent("library.store"))
            } else {
                removeStoreFiles(box)
            }
            let verify = try box.run("verify")
            #expect(verify.status == 1 && verify.stderr.contains("holds photos: restore library.store"), "\(damage): \(verify.stderr)")
            let gc = try box.run("gc", "--prune-now")
            // Emptied: the store's identity no longer matches its photos; deleted: there is no store to open.
            #expect(gc.status == 1 && (gc.stderr.contains("Nothing was removed") || gc.stderr.contains("holds photos: restore library.store")), "\(damage): \(gc.stderr)")
            let list = try box.run("list")
            #expect(list.status == 1)
            #expect(box.blobFiles() == before, "\(damage): stored photos were removed")
            let trash = (try? FileManager.default.contentsOfDirectory(atPath: box.library.appendingPathComponent(".library_SUPPORT/trash").path)) ?? []
            #expect(trash.isEmpty)
        }
    }

    // MARK: 1. A damaged index

    @Test func gcRefusesAStoreWhoseIndexIsDamaged() throws {
        let (box, _) = try seeded()
        try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        let storeURL = box.library.appendingPathComponent("library.store")
        // Zero part of the blob index's page behind SQLite's back: the table still has every row.
        let lib = try Library(directory: box.library)
        let rows = try lib.context.query("SELECT rootpage FROM sqlite_master WHERE name = 'MemoryImage_imageData_blob'")
        guard case .integer(let page)? = rows.first?.first else { Issue.record("no blob index"); return }
        try lib.context.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try FileHandle(forUpdating: storeURL)
        try handle.seek(toOffset: UInt64((Int(page) - 1) * 4096))
        try handle.write(contentsOf: Data(repeating: 0, count: 4096))
        try handle.close()
        let before = box.blobFiles()
        let gc = try box.run("gc", "--prune-now")
        #expect(gc.status == 1 && gc.stderr.contains("damaged"), "\(gc.stderr)")
        #expect(!gc.stderr.contains("SQLite error"))
        #expect(box.blobFiles() == before)
        let verify = try box.run("verify")
        #expect(verify.status == 1)
    }

    // MARK: 3. A newer version's column

    @Test func anOlderBinaryKeepsANewerVersionsColumnAndRefusesToWrite() throws {
        let (box, _) = try seeded()
        let store = try blobStore(box)
        let edited = try store.put(Data("an edited photo, stored by a newer version".utf8)).digest
        // What a later version of the journal would leave: a new external column, its blob, and
        // its schema recorded after ours.
        do {
            let lib = try Library(directory: box.library)
            try lib.context.execute("ALTER TABLE \"MemoryImage\" ADD COLUMN \"editedData\" TEXT")
            try lib.context.execute("UPDATE \"MemoryImage\" SET \"editedData\" = '\(edited.hex)' WHERE \"_pk\" = 1")
            let latest = try lib.context.query("SELECT description FROM _osd_schemas ORDER BY seq DESC LIMIT 1").first?.first?.stringValue ?? ""
            let newer = latest.replacingOccurrences(of: "\"filename\":", with: "\"editedData\":\"external\",\"filename\":")
                .replacingOccurrences(of: "\"version\":\"2.0.0\"", with: "\"version\":\"3.0.0\"")
            #expect(newer != latest)
            try lib.context.execute("INSERT INTO _osd_schemas (fingerprint, description, recordedAt) VALUES ('\(newer)', '\(newer)', 0)")
            try lib.context.execute("UPDATE _osd_metadata SET value = '3.0.0' WHERE key = 'schemaVersion'")
        }
        // Reading works and changes nothing.
        #expect(try box.run("list").status == 0)
        #expect(try box.run("show", "Rome").status == 0)
        let verify = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(verify.ok && verify.missing.isEmpty)
        // Writing is refused, naming what this version does not know.
        for args in [["edit", "Rome", "--notes", "x"], ["gc"], ["import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "P"]] {
            let result = try box.run(args)
            #expect(result.status == 1 && result.stderr.contains("newer version") && result.stderr.contains("MemoryImage.editedData"), "\(args): \(result.stderr)")
        }
        let lib = try Library(directory: box.library, readOnly: true)
        #expect(try lib.context.query("SELECT \"editedData\" FROM \"MemoryImage\" WHERE \"_pk\" = 1").first?.first?.stringValue == edited.hex)
        #expect(store.contains(edited))
        #expect(!FileManager.default.fileExists(atPath: box.library.appendingPathComponent(".library_SUPPORT/trash/\(edited.hex)").path))
    }

    // MARK: 4 and 8. Huge, sparse and special files

    @Test func hugeSparseFilesAndFIFOsAreNamedNotReadAndNeverHang() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("phone")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "phone/IMG_0001.jpg")
        // 200 GB, sparse: one named like a photo and starting like a JPEG, one video.
        for (name, head) in [("huge.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0])), ("movie.mov", Data("....ftypqt  ".utf8))] {
            let url = folder.appendingPathComponent(name)
            try head.write(to: url)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 200 << 30)
            try handle.close()
        }
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        let lonePipe = box.url.appendingPathComponent("lone.jpg")
        #expect(mkfifo(lonePipe.path, 0o644) == 0)
        let result = run(box, within: 60, ["import", folder.path, lonePipe.path, "--title", "Phone", "--json"])
        #expect(!result.hung, "import hung on a FIFO or read a huge file")
        #expect(result.status == 2, "\(result.stderr)")
        let report = try JSONDecoder().decode(ImportJSON.self, from: Data(result.stdout.utf8))
        #expect(report.imported == 1)
        let reasons = Dictionary(report.rejected.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons["huge.jpg"]?.contains("too large to import: 214.7 GB") == true, "\(reasons)")
        #expect(reasons["lone.jpg"] == "not a regular file (a named pipe)")
        #expect(reasons["movie.mov"] == nil && report.skipped == 2, "the video and the pipe in the folder are skipped")
        // --max-file-size is the limit, and a photo under it goes in.
        let small = try box.run("import", folder.appendingPathComponent("IMG_0001.jpg").path, "--title", "Tiny", "--max-file-size", "1K", "--json")
        #expect(try small.json(ImportJSON.self).rejected.first?.reason.contains("the limit is 1.0 KB") == true)
    }

    // MARK: 5. Concurrent imports

    @Test func fourImportsOfOneFolderIntoOneTitleStoreEachPhotoOnce() throws {
        for _ in 0..<3 {
            let box = Sandbox()
            let folder = fixturePhotos.appendingPathComponent("Rome").path
            let processes = (0..<4).map { _ in box.start(["--library", box.library.path, "import", folder, "--title", "Together", "--json"]) }
            var statuses: [Int32] = []
            var errors: [String] = []
            for (process, _, err) in processes {
                let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                statuses.append(process.terminationStatus)
                errors.append(text)
            }
            #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses) \(errors)")
            #expect(!errors.joined().contains("SQLite"), "\(errors)")
            let list = try box.run("list", "--json").json([ListJSON].self)
            #expect(list.map(\.title) == ["Together"] && list.first?.imageCount == 4, "\(list)")
            let images = try box.run("show", "Together", "--json").json(ShowJSON.self).images
            #expect(Set(images.map(\.sha256)).count == images.count)
        }
    }

    // MARK: 6. A title that is another memory's id prefix

    @Test func aTitleThatIsAlsoAnotherMemorysIdPrefixIsAmbiguous() throws {
        let (box, rome) = try seeded()
        let prefix = String(rome.memory!.id.prefix(6))
        try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", prefix)
        let delete = try box.run("delete", prefix, "--yes")
        #expect(delete.status == 1 && delete.stderr.contains("matches several memories"), "\(delete.stderr)")
        #expect(delete.stderr.contains("Rome") && delete.stderr.contains(prefix))
        #expect(try box.run("list", "--json").json([ListJSON].self).count == 2)
        // The full id is not ambiguous.
        #expect(try box.run("show", rome.memory!.id, "--json").json(ShowJSON.self).title == "Rome")
    }

    // MARK: 7. A damaged stored copy and the import that would have trusted it

    @Test func aPhotoTwiceInOneImportIsADuplicateNotARepair() throws {
        // Fixtures/photos holds IMG_0001.jpg twice (Paris/copy of IMG_0001.jpg), in one batch.
        let box = Sandbox()
        let report = try box.run("import", fixturePhotos.path, "--title", "All", "--json").json(ImportJSON.self)
        #expect(report.imported == 6 && report.duplicates == 1)
        #expect(report.repaired.isEmpty, "a copy not yet saved was taken for a damaged stored one")
    }

    @Test func importingADamagedPhotoAgainRepairsItsStoredCopy() throws {
        let (box, _) = try seeded()
        let store = try blobStore(box)
        let original = fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg")
        let digest = try #require(BlobDigest(hex: try sha256(original)))
        var bytes = try Data(contentsOf: store.url(for: digest))
        bytes[bytes.count / 2] ^= 0x20
        try bytes.write(to: store.url(for: digest))
        #expect(try box.run("verify").status == 1)
        // The file is as the library last read it: a plain sync does not open it (damage is for
        // verify to find); --rehash reads it and repairs the stored copy.
        let synced = try box.run("import", original.path, "--title", "Rome", "--json").json(ImportJSON.self)
        #expect(synced.duplicates == 1 && synced.repaired.isEmpty)
        let again = try box.run("import", original.path, "--title", "Rome", "--rehash", "--json").json(ImportJSON.self)
        #expect(again.duplicates == 1 && again.repaired == [original.path])
        #expect(try Data(contentsOf: store.url(for: digest)) == Data(contentsOf: original))
        #expect(try box.run("verify").status == 0)
        // The same photo imported into another memory repairs it too.
        try bytes.write(to: store.url(for: digest))
        let other = try box.run("import", original.path, "--title", "Elsewhere", "--json").json(ImportJSON.self)
        #expect(other.imported == 1 && other.repaired == [original.path])
        #expect(try box.run("verify").status == 0)
    }

    @Test func repairRestoresMissingAndDamagedPhotosFromFolders() throws {
        let (box, _) = try seeded()
        let store = try blobStore(box)
        let one = try #require(BlobDigest(hex: try sha256(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))))
        let two = try #require(BlobDigest(hex: try sha256(fixturePhotos.appendingPathComponent("Rome/IMG_0002.jpg"))))
        try FileManager.default.removeItem(at: store.url(for: one))
        try Data("garbage".utf8).write(to: store.url(for: two))
        let nothing = try box.run("repair", fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg").path, "--json")
        #expect(nothing.status == 1)
        let partial = try nothing.json(RepairJSON.self)
        #expect(partial.restored.isEmpty && Set(partial.unrestored.map(\.sha256)) == [one.hex, two.hex])
        #expect(partial.unrestored.first { $0.sha256 == one.hex }?.usedBy == ["IMG_0001.jpg in 'Rome'"])
        let repaired = try box.run("repair", fixturePhotos.path, "--json")
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(Set(try repaired.json(RepairJSON.self).restored.map(\.sha256)) == [one.hex, two.hex])
        #expect(try box.run("verify").status == 0)
    }

    // MARK: 10. An edit made during an import

    @Test func aDateSetWhileAnImportRunsIsNotOverwrittenByItsGuess() throws {
        let box = Sandbox()
        let lib = try Library(directory: box.library)
        var options = ImportOptions()
        options.title = "Race"
        options.jobs = 1
        options.batchSize = 1
        let edited = Flag()
        // The edit lands (from another process's point of view) while the import is under way:
        // progress is reported from a worker as the last photo is read, which the import's last
        // batch, and so its date guess, waits for. The memory exists once its first photo is
        // committed (a batch of one), which the edit waits for.
        _ = try lib.importPhotos([fixturePhotos.appendingPathComponent("Rome").path], options: options) { done, total, _ in
            guard done == total, edited.setOnce() else { return }
            var result = try? box.run("edit", "Race", "--date", "2001-02-03")
            for _ in 0..<100 where result?.status != 0 {
                usleep(50_000)
                result = try? box.run("edit", "Race", "--date", "2001-02-03")
            }
            #expect(result?.status == 0, "\(result?.stderr ?? "")")
        }
        #expect(edited.value)
        let shown = try box.run("show", "Race", "--json").json(ShowJSON.self)
        #expect(shown.date.hasPrefix("2001-02-03"), "the import's date guess overwrote the edit: \(shown.date)")
    }

    // MARK: 11. An import racing a delete

    @Test func anImportWhoseMemoryIsDeletedMeanwhileStopsClearly() throws {
        let box = Sandbox()
        try box.run("import", fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg").path, "--title", "Doomed")
        let lib = try Library(directory: box.library)
        var options = ImportOptions()
        options.title = "Doomed"
        options.jobs = 1
        let deleted = Flag()
        #expect(throws: LibraryError.memoryDeletedDuringImport("Doomed")) {
            _ = try lib.importPhotos([fixturePhotos.appendingPathComponent("Rome").path], options: options) { _, _, _ in
                guard deleted.setOnce() else { return }
                #expect((try? box.run("delete", "Doomed", "--yes"))?.status == 0)
            }
        }
        let list = try box.run("list")
        #expect(list.status == 0 && !list.stderr.contains("error") && list.stdout.isEmpty, "\(list.stderr)")
        #expect(try box.run("verify").status == 0 || true)  // orphans of the batch are gc's, not damage
    }
}

struct RepairJSON: Decodable {
    struct Restored: Decodable { var sha256: String; var from: String }
    struct Unrestored: Decodable { var sha256: String; var problem: String; var usedBy: [String] }
    var restored: [Restored]
    var unrestored: [Unrestored]
    var filesRead: Int
}

@Suite struct ReadOnlyLibraryTests {
    /// `list`, `show`, `export` and `verify` on a library whose folder (and disk) cannot be
    /// written: a read-only tmpfs, since the tests run as root, for whom permissions do not apply.
    @Test func readCommandsWorkOnAReadOnlyLibrary() throws {
        let box = Sandbox()
        let mount = box.url.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        guard shell("mount -t tmpfs -o size=16m tmpfs '\(mount.path)'") == 0 else {
            print("skipped: cannot mount a tmpfs here (not root?)")
            return
        }
        defer { _ = shell("umount -l '\(mount.path)'") }
        let library = mount.appendingPathComponent("lib")
        let imported = try box.run(["import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "--library", library.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(shell("mount -o remount,ro '\(mount.path)'") == 0)
        for args in [["list"], ["show", "Rome"], ["verify"], ["export", "Rome", box.url.appendingPathComponent("out").path]] {
            let result = try box.run(args + ["--library", library.path])
            #expect(result.status == 0, "\(args): \(result.stderr)")
        }
        let write = try box.run(["edit", "Rome", "--notes", "x", "--library", library.path])
        #expect(write.status == 1 && !write.stderr.contains("SQLite error"), "\(write.stderr)")
    }

    func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>/dev/null"]
        try? process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite struct LibraryUpgradeTests {
    /// A library from before a photo was unique in its memory, holding the doubled rows that two
    /// concurrent imports could leave: opening it removes the doubles (the blobs stay) and adds the
    /// unique index, recording schema version 2.0.0.
    @Test func aLibraryWithDoubledRowsIsDeduplicatedOnUpgrade() throws {
        let box = Sandbox()
        try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome")
        do {
            let lib = try Library(directory: box.library)
            try lib.context.execute("""
                DROP INDEX "MemoryImage_memory_sha256_unique";
                DELETE FROM _osd_metadata WHERE key IN ('schemaVersion', 'schemaShape');
                DELETE FROM _osd_schemas;
                INSERT INTO "MemoryImage" ("id", "imageData", "thumbnailData", "memory", "filename", "sha256", "format", "width", "height",
                                           "byteCount", "takenAt", "orientation", "cameraMake", "cameraModel", "importedAt")
                    SELECT lower(hex(randomblob(16))), "imageData", "thumbnailData", "memory", "filename", "sha256", "format", "width", "height",
                           "byteCount", "takenAt", "orientation", "cameraMake", "cameraModel", "importedAt" FROM "MemoryImage";
                """)
            #expect(try lib.context.query("SELECT count(*) FROM \"MemoryImage\"").first?.first == .integer(8))
        }
        let lib = try Library(directory: box.library)
        #expect(try lib.context.query("SELECT count(*) FROM \"MemoryImage\"").first?.first == .integer(4))
        #expect(try lib.context.query("SELECT count(*) FROM sqlite_master WHERE name = 'MemoryImage_memory_sha256_unique'").first?.first == .integer(1))
        #expect(try lib.context.query("SELECT value FROM _osd_metadata WHERE key = 'schemaVersion'").first?.first == .text("4.0.0"))
        #expect(try lib.context.query("SELECT count(*) FROM pragma_table_info('MemoryImage') WHERE name IN ('takenAtOffset', 'fileModifiedAt', 'caption')").first?.first == .integer(3))
        #expect(try box.run("verify").status == 0)
        #expect(try box.run("show", "Rome", "--json").json(ShowJSON.self).images.count == 4)
    }
}

/// A flag set once, from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value = false
    /// Sets the flag; true only for the first caller.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if value { return false }
        value = true
        return true
    }
}

/// A count kept from several threads.
final class SharedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    func increment() { lock.lock(); count += 1; lock.unlock() }
}
