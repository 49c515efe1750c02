import Foundation
import Testing
@testable import BlobStore
@testable import BlobStoreS3

/// The S3 store keeps the local store's rules, against a real service (see S3ClientTests).
@Suite(.enabled(if: s3Endpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3BlobStoreTests {
    final class Fixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3store-\(UUID().uuidString)")
        let s3: S3Client
        let store: S3BlobStore
        init() throws {
            s3 = try freshS3()
            store = try S3BlobStore(client: s3, lockDirectory: folder)
        }
        deinit { try? FileManager.default.removeItem(at: folder) }

        func file(_ name: String, _ data: Data) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            return url
        }
    }

    @Test func aBlobIsStoredOnceUnderItsDigestAndReadBackReHashed() throws {
        let f = try Fixture()
        let data = Data("IMG_0001.JPG, as bytes".utf8)
        let first = try f.store.put(data)
        #expect(first.isNew && first.digest == SHA256.digest(data))
        #expect(try f.store.put(data).isNew == false, "a duplicate hit uploads nothing")
        let fromFile = try f.store.put(contentsOf: f.file("copy.jpg", data))
        #expect(fromFile.digest == first.digest && !fromFile.isNew)
        #expect(try f.s3.list().map(\.key) == [S3BlobStore.key(for: first.digest)])
        #expect(try f.store.read(first.digest) == data)
        let out = f.folder.appendingPathComponent("exported.jpg")
        try f.store.export(first.digest, to: out)
        #expect(try Data(contentsOf: out) == data)
        #expect(try f.store.contains(first.digest))
    }

    @Test func anObjectChangedBehindTheStoresBackIsNamedAndRepairedByAPutOfTheRightBytes() throws {
        let f = try Fixture()
        let data = Data("the original photo".utf8)
        let digest = try f.store.put(data).digest
        let key = S3BlobStore.key(for: digest)
        // Overwritten with other bytes of the same length: reads refuse it, verify names it.
        try f.s3.put(key, data: Data("THE ORIGINAL PHOTO".utf8))
        #expect(throws: BlobStoreError.self) { try f.store.read(digest) }
        let out = f.folder.appendingPathComponent("x.jpg")
        #expect(throws: BlobStoreError.self) { try f.store.export(digest, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out.path), "nothing published under the name")
        let report = try f.store.verify(expected: { [digest] })
        #expect(report.corrupt == [digest] && !report.isHealthy)
        // A put of the right bytes sees the ETag differ and uploads them again.
        #expect(try f.store.put(data).isNew)
        #expect(try f.store.read(digest) == data)
        #expect(try f.store.verify(expected: { [digest] }).isHealthy)
        // Deleted behind its back: verify names it missing; a read says missing.
        try f.s3.delete(key)
        #expect(try f.store.verify(expected: { [digest] }).missing == [digest])
        #expect(throws: BlobStoreError.missing(digest)) { try f.store.read(digest) }
    }

    /// An object uploaded in parts is recognised by its multipart ETag, computed from the file:
    /// one of the same size with other bytes under the name is replaced, not taken as a duplicate.
    @Test func aMultipartObjectWithOtherBytesUnderTheNameIsReplaced() throws {
        let f = try Fixture()
        f.s3.multipartThreshold = 6 << 20
        f.s3.partSize = 5 << 20
        let bytes = Data((0..<(7 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try f.file("big.jpg", bytes)
        let first = try f.store.put(contentsOf: file)
        #expect(first.isNew)
        #expect(try f.store.put(contentsOf: file).isNew == false, "its own multipart ETag is recognised")
        // Other bytes of the same length, in parts, under the same name.
        var other = bytes
        other[12345] ^= 0xFF
        try f.s3.put(S3BlobStore.key(for: first.digest), file: f.file("other.jpg", other).path, sha256: nil)
        #expect(try f.store.put(contentsOf: file).isNew, "a differing object is uploaded again")
        #expect(try f.store.read(first.digest) == bytes)
    }

    /// Multipart uploads of blob keys a killed process left unfinished (parts stored and billed,
    /// no object) are aborted by a sweep once older than its upload grace period; younger ones,
    /// everything in a dry run, and uploads of any other key (another tool's) are left.
    @Test func sweepAbortsUploadsLeftUnfinished() throws {
        let f = try Fixture()
        let kept = try f.store.put(Data("kept".utf8)).digest
        let left = try f.s3.beginUpload(S3BlobStore.key(for: BlobDigest(exactHex: String(repeating: "ab", count: 32))!), what: "test")
        let trash = try f.s3.beginUpload("trash/" + String(repeating: "cd", count: 32), what: "test")
        let stray = try f.s3.beginUpload("sha256/notes.txt", what: "test")
        defer { for upload in [trash, stray] { try? f.s3.abort(upload) } }
        #expect(Set(try f.s3.unfinishedUploads().map(\.uploadId)) == [left.uploadId, trash.uploadId, stray.uploadId])
        #expect(try f.s3.unfinishedUploads().allSatisfy { $0.initiated != nil })
        let young = try f.store.sweep(gracePeriod: -1) { [kept] }
        #expect(young.tempFilesRemoved == 0)
        #expect(try f.s3.unfinishedUploads().count == 3)
        let dry = try f.store.sweep(gracePeriod: -1, dryRun: true, uploadGracePeriod: -1) { [kept] }
        #expect(dry.tempFilesRemoved == 1)
        #expect(try f.s3.unfinishedUploads().count == 3)
        let swept = try f.store.sweep(gracePeriod: -1, uploadGracePeriod: -1) { [kept] }
        #expect(swept.tempFilesRemoved == 1 && swept.warnings.isEmpty)
        #expect(Set(try f.s3.unfinishedUploads().map(\.uploadId)) == [trash.uploadId, stray.uploadId])
        #expect(try f.store.contains(kept))
        try f.s3.abort(left)  // gone already: not an error
    }

    /// An upload without an id is never aborted: `DELETE key?uploadId=` deletes the object on Ceph.
    @Test func anUploadWithoutAnIdIsNotAborted() throws {
        let f = try Fixture()
        let digest = try f.store.put(Data("a photo".utf8)).digest
        #expect(throws: S3Error.self) { try f.s3.abort(S3Upload(key: S3BlobStore.key(for: digest), uploadId: "", initiated: nil)) }
        #expect(try f.store.read(digest) == Data("a photo".utf8))
    }

    @Test func sweepTrashesOnlyUnreferencedOldBlobsRestoresReferencedOnesAndPrunesLater() throws {
        let f = try Fixture()
        let kept = try f.store.put(Data("kept".utf8)).digest
        let orphan = try f.store.put(Data("orphan".utf8)).digest
        // Young orphans are kept (a writer may be about to commit its reference).
        let young = try f.store.sweep(gracePeriod: 3600) { [kept] }
        #expect(young.keptYoung == 1 && young.orphanBlobs == 0)
        // Past the grace period: to the trash, not deleted; the dry run changes nothing.
        let dry = try f.store.sweep(gracePeriod: -1, dryRun: true) { [kept] }
        #expect(dry.orphans == [orphan] && dry.dryRun)
        #expect(try f.store.contains(orphan))
        let swept = try f.store.sweep(gracePeriod: -1) { [kept] }
        #expect(swept.orphans == [orphan] && swept.trash.count == 1)
        #expect(try !f.store.contains(orphan) && f.store.contains(kept))
        #expect(try f.store.read(orphan) == Data("orphan".utf8), "a read finds a trashed blob")
        let exported = f.folder.appendingPathComponent("orphan.jpg")
        try f.store.export(orphan, to: exported)
        #expect(try Data(contentsOf: exported) == Data("orphan".utf8), "and so does an export")
        // Referenced again (a restored database): back from the trash.
        let back = try f.store.sweep(gracePeriod: -1) { [kept, orphan] }
        #expect(back.restoredBlobs == 1 && back.trash.count == 0)
        #expect(try f.store.contains(orphan))
        // Unreferenced again, then pruned: gone for good only past the trash's grace period.
        _ = try f.store.sweep(gracePeriod: -1) { [kept] }
        let notYet = try f.store.sweep(gracePeriod: -1) { [kept] }
        #expect(notYet.prunedBlobs == 0 && notYet.trash.count == 1)
        let pruned = try f.store.sweep(gracePeriod: -1, pruneNow: true) { [kept] }
        #expect(pruned.prunedBlobs == 1 && pruned.trash.count == 0)
        #expect(throws: BlobStoreError.missing(orphan)) { try f.store.read(orphan) }
        #expect(try f.store.read(kept) == Data("kept".utf8))
        // A referenced-set computation that fails stops the sweep before anything moves.
        struct Unsure: Error {}
        #expect(throws: Unsure.self) { try f.store.sweep(gracePeriod: -1) { throw Unsure() } }
        #expect(try f.store.contains(kept))
    }

    @Test func verifyReHashesInParallelOrChecksSizesOnlyAndReportsStrays() throws {
        let f = try Fixture()
        var digests = Set<BlobDigest>()
        for i in 0..<12 { digests.insert(try f.store.put(Data("photo \(i)".utf8)).digest) }
        try f.s3.put("sha256/zz/not-a-blob", data: Data("stray".utf8))
        var progress = 0
        let full = try f.store.verify(expected: { digests }, jobs: 4) { done, _, _ in progress = max(progress, done) }
        #expect(full.checked == 12 && full.isHealthy && full.stray == ["sha256/zz/not-a-blob"] && progress == 12)
        let quick = try f.store.verify(expected: { digests }, quick: true)
        #expect(quick.checked == 0 && quick.bytesChecked == 0 && quick.isHealthy)
        #expect(try f.store.owner() == nil)
        try f.store.setOwner("library-1234")
        #expect(try f.store.owner() == "library-1234")
    }

    /// Eight libraries claim one empty prefix at the same moment: the service's conditional PUT
    /// lets exactly one record itself; every other is told whose the prefix is.
    @Test func eightClaimsAtOnceLeaveExactlyOneOwner() throws {
        let f = try Fixture()
        let store = f.store
        let outcomes = claimAtOnce(8) { try store.setOwner("library-\($0)") }
        let winners = outcomes.indices.filter { outcomes[$0] == nil }
        #expect(winners.count == 1, "\(outcomes)")
        let owner = try #require(try store.owner())
        #expect(owner == "library-\(winners[0])")
        for case let error? in outcomes { #expect(error == .ownedByAnother(place: store.locationDescription, owner: owner)) }
        try store.setOwner(owner)
        #expect(try f.s3.create("owner", data: Data("x".utf8)) == false, "an existing object is not replaced")
        #expect(try store.owner() == owner)
        try f.s3.put("owner", data: Data("\n".utf8))  // empty (damaged): names nobody, replaced by a claim
        try store.setOwner("library-new")
        #expect(try store.owner() == "library-new")
    }
}
