@testable import BlobStore
@testable import BlobStoreS3
import Foundation
import Testing

/// gc and verify say what they could not read or do, and count only what was done; `gc -n`
/// predicts exactly what `gc` then reports.
@Suite struct GCHonestyTests {
    /// A library of Rome (4 photos) whose folder holds two unused files and whose trash holds one
    /// of Rome's photos (in use, so gc puts it back) and Paris's own 2 photos and thumbnails.
    func state() throws -> (Sandbox, BlobStore) {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        #expect(try box.run("delete", "Paris", "--yes").status == 0)
        let store = try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
        for text in ["an orphan", "another orphan"] { _ = try store.put(Data(text.utf8)) }
        let rome = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        try store.moveToTrash(try #require(BlobDigest(hex: rome.images[0].sha256)))
        return (box, store)
    }

    /// `memories ARGS` without the capabilities that let root read any folder (CAP_DAC_OVERRIDE,
    /// CAP_DAC_READ_SEARCH), so that a folder's mode applies to the tests, which run as root.
    func runWithoutOverride(_ box: Sandbox, _ args: [String]) throws -> Sandbox.Result {
        try box.run(wrappedBy: ["/usr/bin/setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"], args)
    }

    @Test func aDryRunPredictsExactlyWhatTheRunReports() throws {
        for flags in [[String](), ["--prune-now"]] {
            let (box, _) = try state()
            let predicted = try box.run(["gc", "-n", "--json"] + flags).json(GCJSON.self)
            let done = try box.run(["gc", "--json"] + flags).json(GCJSON.self)
            #expect(predicted.dryRun && !done.dryRun)
            #expect(predicted.orphanBlobs == 2 && predicted.restoredBlobs == 1, "\(predicted)")
            #expect(predicted.prunedBlobs == (flags.isEmpty ? 0 : 4), "Paris's 2 photos of its own and their thumbnails: \(predicted)")
            func figures(_ r: GCJSON) -> [Int] {
                [r.orphanBlobs, r.orphanBytes, r.prunedBlobs, r.bytesFreed, r.restoredBlobs, r.tempFilesRemoved, r.trashBlobs, r.trashBytes]
            }
            #expect(figures(predicted) == figures(done), "\(flags): predicted \(predicted), did \(done)")
            #expect(predicted.orphans == done.orphans)
            #expect(try box.run("verify").status == 0)
        }
    }

    /// The same on a library whose photos are in a bucket (the dry run left out the files it
    /// would move to the trash).
    @Test(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
    func aDryRunPredictsExactlyWhatTheRunReportsInABucket() throws {
        for flags in [[String](), ["--prune-now"]] {
            let box = Sandbox()
            let name = "gc-" + UUID().uuidString.lowercased().prefix(16)
            let s3 = S3Client(location: try S3Location("s3://\(name)/journal", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
            try s3.createBucket()
            #expect(try box.run("init", "--blobs", "s3://\(name)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
            #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
            #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
            #expect(try box.run("delete", "Paris", "--yes").status == 0)
            let orphan = Data("an orphan in a bucket".utf8)
            try s3.put(S3BlobStore.key(for: SHA256.digest(orphan)), data: orphan)
            sleep(2)  // older than gc's grace period of 0 s at the service's one-second resolution
            let predicted = try box.run(["gc", "-n", "--json"] + flags).json(GCJSON.self)
            let done = try box.run(["gc", "--json"] + flags).json(GCJSON.self)
            #expect(predicted.orphanBlobs == 1 && predicted.prunedBlobs == (flags.isEmpty ? 0 : 4), "\(predicted)")
            #expect(predicted.trashBlobs == done.trashBlobs && predicted.trashBytes == done.trashBytes && predicted.prunedBlobs == done.prunedBlobs
                    && predicted.orphanBytes == done.orphanBytes, "\(flags): predicted \(predicted), did \(done)")
        }
    }

    /// A folder in the trash under a photo's name is not a trashed photo: it is left, said, and
    /// not counted as deleted (it was).
    @Test func whatGCCannotDeleteIsNotCountedAsDeleted() throws {
        let (box, store) = try state()
        let trash = box.library.appendingPathComponent(".library_SUPPORT/trash")
        let impostor = trash.appendingPathComponent(String(repeating: "ab", count: 32))
        try FileManager.default.createDirectory(at: impostor, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: impostor.appendingPathComponent("inside"))
        let before = try store.trashSummary()
        let gc = try box.run("gc", "--prune-now", "--json")
        #expect(gc.status == 0, "\(gc.stderr)")
        let report = try gc.json(GCJSON.self)
        #expect(report.prunedBlobs == before.count - 1, "the files in the trash but the one put back")
        #expect(report.trashBlobs == 2 && report.warnings?.contains("\(impostor.path) is not a file (a folder or a link), so it is not a trashed photo: left as it is") == true,
                "\(report.warnings ?? [])")
        #expect(FileManager.default.fileExists(atPath: impostor.appendingPathComponent("inside").path))
    }

    /// A folder of photos that cannot be read: gc does what does not depend on it, names it, moves
    /// nothing out of it, and exits 1; verify says it in words and is not healthy.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv (util-linux)"))
    func anUnreadableFolderMakesGCAndVerifyFailNamingIt() throws {
        let (box, store) = try state()
        let rome = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        let digest = try #require(BlobDigest(hex: rome.images[1].sha256))
        let folder = store.url(for: digest).deletingLastPathComponent()
        let held = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        chmod(folder.path, 0)
        defer { chmod(folder.path, 0o700) }

        let gc = try runWithoutOverride(box, ["gc", "--prune-now"])
        #expect(gc.status == 1, "\(gc.stdout)\(gc.stderr)")
        #expect(gc.stderr.contains("a folder of photos \(folder.path) cannot be read (Permission denied): nothing in it was looked at, moved or removed; "
                                   + "make it readable by you again (chmod u+rwx \(folder.path))"), "\(gc.stderr)")
        let verify = try runWithoutOverride(box, ["verify"])
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("problem: a folder of photos \(folder.path) cannot be read (Permission denied): what it holds could not be checked"), "\(verify.stdout)\(verify.stderr)")
        #expect(!verify.stdout.contains("missing: \(digest.hex)"), "not known to be missing: \(verify.stdout)")
        #expect(!(verify.stdout + verify.stderr).contains("opendir"))

        chmod(folder.path, 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == held, "nothing in it was moved")
        #expect(try box.run("verify").status == 0)
    }

    /// Files named like photos, `days` old, in a folder outside the library.
    func outsideFiles(_ box: Sandbox, days: Int, prefix: String? = nil) throws -> (URL, [String]) {
        let outside = box.url.appendingPathComponent("outside-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        var names: [String] = []
        var i = 0
        while names.count < 3 {
            let data = Data("not the library's \(i)".utf8)
            i += 1
            let hex = SHA256.digest(data).hex
            if let prefix, !hex.hasPrefix(prefix) { continue }
            try data.write(to: outside.appendingPathComponent(hex))
            var old = [timespec(tv_sec: time(nil) - days * 86400, tv_nsec: 0), timespec(tv_sec: time(nil) - days * 86400, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, outside.appendingPathComponent(hex).path, &old, 0)
            names.append(hex)
        }
        return (outside, names)
    }

    /// The trash, or a fan-out folder, replaced by a link to a folder outside the library: never
    /// followed; gc names it and exits 1, and the files there stay where they are.
    @Test func aLinkInPlaceOfTheTrashOrAFolderOfPhotosIsNotFollowed() throws {
        let (box, _) = try state()
        let support = box.library.appendingPathComponent(".library_SUPPORT")
        let (outside, names) = try outsideFiles(box, days: 30)
        try FileManager.default.moveItem(at: support.appendingPathComponent("trash"), to: box.url.appendingPathComponent("old-trash"))
        try FileManager.default.createSymbolicLink(at: support.appendingPathComponent("trash"), withDestinationURL: outside)
        let gc = try box.run("gc", "--prune-now")
        #expect(gc.status == 1)
        #expect(gc.stderr.contains("the trash \(support.path)/trash is a symbolic link or not a folder, and is not followed"), "\(gc.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: outside.path)) == Set(names), "nothing deleted outside")

        let box2 = try state().0
        let support2 = box2.library.appendingPathComponent(".library_SUPPORT")
        let (elsewhere, unused) = try outsideFiles(box2, days: 1, prefix: "ee")
        try? FileManager.default.removeItem(at: support2.appendingPathComponent("sha256/ee"))
        try FileManager.default.createSymbolicLink(at: support2.appendingPathComponent("sha256/ee"), withDestinationURL: elsewhere)
        let sweep = try box2.run("gc")
        #expect(sweep.status == 1)
        #expect(sweep.stderr.contains("a folder of photos \(support2.path)/sha256/ee is a symbolic link or not a folder, and is not followed"), "\(sweep.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path)) == Set(unused), "nothing moved from outside")
    }

    /// An unused photo both stored and already in the trash (an import killed after storing
    /// photos that were in the trash): moved there once, not deleted in the same run, and the
    /// dry run predicts it.
    @Test func anUnusedPhotoAlsoInTheTrashIsNotDeletedTheRunItIsMoved() throws {
        let (box, store) = try state()
        let data = Data("stored and trashed".utf8)
        let digest = try store.put(data).digest
        let copy = box.url.appendingPathComponent("copy")
        try data.write(to: copy)
        try FileManager.default.copyItem(at: copy, to: URL(fileURLWithPath: store.trashPath(for: digest)))
        var old = [timespec(tv_sec: time(nil) - 10 * 86400, tv_nsec: 0), timespec(tv_sec: time(nil) - 10 * 86400, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, store.trashPath(for: digest), &old, 0)
        let predicted = try box.run("gc", "-n", "--json").json(GCJSON.self)
        let done = try box.run("gc", "--json").json(GCJSON.self)
        #expect(predicted.trashBlobs == done.trashBlobs && predicted.prunedBlobs == done.prunedBlobs && predicted.trashBytes == done.trashBytes,
                "predicted \(predicted), did \(done)")
        #expect(store.trashContains(digest), "moved to the trash, and waiting there")
    }

    /// A folder in the folder of partial writes is not a partial write; a trashed file whose time
    /// of removal is before any store existed (a clock in 1970) waits the grace period from now.
    @Test func aFolderInTmpAndATrashTimeFromABrokenClockAreLeft() throws {
        let (box, store) = try state()
        let tmp = box.library.appendingPathComponent(".library_SUPPORT/tmp/left-folder")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        var old = [timespec(tv_sec: time(nil) - 2 * 86400, tv_nsec: 0), timespec(tv_sec: time(nil) - 2 * 86400, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, tmp.path, &old, 0)
        let paris = try #require(try FileManager.default.contentsOfDirectory(atPath: box.library.appendingPathComponent(".library_SUPPORT/trash").path)
            .compactMap { BlobDigest(hex: $0) }.first { store.trashContains($0) })
        var epoch = [timespec(tv_sec: 86400, tv_nsec: 0), timespec(tv_sec: 86400, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, store.trashPath(for: paris), &epoch, 0)
        let predicted = try box.run("gc", "-n", "--json")
        let done = try box.run("gc", "--json")
        #expect(predicted.status == 0 && done.status == 0, "\(done.stderr)")
        let (p, d) = (try predicted.json(GCJSON.self), try done.json(GCJSON.self))
        #expect(p.tempFilesRemoved == 0 && d.tempFilesRemoved == 0 && FileManager.default.fileExists(atPath: tmp.path))
        #expect(d.warnings?.contains { $0.contains("is not a file, so it is not a partial write") } == true, "\(d.warnings ?? [])")
        #expect(d.warnings?.contains { $0.hasPrefix("\(paris.hex) was put in the trash at a time when the clock was wrong") } == true, "\(d.warnings ?? [])")
        #expect(store.trashContains(paris) && d.prunedBlobs == 0)
        var info = stat()
        #expect(stat(store.trashPath(for: paris), &info) == 0 && info.st_mtim.tv_sec > time(nil) - 60, "its time is now")
    }
}
