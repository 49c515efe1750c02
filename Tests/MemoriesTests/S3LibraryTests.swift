import BlobStore
import Foundation
import Testing

/// A real S3 service for the tests (`scripts/s3-test-cluster.sh start`, which scripts/test.sh does).
let s3LibraryEndpoint = ProcessInfo.processInfo.environment["S3_TEST_ENDPOINT"]

/// The journal with its photos in an S3 bucket, end to end through the `memories` program.
@Suite(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3LibraryTests {
    /// A new bucket, and a client on `prefix` in it.
    func bucket(prefix: String = "journal") throws -> S3Client {
        let name = "lib-" + UUID().uuidString.lowercased().prefix(16)
        let client = S3Client(location: try S3Location("s3://\(name)/\(prefix)", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
        try client.createBucket()
        return client
    }

    @Test func everyCommandWorksOnALibraryWhosePhotosAreInABucket() throws {
        let box = Sandbox()
        let s3 = try bucket()
        let url = "s3://\(s3.location.bucket)/journal"
        // A missing bucket is refused, naming it, and leaves the folder as it was.
        let missing = try box.run("init", "--blobs", "s3://no-such-bucket-\(UUID().uuidString.prefix(6).lowercased())/j", "--endpoint", s3LibraryEndpoint!)
        #expect(missing.status == 1 && missing.stderr.contains("the bucket does not exist"), "\(missing.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: box.library.path)) ?? []).isEmpty)
        #expect(try box.run("init", "--blobs", url).status == 64, "--blobs needs --endpoint")
        let made = try box.run("init", "--blobs", url, "--endpoint", s3LibraryEndpoint!)
        #expect(made.status == 0 && made.stdout.contains(url), "\(made.stderr)")
        let settings = try String(contentsOf: box.library.appendingPathComponent("blobs.json"), encoding: .utf8)
        #expect(settings.contains(url) && !settings.contains("testsecretkey") && !settings.contains("testaccesskey"), "no keys written: \(settings)")
        #expect(try box.run("init").status == 1, "a second init on the same folder is refused")

        // Import, list, show: the originals and thumbnails are objects, none in the folder.
        let rome = fixturePhotos.appendingPathComponent("Rome")
        let imported = try box.run("import", rome.path, "--title", "Rome", "--json")
        #expect(imported.status == 0, "\(imported.stderr)")
        let blobs = try s3.list(prefix: "sha256/")
        #expect(blobs.count == 8, "4 originals and 4 thumbnails: \(blobs.map(\.key))")
        #expect(!FileManager.default.fileExists(atPath: box.library.appendingPathComponent(".library_SUPPORT/sha256").path))
        #expect(try box.run("list").stdout.contains("4 photos"))
        let show = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        #expect(show.images.count == 4)

        // Export gives back every original byte for byte.
        let out = box.url.appendingPathComponent("export")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        for image in show.images {
            #expect(try sha256(out.appendingPathComponent(image.filename)) == image.sha256)
        }
        #expect(try box.run("verify").status == 0)

        // An original deleted behind the library's back: verify names it; repair puts it back.
        let victim = try #require(show.images.first)
        try s3.delete("sha256/\(victim.sha256.prefix(2))/\(victim.sha256)")
        let broken = try box.run("verify", "--json")
        #expect(broken.status == 1 && broken.stdout.contains(victim.sha256), "\(broken.stdout)")
        let repaired = try box.run("repair", rome.path)
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        #expect(try box.run("verify").status == 0)
        #expect(try s3.head("sha256/\(victim.sha256.prefix(2))/\(victim.sha256)") != nil)

        // Delete, then gc: to the bucket's trash first, then gone.
        #expect(try box.run("delete", "Rome", "--yes").status == 0)
        #expect(try s3.list(prefix: "sha256/").isEmpty)
        #expect(try s3.list(prefix: "trash/").count == 8)
        #expect(try box.run("gc", "--prune-now").status == 0)
        #expect(try s3.list(prefix: "trash/").isEmpty)

        // Another library on the same prefix would decide what is unused from an empty store: refused.
        let other = Sandbox()
        let second = try other.run("init", "--blobs", url, "--endpoint", s3LibraryEndpoint!)
        #expect(second.status == 1 && second.stderr.contains("does not belong"), "\(second.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: other.library.path)) ?? []).isEmpty)
    }

    @Test func wrongCredentialsAndAStoppedServiceAreSaidPlainly() throws {
        let box = Sandbox()
        let s3 = try bucket()
        #expect(try box.run("init", "--blobs", "s3://\(s3.location.bucket)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
        // Opening checks the store against the bucket's owner record, so even `list` needs the keys.
        let wrong = try box.run("list", environment: ["AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(wrong.status == 1 && wrong.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(wrong.stderr)")
        let refused = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome",
                                  environment: ["AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(refused.status == 1 && refused.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(refused.stderr)")
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty, "nothing was imported")
        // Nothing listening at the endpoint: a network error naming it.
        let settings = box.library.appendingPathComponent("blobs.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try text.replacingOccurrences(of: s3LibraryEndpoint!, with: "http://127.0.0.1:9").write(to: settings, atomically: true, encoding: .utf8)
        let down = try box.run("list")
        #expect(down.status == 1 && down.stderr.contains("127.0.0.1:9"), "\(down.stderr)")
        try text.write(to: settings, atomically: true, encoding: .utf8)
        let noKeys = try box.run("list", environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": box.url.path])
        #expect(noKeys.status == 1 && noKeys.stderr.contains("no S3 credentials"), "\(noKeys.stderr)")
    }
}
