import BlobStore
import BlobStoreS3
import Foundation
import Testing

/// A library whose photo store is gone (its folder moved away, or its bucket prefix emptied with
/// the owner record) while its store records photos: every command but verify and repair refuses,
/// naming what is gone, and nothing makes a new, empty store in its place.
@Suite struct VanishedPhotoStoreTests {
    static let refusingCommands: [[String]] = [
        ["list"], ["show", "Rome"], ["export", "Rome", "OUT"], ["edit", "Rome", "--notes", "n"], ["remove", "Rome", "IMG_0001.jpg"],
        ["gc"], ["delete", "Rome", "--yes"], ["import", "PARIS", "--title", "Paris"],
    ]

    /// A library holding Rome's 4 photos: the box, the folder they came from, the photo folder.
    static func romeImported() throws -> (Sandbox, URL, URL) {
        let box = Sandbox()
        let rome = fixturePhotos.appendingPathComponent("Rome")
        #expect(try box.run("import", rome.path, "--title", "Rome").status == 0)
        return (box, rome, box.library.appendingPathComponent(".library_SUPPORT"))
    }

    func refusals(_ box: Sandbox, place: String) throws {
        let paris = fixturePhotos.appendingPathComponent("Paris").path
        for command in Self.refusingCommands {
            let args = command.map { $0 == "OUT" ? box.url.appendingPathComponent("out-\(UUID().uuidString)").path : $0 == "PARIS" ? paris : $0 }
            let result = try box.run(args)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("the photos of the library at \(box.library.path) are kept in \(place), which is gone (moved, deleted, or not mounted): "
                                           + "its 4 photos would all be missing. Nothing was changed and nothing was made in its place."), "\(command): \(result.stderr)")
        }
        let verify = try box.run("verify")
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("problem: the photo store \(place) is gone"), "\(verify.stdout)")
        #expect(verify.stdout.contains("8 missing"), "4 photos and 4 thumbnails: \(verify.stdout)")
    }

    @Test func aMovedPhotoFolderIsRefusedByEveryCommandAndRepairBringsItBack() throws {
        let (box, rome, support) = try Self.romeImported()
        try FileManager.default.moveItem(at: support, to: box.url.appendingPathComponent("moved"))
        try refusals(box, place: support.path)
        #expect(!FileManager.default.fileExists(atPath: support.path), "no new, empty photo folder was made")
        let store = try box.run("show", "Rome", "--json")
        #expect(store.status == 1)

        // repair, from the folder the photos came from, makes it again, and the library is whole.
        let repaired = try box.run("repair", rome.path)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stdout.contains("8 restored, 0 not restored"), "\(repaired.stdout)")
        #expect(try box.run("verify").status == 0)
        #expect(try box.run("list").stdout.contains("4 photos"))
        #expect(try box.run("edit", "Rome", "--notes", "back").status == 0)
        #expect(FileManager.default.fileExists(atPath: support.appendingPathComponent("owner").path), "the next write claims the folder")
    }

    /// A library that never stored a photo has nothing to lose: its folder is made again.
    @Test func aLibraryWithoutPhotosMakesItsFolderAgain() throws {
        let box = Sandbox()
        #expect(try box.run("init").status == 0)
        try FileManager.default.removeItem(at: box.library.appendingPathComponent(".library_SUPPORT"))
        let imported = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try box.run("verify").status == 0)
    }

    @Test(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
    func anEmptiedBucketPrefixIsRefusedAndNothingIsWrittenThere() throws {
        let box = Sandbox()
        let name = "gone-" + UUID().uuidString.lowercased().prefix(16)
        let s3 = S3Client(location: try S3Location("s3://\(name)/journal", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
        try s3.createBucket()
        #expect(try box.run("init", "--blobs", "s3://\(name)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        // Everything under the prefix, the owner record too.
        for object in try s3.list(prefix: "") { try s3.delete(object.key) }
        #expect(try s3.list(prefix: "").isEmpty)
        try refusals(box, place: "s3://\(name)/journal")
        #expect(try s3.list(prefix: "").isEmpty, "no owner record, no object: nothing was made in its place")
    }
}

extension VanishedPhotoStoreTests {
    /// An empty folder in the photo folder's place (a mount point whose disk is not mounted) is
    /// left empty; a link to nothing in its place is said as such; photos only in the trash are
    /// the store's, not a vanished store.
    @Test func anEmptyMountPointADanglingLinkAndATrashOnlyStore() throws {
        let (box, rome, support) = try Self.romeImported()
        try FileManager.default.moveItem(at: support, to: box.url.appendingPathComponent("elsewhere"))
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: false)
        #expect(try box.run("edit", "Rome", "--notes", "n").status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: support.path).isEmpty, "nothing made in the mount point")
        try FileManager.default.removeItem(at: support)
        try FileManager.default.createSymbolicLink(atPath: support.path, withDestinationPath: "/nonexistent/disk/photos")
        let dangling = try box.run("import", rome.path, "--title", "Rome")
        #expect(dangling.status == 1 && dangling.stderr.contains("the library's photo folder \(support.path) is a symbolic link to /nonexistent/disk/photos, which does not exist"),
                "\(dangling.stderr)")
        try FileManager.default.removeItem(at: support)
        try FileManager.default.moveItem(at: box.url.appendingPathComponent("elsewhere"), to: support)
        // Every photo in the trash (the owner record gone too): gc puts them back.
        let store = try BlobStore(root: support)
        for file in box.blobFiles() { try store.moveToTrash(try #require(BlobDigest(hex: (file as NSString).lastPathComponent))) }
        try FileManager.default.removeItem(at: support.appendingPathComponent("owner"))
        let gc = try box.run("gc")
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try box.run("verify").status == 0)
    }
}

extension VanishedPhotoStoreTests {
    /// The photo folder there with its owner file, but its `sha256` folder gone (second outside
    /// attack: an import went on storing into it, and gc said nothing): every writer says what is
    /// missing and how to put it back, and goes on; an import of the same folder puts its photos
    /// back (as a re-import into an emptied bucket does); repair the rest. A photo folder that is
    /// a file is said as such.
    @Test func aPhotoFolderEmptiedOfItsPhotosIsSaidByWriters() throws {
        let (box, rome, support) = try Self.romeImported()
        try FileManager.default.removeItem(at: support.appendingPathComponent("sha256"))
        let note = "the photo store \(support.path) holds none of this library's 4 photos (deleted, or moved out of it): `memories verify` lists them"
        let gc = try box.run("gc")
        #expect(gc.status == 0 && gc.stderr.contains(note), "\(gc.stderr)")
        #expect(!(try box.run("list").stderr.contains(note)), "a reader is not told (it does not ask the store)")
        let paris = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        #expect(paris.status == 0 && paris.stderr.contains(note), "\(paris.stderr)")
        #expect(!(try box.run("edit", "Paris", "--notes", "n").stderr.contains("holds none")), "said while none is there")
        let verify = try box.run("verify")
        #expect(verify.status == 1 && verify.stdout.contains("6 missing"), "Rome's 4 photos and 4 thumbnails, but for the one Paris shares: \(verify.stdout)")
        #expect(try box.run("import", rome.path, "--title", "Rome").status == 0)
        #expect(try box.run("verify").status == 0)

        try FileManager.default.moveItem(at: support, to: box.url.appendingPathComponent("aside"))
        try Data("x".utf8).write(to: support)
        let file = try box.run("list")
        #expect(file.status == 1 && file.stderr.contains("the library's photo folder \(support.path) is a file, not a folder: move it away"), "\(file.stderr)")
    }

    /// A damaged blobs.json is said in words, not as a DecodingError.
    @Test func aDamagedSettingsFileIsSaidInWords() throws {
        let box = Sandbox()
        #expect(try box.run("init").status == 0)
        let settings = box.library.appendingPathComponent("blobs.json")
        for (text, reason) in [("{\"kind\": 3", "it is not JSON"), ("[]", "it should be an object"), ("{}", "\"url\" is missing"),
                               ("{\"url\": 3}", "\"url\" should be text")] {
            try Data(text.utf8).write(to: settings)
            let result = try box.run("list")
            #expect(result.status == 1 && result.stderr.contains("\(settings.path) cannot be read (\(reason)); it says where this library's photos are"),
                    "\(text): \(result.stderr)")
            #expect(!result.stderr.contains("DecodingError"))
        }
        try FileManager.default.removeItem(at: settings)
        try FileManager.default.createSymbolicLink(atPath: settings.path, withDestinationPath: "/nonexistent/blobs.json")
        let dangling = try box.run("list")
        #expect(dangling.status == 1 && dangling.stderr.contains("it is a symbolic link to /nonexistent/blobs.json, which is not there"), "\(dangling.stderr)")
    }
}
