import BlobStore
import Foundation
@testable import OpenSwiftData
import Testing

/// `externalDigest(of:_:)` names the blob an external value is stored as, and `noteExternalDigest`
/// hands a digest the app computed to the save, tied to the data's buffer.
@Suite struct ExternalDigestTests {
    let cover = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    @Test func theDigestOfAStoredValueIsItsBlobsNameAndNeedsNoRead() throws {
        let dir = TemporaryDirectory()
        let c = try container(Album.self, Track.self, at: dir.store())
        let context = ModelContext(c)
        let album = Album(title: "A", year: 2001)
        album.cover = cover
        context.insert(album)
        #expect(context.externalDigest(of: album, \.cover) == nil, "not saved yet")
        try context.save()
        let digest = SHA256.digest(cover)
        #expect(context.externalDigest(of: album, \.cover) == digest)
        let fresh = ModelContext(c)
        let fetched = try #require(try fresh.fetch(FetchDescriptor<Album>()).first)
        #expect(fresh.externalDigest(of: fetched, \.cover) == digest)
        #expect(c.external!.readCount == 0, "the digest comes from the row; no blob was read")
        #expect(try c.blobBackend!.readVerified(digest) == cover)
        let plain = Album(title: "B", year: 2002)
        fresh.insert(plain)
        try fresh.save()
        #expect(fresh.externalDigest(of: plain, \.cover) == nil, "a nil value has no blob")
        // Changed and saved: the new blob's name.
        fetched.cover = Data("another cover, long enough to be stored out of line........".utf8)
        try fresh.save()
        #expect(fresh.externalDigest(of: fetched, \.cover) == SHA256.digest(fetched.cover!))
    }

    @Test func aNotedDigestIsUsedForThatBufferOnly() throws {
        let dir = TemporaryDirectory()
        let c = try container(Album.self, Track.self, at: dir.store())
        let context = ModelContext(c)
        let store = try #require(c.blobStore)
        // The hint is trusted for its buffer: a (deliberately) wrong one shows it was used, as the
        // blob is stored under it, and verify then finds the blob corrupt.
        let wrong = SHA256.digest(Data("not these bytes".utf8))
        let hinted = Album(title: "hinted", year: 1)
        hinted.cover = cover
        context.noteExternalDigest(wrong, of: cover)
        // Equal bytes in another buffer are hashed: the hint does not follow the bytes.
        let copy = Data(Array(cover))
        let other = Album(title: "copy", year: 2)
        other.cover = copy
        context.insert(hinted)
        context.insert(other)
        try context.save()
        #expect(context.externalDigest(of: hinted, \.cover) == wrong)
        #expect(context.externalDigest(of: other, \.cover) == SHA256.digest(cover))
        #expect(try store.verify().corrupt == [wrong])
        // Hints go with a successful save: the same buffer saved again is hashed.
        let again = Album(title: "again", year: 3)
        again.cover = cover
        context.insert(again)
        try context.save()
        #expect(context.externalDigest(of: again, \.cover) == SHA256.digest(cover))
    }

    /// A hint lives for one save attempt and one put: a rollback drops it, and a buffer stored twice
    /// is hashed the second time. Bytes whose hinted name is already stored are hashed, so a wrong
    /// hint cannot make them vanish behind another photo's blob: the save fails and stores nothing.
    @Test func hintsServeOnePutAndNeverHideBytesBehindAStoredName() throws {
        let dir = TemporaryDirectory()
        let c = try container(Album.self, Track.self, at: dir.store())
        let context = ModelContext(c)
        let wrong = SHA256.digest(Data("not these bytes".utf8))
        context.noteExternalDigest(wrong, of: cover)
        context.rollback()
        let first = Album(title: "after rollback", year: 1)
        first.cover = cover
        context.insert(first)
        try context.save()
        #expect(context.externalDigest(of: first, \.cover) == SHA256.digest(cover), "the hint went with the rollback")

        // One put per hint: two models holding the same buffer, one hint.
        let other = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        context.noteExternalDigest(wrong, of: other)
        let a = Album(title: "a", year: 2), b = Album(title: "b", year: 3)
        a.cover = other
        b.cover = other
        context.insert(a)
        context.insert(b)
        try context.save()
        let digests = [context.externalDigest(of: a, \.cover), context.externalDigest(of: b, \.cover)]
        #expect(digests.filter { $0 == SHA256.digest(other) }.count == 1, "\(digests)")

        // A hint naming a blob that is stored (first's cover) for other bytes: refused, nothing written.
        let third = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        context.noteExternalDigest(SHA256.digest(cover), of: third)
        let c3 = Album(title: "c", year: 4)
        c3.cover = third
        context.insert(c3)
        #expect(throws: BlobStoreError.self) { try context.save() }
        #expect(try c.blobStore!.read(SHA256.digest(cover), verify: true) == cover, "the stored blob is untouched")
        try context.save()  // the hint went with the failed attempt: hashed now, stored under its own name
        #expect(context.externalDigest(of: c3, \.cover) == SHA256.digest(third))
    }

    /// An upsert that rewrites a row a loaded model stands for gives that model the row's blob too.
    @Test func anUpsertMovesTheLoadedModelToTheRowsNewBlob() throws {
        let dir = TemporaryDirectory()
        let c = try container(Poster.self, at: dir.store())
        let context = ModelContext(c)
        let d1 = Data(repeating: 1, count: 500), d2 = Data(repeating: 2, count: 500)
        let x = Poster(name: "same", image: d1)
        context.insert(x)
        try context.save()
        let y = Poster(name: "same", image: d2)
        context.insert(y)
        try context.save()
        #expect(x.image == d2)
        #expect(context.externalDigest(of: x, \.image) == SHA256.digest(d2))
        #expect(context.externalDigest(of: y, \.image) == SHA256.digest(d2))
    }
}

@Model final class Poster {
    @Attribute(.unique) var name: String
    @Attribute(.externalStorage) var image: Data?
    init(name: String, image: Data?) { self.name = name; self.image = image }
}

/// A save whose blob writer fails part way (a bucket refusing an upload while others are in
/// flight) ends the write session before the error goes up: the uploads still running are waited
/// for and the write lock is released. (It was left open: the program exited with uploads still
/// hashing, which crashed in OpenSSL, and an app would have kept the lock.)
@Suite struct FailedPutTests {
    final class FailingWriter: BlobWriter {
        var puts = 0, finished = false
        func put(_ data: Data, digest: BlobDigest?) throws -> BlobDigest {
            puts += 1
            if puts == 2 { throw BlobStoreError.io(path: "bucket", operation: "upload", errno: EIO) }
            return digest ?? SHA256.digest(data)
        }
        func commit() throws {}
        func finish() { finished = true }
        var repaired: [BlobDigest] { [] }
    }

    /// A local blob folder whose writer is `writer`.
    final class FailingBackend: BlobBackend, @unchecked Sendable {
        let inner: BlobStore, writer = FailingWriter()
        init(_ inner: BlobStore) { self.inner = inner }
        var locationDescription: String { inner.locationDescription }
        var isReadOnly: Bool { inner.isReadOnly }
        func makeWriter() throws -> any BlobWriter { writer }
        func readVerified(_ digest: BlobDigest) throws -> Data { try inner.readVerified(digest) }
        func readVerified(_ digest: BlobDigest, chunk: (UnsafeRawBufferPointer) throws -> Void) throws { try inner.readVerified(digest, chunk: chunk) }
        func ensure(_ digest: BlobDigest, from data: Data) throws -> BlobStore.EnsureOutcome { try inner.ensure(digest, from: data) }
        func remove(_ candidates: Set<BlobDigest>, lockTimeout: TimeInterval, isReferenced: (BlobDigest) throws -> Bool) throws -> Int {
            try inner.remove(candidates, lockTimeout: lockTimeout, isReferenced: isReferenced)
        }
        func sweep(gracePeriod: TimeInterval, trashGracePeriod: TimeInterval, pruneNow: Bool, dryRun: Bool,
                   referenced: () throws -> Set<BlobDigest>) throws -> BlobStore.SweepReport {
            try inner.sweep(gracePeriod: gracePeriod, trashGracePeriod: trashGracePeriod, pruneNow: pruneNow, dryRun: dryRun, referenced: referenced)
        }
        func verify(expected: (() throws -> Set<BlobDigest>)?, jobs: Int, quick: Bool, progress: ((Int, Int, Int64) -> Void)?) throws -> BlobStore.VerifyReport {
            try inner.verify(expected: expected, jobs: jobs, quick: quick, progress: progress)
        }
        func owner() throws -> String? { try inner.owner() }
        func setOwner(_ identity: String) throws { try inner.setOwner(identity) }
        func releaseOwner(_ identity: String) throws -> Bool { try inner.releaseOwner(identity) }
        func hasBlobs() throws -> Bool { try inner.hasBlobs() }
        func hasTrashedBlobs() throws -> Bool { try inner.hasTrashedBlobs() }
        func movedTo() throws -> String? { try inner.movedTo() }
        func setMoved(_ place: String?) throws { try inner.setMoved(place) }
    }

    @Test func aFailedPutEndsTheWriteSessionBeforeTheErrorGoesUp() throws {
        let dir = TemporaryDirectory()
        let backend = FailingBackend(try BlobStore(root: dir.url.appendingPathComponent("blobs")))
        let schema = Schema([Poster.self])
        var configuration = ModelConfiguration(schema: schema, url: dir.store())
        configuration.blobBackend = backend
        let context = ModelContext(try ModelContainer(for: schema, configurations: [configuration]))
        for i in 0..<3 { context.insert(Poster(name: "p\(i)", image: Data("image \(i)".utf8))) }
        #expect(throws: BlobStoreError.self) { try context.save() }
        #expect(backend.writer.puts == 2 && backend.writer.finished, "puts \(backend.writer.puts), finished \(backend.writer.finished)")
    }
}
