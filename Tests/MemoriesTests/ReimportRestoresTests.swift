import BlobStore
import BlobStoreS3
import Foundation
import Testing

/// Importing a folder again restores everything it can: the originals (as before) and the
/// thumbnails, so `verify` is healthy afterwards without `repair`: what is missing by a plain
/// re-sync, what is damaged by `--rehash` (a re-sync does not read unchanged files).
@Suite struct ReimportRestoresTests {
    @Test func aReimportMakesMissingAndDamagedThumbnailsAgain() throws {
        let box = Sandbox()
        let rome = fixturePhotos.appendingPathComponent("Rome")
        #expect(try box.run("import", rome.path, "--title", "Rome").status == 0)
        let store = try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
        let show = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        let originals = Set(show.images.map(\.sha256))
        let stored = box.blobFiles().map { ($0 as NSString).lastPathComponent }.filter { !originals.contains($0) }
        #expect(stored.count == 4, "4 thumbnails: \(stored)")
        let gone = try #require(BlobDigest(hex: stored[0])), damaged = try #require(BlobDigest(hex: stored[1]))
        try FileManager.default.removeItem(at: store.url(for: gone))
        var bytes = try Data(contentsOf: store.url(for: damaged))
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: store.url(for: damaged))
        #expect(try box.run("verify").status == 1)

        // A re-sync reads the files whose stored copies are missing (a stat finds them); a damaged
        // one is found by reading, which --rehash does for every file.
        let again = try box.run("import", rome.path, "--title", "Rome")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.components(separatedBy: "made the thumbnail of ").count - 1 == 1, "\(again.stderr)")
        #expect(try box.run("verify").status == 1)
        let rehashed = try box.run("import", rome.path, "--title", "Rome", "--rehash")
        #expect(rehashed.stderr.components(separatedBy: "made the thumbnail of ").count - 1 == 1, "\(rehashed.stderr)")
        #expect(try box.run("verify").status == 0)
    }

    @Test(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
    func aReimportIntoABucketWhoseObjectsWereDeletedRestoresThemAll() throws {
        let box = Sandbox()
        let name = "restore-" + UUID().uuidString.lowercased().prefix(16)
        let s3 = S3Client(location: try S3Location("s3://\(name)/journal", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
        try s3.createBucket()
        #expect(try box.run("init", "--blobs", "s3://\(name)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
        let rome = fixturePhotos.appendingPathComponent("Rome")
        #expect(try box.run("import", rome.path, "--title", "Rome").status == 0)
        for object in try s3.list(prefix: "sha256/") { try s3.delete(object.key) }
        #expect(try box.run("verify").status == 1)
        let again = try box.run("import", rome.path, "--title", "Rome")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("the photo store s3://\(name)/journal holds none of this library's 4 photos"), "said first: \(again.stderr)")
        #expect(try s3.list(prefix: "sha256/").count == 8)
        let verify = try box.run("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
    }
}
