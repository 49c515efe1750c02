import Foundation
import Testing
import BlobStore
import BlobStoreS3
@testable import OpenSwiftData

/// A real S3 service for the tests (`scripts/s3-test-cluster.sh start`, which scripts/test.sh does).
let s3TestEndpoint = ProcessInfo.processInfo.environment["S3_TEST_ENDPOINT"]

/// `.externalStorage` values in an S3 bucket, chosen by the configuration's `blobBackend`.
@Suite(.enabled(if: s3TestEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3ExternalStorageTests {
    /// A store in `dir` whose external values go to a new bucket (or `bucket`).
    func s3Container(_ dir: TemporaryDirectory, bucket: String? = nil, store: String = "journal.store") throws -> (ModelContainer, S3BlobStore) {
        let name = bucket ?? "osd-" + UUID().uuidString.lowercased().prefix(16)
        let client = S3Client(location: try S3Location("s3://\(name)/blobs", endpoint: s3TestEndpoint!), credentials: try S3Credentials.resolve())
        try client.createBucket()
        let blobs = try S3BlobStore(client: client, lockDirectory: dir.url.appendingPathComponent("lock-\(store)"))
        let schema = Schema([Memory.self, MemoryImage.self])
        var configuration = ModelConfiguration(schema: schema, url: dir.store(store))
        configuration.blobBackend = blobs
        return (try ModelContainer(for: schema, configurations: [configuration]), blobs)
    }

    @Test func valuesAreStoredInTheBucketReadBackAndReleasedToItsTrash() throws {
        let dir = TemporaryDirectory()
        let (c, blobs) = try s3Container(dir)
        let context = ModelContext(c)
        let rome = Memory(title: "Rome", date: .now, notes: "", images: [image("shared"), image("only-rome")])
        context.insert(rome)
        context.insert(Memory(title: "Paris", date: .now, notes: "", images: [image("shared")]))
        try context.save()
        let shared = SHA256.digest(Data("shared".utf8)), onlyRome = SHA256.digest(Data("only-rome".utf8))
        #expect(try blobs.contains(shared) && blobs.contains(onlyRome))
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent(".journal_SUPPORT/sha256").path),
                "nothing in a local blob folder")
        #expect(try blobs.owner() == SQLiteProbe(dir.store("journal.store")).scalar("SELECT value FROM _osd_metadata WHERE key = 'storeIdentifier'"))
        // Read back through a fresh context, from the bucket.
        let fresh = ModelContext(c)
        let memories = try fresh.fetch(FetchDescriptor<Memory>(sortBy: [SortDescriptor(\.title)]))
        #expect(Set(memories[1].images.map(imageText)) == ["shared", "only-rome"])
        // Deleting Rome releases only the blob no other row uses, into the bucket's trash.
        fresh.delete(memories[1])
        try fresh.save()
        #expect(try blobs.contains(shared) && !blobs.contains(onlyRome))
        #expect(try blobs.client.head("trash/\(onlyRome.hex)") != nil)
        #expect(try c.verifyExternalStorage().isHealthy)
        let gc = try c.collectGarbage(gracePeriod: 0, pruneNow: true)
        #expect(gc.prunedBlobs == 1 && gc.orphanBlobs == 0)
        #expect(try blobs.client.list(prefix: "trash/").isEmpty && blobs.contains(shared))
    }

    /// Uploads run in the background during a save; if one fails, the save fails before its
    /// SQLite commit, so no row references a blob the service does not have.
    @Test func aFailedUploadFailsTheSaveAndCommitsNoRow() throws {
        let dir = TemporaryDirectory()
        let (c, blobs) = try s3Container(dir)
        // The bucket goes away under the open container (its owner object first, so it is empty).
        try blobs.client.delete("owner")
        try blobs.client.deleteBucket()
        let context = ModelContext(c)
        context.insert(Memory(title: "Lost", date: .now, notes: "", images: [image("a"), image("b"), image("c")]))
        let failure = #expect(throws: S3Error.self) { try context.save() }
        #expect(failure?.code == "NoSuchBucket", "\(String(describing: failure))")
        #expect(try SQLiteProbe(dir.store("journal.store")).scalar("SELECT count(*) FROM MemoryImage") == "0")
        #expect(try SQLiteProbe(dir.store("journal.store")).scalar("SELECT count(*) FROM Memory") == "0")
        #expect(context.hasChanges, "the changes stay pending")
    }

    @Test func anEmptyStoreOnABucketThatHoldsAnotherStoresBlobsCollectsNothing() throws {
        let dir = TemporaryDirectory()
        let (c, blobs) = try s3Container(dir)
        let context = ModelContext(c)
        context.insert(Memory(title: "Rome", date: .now, notes: "", images: [image("kept")]))
        try context.save()
        let kept = SHA256.digest(Data("kept".utf8))
        // A new, empty store pointed at the same bucket (a lost or replaced database).
        let (other, _) = try s3Container(dir, bucket: blobs.client.location.bucket, store: "other.store")
        guard case .storeIdentityMismatch? = other.identityProblem else {
            Issue.record("no identity problem reported: \(String(describing: other.identityProblem))")
            return
        }
        #expect(throws: ModelError.self) { try other.collectGarbage(gracePeriod: 0, pruneNow: true) }
        #expect(try blobs.contains(kept), "the other store's photo is still there")
    }
}
