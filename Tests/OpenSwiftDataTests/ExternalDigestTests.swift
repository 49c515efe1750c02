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
}
