import Foundation
import Testing
@testable import BlobStore

/// The trash (design note 5), the repair of a damaged blob by a duplicate put (note 7) and the
/// owner file (note 8).
@Suite struct BlobStoreTrashTests {
    func age(_ path: String, by seconds: Int) {
        var times = [timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func aTrashedBlobIsPrunedOnlyAfterTheTrashGracePeriodOrWithPruneNow() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let a = try store.put(randomData(1000, seed: 1)).digest
        let b = try store.put(randomData(1500, seed: 2)).digest
        try store.remove(a)
        try store.remove(b)
        #expect(!store.contains(a) && store.trashContains(a) && store.trashContains(b))
        // Removal time, not the blob's age, starts the grace period: both were just removed.
        let first = try store.sweep(gracePeriod: 0) { [] }
        #expect(first.prunedBlobs == 0 && store.trashContains(a) && store.trashContains(b))
        age(store.trashPath(for: a), by: 8 * 86400)
        let second = try store.sweep(gracePeriod: 0) { [] }
        #expect(second.prunedBlobs == 1 && second.bytesFreed == 1000)
        #expect(!store.trashContains(a) && store.trashContains(b))
        let dry = try store.sweep(gracePeriod: 0, pruneNow: true, dryRun: true) { [] }
        #expect(dry.prunedBlobs == 1 && store.trashContains(b))
        let now = try store.sweep(gracePeriod: 0, pruneNow: true) { [] }
        #expect(now.prunedBlobs == 1 && now.bytesFreed == 1500 && !store.trashContains(b) && now.trash.count == 0)
    }

    @Test func aBlobReferencedAgainComesBackFromTheTrashAndIsReadableMeanwhile() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let data = randomData(4000, seed: 3)
        let digest = try store.put(data).digest
        try store.remove(digest)
        #expect(!store.contains(digest))
        // A restored database reads it before any sweep: the read finds it in the trash.
        #expect(try store.read(digest, verify: true) == data)
        let report = try store.sweep(gracePeriod: 0, pruneNow: true) { [digest] }
        #expect(report.restoredBlobs == 1 && report.prunedBlobs == 0)
        #expect(store.contains(digest) && !store.trashContains(digest))
        #expect(try store.read(digest, verify: true) == data)
    }

    @Test func aDuplicatePutRepairsADamagedOrTruncatedBlob() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let data = randomData(200_000, seed: 4)
        let digest = try store.put(data).digest
        var bytes = try Data(contentsOf: store.url(for: digest))
        bytes[100] ^= 0x40
        try bytes.write(to: store.url(for: digest))
        let batch = BlobBatch(store: store)
        _ = try batch.put(data)
        try batch.commit()
        #expect(batch.repaired == [digest])
        #expect(try Data(contentsOf: store.url(for: digest)) == data)
        // Truncated: found by size alone; a whole blob is left as it is.
        try Data(data.prefix(10)).write(to: store.url(for: digest))
        #expect(try store.ensure(digest, from: data) == .repaired)
        #expect(try store.ensure(digest, from: data) == .intact)
        try FileManager.default.removeItem(at: store.url(for: digest))
        #expect(try store.ensure(digest, from: data) == .restored)
        #expect(try store.read(digest, verify: true) == data)
        #expect(throws: BlobStoreError.self) { try store.ensure(digest, from: Data("other".utf8)) }
    }

    @Test func theOwnerIsWrittenOnceAndReadBack() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        #expect(try store.owner() == nil)
        #expect(try !store.hasBlobs())
        try store.setOwner("abc-123")
        #expect(try store.owner() == "abc-123")
        _ = try store.put(randomData(10, seed: 5))
        #expect(try store.hasBlobs())
        #expect(files(under: dir.url.appendingPathComponent("tmp")).isEmpty)
    }

    /// A claim is given back only by the store that made it, and only while nothing is stored.
    @Test func anOwnerIsReleasedOnlyByItsStoreAndOnlyWhileTheFolderHoldsNoBlob() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        try store.setOwner("store-a")
        #expect(try !store.releaseOwner("store-b"))
        #expect(try store.owner() == "store-a")
        #expect(try store.releaseOwner("store-a"))
        #expect(try store.owner() == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("owner").path))
        try store.setOwner("store-c")
        _ = try store.put(randomData(10, seed: 6))
        #expect(try !store.releaseOwner("store-c"))
        #expect(try store.owner() == "store-c")
    }

    /// Eight stores claim one empty folder at the same moment: exactly one is recorded, every
    /// other is told whose it is, and the winner may claim it again.
    @Test func eightClaimsAtOnceLeaveExactlyOneOwner() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let outcomes = claimAtOnce(8) { try store.setOwner("store-\($0)") }
        let winners = outcomes.indices.filter { outcomes[$0] == nil }
        #expect(winners.count == 1, "\(outcomes)")
        let owner = try #require(try store.owner())
        #expect(owner == "store-\(winners[0])")
        for case let error? in outcomes { #expect(error == .ownedByAnother(place: dir.url.path, owner: owner)) }
        try store.setOwner(owner)
        #expect(files(under: dir.url.appendingPathComponent("tmp")).isEmpty)
        // An empty (damaged) record names nobody: a claim replaces it, so the identity check is
        // never switched off by it.
        try Data().write(to: dir.url.appendingPathComponent("owner"))
        #expect(try store.owner() == nil)
        try store.setOwner("store-new")
        #expect(try store.owner() == "store-new")
    }

    @Test func aReadOnlyStoreCreatesNothingAndRefusesWrites() throws {
        let dir = TemporaryDirectory()
        let root = dir.url.appendingPathComponent("absent")
        let store = try BlobStore(root: root, readOnly: true)
        #expect(!FileManager.default.fileExists(atPath: root.path))
        #expect(throws: BlobStoreError.self) { try store.put(Data("x".utf8)) }
        #expect(throws: BlobStoreError.self) { try store.sweep { [] } }
        #expect(try store.verify().isHealthy)
    }
}

@Suite struct BlobStoreVerifyLockTests {
    /// A removal that starts while verify computes its expected set waits until the tree is
    /// listed: the blob is not reported missing (it was a false alarm beside `memories delete`).
    @Test func aRemovalDuringVerifyIsNotReportedMissing() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let digest = try store.put(randomData(5000, seed: 8)).digest
        let removed = DispatchSemaphore(value: 0)
        let report = try store.verify(expected: { () throws -> Set<BlobDigest> in
            // What `delete` does after its commit: remove the blob under the exclusive lock.
            DispatchQueue.global().async {
                _ = try? store.remove([digest], lockTimeout: 30) { _ in false }
                removed.signal()
            }
            usleep(300_000)  // time enough for an unguarded removal to finish
            return [digest]
        })
        #expect(report.missing.isEmpty && report.isHealthy)
        removed.wait()
        #expect(!store.contains(digest) && store.trashContains(digest))
    }
}

/// gc against a link swapped in place of the trash while it runs (second attack, finding 5): the
/// sweep holds the trash by a descriptor, and every move, listing and deletion goes through it.
@Suite struct BlobStoreTrashDescriptorTests {
    @Test func aLinkSwappedInPlaceOfTheTrashAfterItWasOpenedLeadsNowhere() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let kept = try store.put(randomData(700, seed: 11)).digest
        let unused = try store.put(randomData(900, seed: 12)).digest
        try store.remove(kept)
        let outside = dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        // A file outside, named as the trashed blob: what the attack deleted.
        let canary = Data("someone else's".utf8)
        try canary.write(to: outside.appendingPathComponent(kept.hex))

        guard let trash = try BlobStore.openFolder(store.trashPath, creating: false) else { Issue.record("no trash"); return }
        defer { close(trash) }
        try FileManager.default.moveItem(atPath: store.trashPath, toPath: dir.url.appendingPathComponent("real-trash").path)
        try FileManager.default.createSymbolicLink(atPath: store.trashPath, withDestinationPath: outside.path)

        try store.moveToTrash(unused, into: trash)
        var names: [String] = []
        try store.forEachEntry(in: store.trashPath, descriptor: trash) { path, _ in names.append(String(path.split(separator: "/").last!)) }
        #expect(Set(names) == [kept.hex, unused.hex], "the trash opened, not the link's folder")
        #expect(try store.trashSummary(descriptor: trash) == BlobStore.TrashSummary(count: 2, bytes: 1600))
        #expect(try store.restoreFromTrash(kept, from: trash) && store.contains(kept))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == [kept.hex])
        #expect(try Data(contentsOf: outside.appendingPathComponent(kept.hex)) == canary, "nothing outside moved, read or deleted")
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("real-trash/\(unused.hex)").path))
        // A fresh move, by path, refuses the link.
        #expect(throws: BlobStoreError.self) { try store.moveToTrash(store.put(randomData(10, seed: 13)).digest) }
    }

    /// The same with a link in place of `sha256` itself (O_NOFOLLOW guards the last name only):
    /// a move finds no blob to move there, a restore makes nothing there (the fresh review's).
    @Test func aLinkInPlaceOfTheFolderOfPhotosLeadsNowhere() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let kept = try store.put(randomData(700, seed: 21)).digest
        let trashed = try store.put(randomData(800, seed: 22)).digest
        try store.remove(trashed)
        let outside = dir.url.appendingPathComponent("outside")
        let planted = outside.appendingPathComponent("\(kept.prefix)/\(kept.hex)")
        try FileManager.default.createDirectory(at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("someone else's".utf8).write(to: planted)
        try FileManager.default.moveItem(atPath: store.blobsPath, toPath: dir.url.appendingPathComponent("real-sha256").path)
        try FileManager.default.createSymbolicLink(atPath: store.blobsPath, withDestinationPath: outside.path)
        guard let trash = try BlobStore.openFolder(store.trashPath, creating: false) else { Issue.record("no trash"); return }
        defer { close(trash) }
        #expect(throws: BlobStoreError.self) { try store.moveToTrash(kept, into: trash) }
        #expect(throws: BlobStoreError.self) { _ = try store.restoreFromTrash(trashed, from: trash) }
        #expect(try Data(contentsOf: planted) == Data("someone else's".utf8), "not moved")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == [String(kept.prefix)], "nothing made outside")
        #expect(store.trashContains(trashed) && !store.trashContains(kept))
    }
}
