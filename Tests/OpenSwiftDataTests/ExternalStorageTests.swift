import Foundation
import Testing
import BlobStore
@testable import OpenSwiftData

@Suite struct ExternalStorageTests {
    @Test func bytesGoToTheBlobStoreAndTheColumnHoldsTheDigest() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store("journal.store"))
        let context = c.mainContext
        context.insert(Memory(title: "Rome", date: .now, notes: "", images: [image("photo-1")]))
        try context.save()
        let digest = SHA256.digest(Data("photo-1".utf8))
        #expect(try SQLiteProbe(dir.store("journal.store")).scalar("SELECT imageData FROM MemoryImage") == digest.hex)
        let blob = dir.url.appendingPathComponent(".journal_SUPPORT/sha256/\(digest.prefix)/\(digest.hex)")
        #expect(try Data(contentsOf: blob) == Data("photo-1".utf8))
    }

    @Test func aFetchReadsNoImageBytesUntilTheyAreTouched() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        do {
            let context = ModelContext(c)
            context.insert(Memory(title: "A", date: .now, notes: "", images: [image("x"), image("y")]))
            try context.save()
        }
        let context = ModelContext(c)
        let memories = try context.fetch(FetchDescriptor<Memory>())
        #expect(memories[0].memoryImages.count == 2)
        #expect(c.external!.readCount == 0)
        #expect(Set(memories[0].images.map(imageText)) == ["x", "y"])
        #expect(c.external!.readCount == 2)
    }

    @Test func deletingAMemoryRemovesItsImagesAndTheBlobsNoOtherRowUses() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        let context = c.mainContext
        let rome = Memory(title: "Rome", date: .now, notes: "", images: [image("shared"), image("only-rome")])
        let paris = Memory(title: "Paris", date: .now, notes: "", images: [image("shared")])
        context.insert(rome)
        context.insert(paris)
        try context.save()
        let store = try #require(c.blobStore)
        let shared = SHA256.digest(Data("shared".utf8)), onlyRome = SHA256.digest(Data("only-rome".utf8))
        #expect(store.contains(shared) && store.contains(onlyRome))
        context.delete(rome)
        try context.save()
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.rows("SELECT title FROM Memory") == [["Paris"]])
        #expect(try probe.scalar("SELECT count(*) FROM MemoryImage") == "1")
        #expect(store.contains(shared) && !store.contains(onlyRome))
        #expect(try c.verifyExternalStorage().isHealthy)
    }

    @Test func changingOrClearingAValueReleasesTheOldBlob() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        let context = c.mainContext
        let m = Memory(title: "A", date: .now, notes: "", images: [image("v1")])
        context.insert(m)
        try context.save()
        let store = try #require(c.blobStore)
        m.memoryImages[0].imageData = Data("v2".utf8)
        try context.save()
        #expect(!store.contains(SHA256.digest(Data("v1".utf8))) && store.contains(SHA256.digest(Data("v2".utf8))))
        m.memoryImages[0].imageData = nil
        try context.save()
        #expect(!store.contains(SHA256.digest(Data("v2".utf8))))
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT imageData FROM MemoryImage") == "NULL")
    }

    @Test func aCrashBetweenCommitAndBlobRemovalLeavesOnlyAnOrphanThatGCTrashes() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        let context = c.mainContext
        let m = Memory(title: "A", date: .now, notes: "", images: [image("doomed")])
        context.insert(m)
        try context.save()
        context.skipsBlobRemovalForTesting = true
        context.delete(m)
        try context.save()
        let doomed = SHA256.digest(Data("doomed".utf8))
        let store = try #require(c.blobStore)
        #expect(store.contains(doomed))
        let report = try c.verifyExternalStorage()
        #expect(report.isHealthy && report.unexpected == [doomed])
        let dry = try c.collectGarbage(gracePeriod: 0, dryRun: true)
        #expect(dry.orphanBlobs == 1 && store.contains(doomed))
        let gc = try c.collectGarbage(gracePeriod: 0)
        #expect(gc.orphanBlobs == 1 && gc.orphanBytes == 6 && !store.contains(doomed) && store.trashContains(doomed))
        let pruned = try c.collectGarbage(gracePeriod: 0, pruneNow: true)
        #expect(pruned.prunedBlobs == 1 && pruned.bytesFreed == 6 && !store.trashContains(doomed))
    }

    @Test func inMemoryContainersKeepExternalDataInMemory() throws {
        let c = try ModelContainer(for: Memory.self, MemoryImage.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(c.blobStore == nil)
        let context = c.mainContext
        context.insert(Memory(title: "A", date: .now, notes: "", images: [image("mem")]))
        try context.save()
        let fresh = ModelContext(c)
        let images = try fresh.fetch(FetchDescriptor<MemoryImage>())
        #expect(images.first?.imageData == Data("mem".utf8))
    }

    @Test func verifyNamesACorruptReferencedBlob() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        c.mainContext.insert(Memory(title: "A", date: .now, notes: "", images: [image("fragile")]))
        try c.mainContext.save()
        let digest = SHA256.digest(Data("fragile".utf8))
        try Data("fragilE".utf8).write(to: c.blobStore!.url(for: digest))
        let report = try c.verifyExternalStorage()
        #expect(report.corrupt == [digest] && !report.isHealthy)
    }
}

/// Space comes back by itself (issue 35): a container that opens a store deletes, in the
/// background, trashed values older than `ModelConfiguration.trashGracePeriod` that no row refers
/// to; one referenced again stays.
@Suite struct TrashPruneTests {
    func age(_ url: URL, days: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-days * 86400)], ofItemAtPath: url.path)
    }

    let doomed = SHA256.digest(Data("doomed".utf8)), kept = SHA256.digest(Data("kept".utf8))

    /// A store whose trash holds, 8 days old, `doomed` (its memory deleted) and a copy of `kept`
    /// (which a row still names: a restored store would leave such a copy).
    func trashedStore(_ dir: TemporaryDirectory) throws -> BlobStore {
        let store: BlobStore
        do {
            let c = try container(Memory.self, MemoryImage.self, at: dir.store())
            let context = ModelContext(c)
            let gone = Memory(title: "A", date: .now, notes: "", images: [image("doomed")])
            context.insert(gone)
            context.insert(Memory(title: "B", date: .now, notes: "", images: [image("kept")]))
            try context.save()
            context.delete(gone)
            try context.save()
            store = try #require(c.blobStore)
        }
        let trash = store.root.appendingPathComponent("trash")
        #expect(store.trashContains(doomed))
        try FileManager.default.copyItem(at: store.root.appendingPathComponent("sha256/\(kept.hex.prefix(2))/\(kept.hex)"),
                                         to: trash.appendingPathComponent(kept.hex))
        for digest in [kept, doomed] { try age(trash.appendingPathComponent(digest.hex), days: 8) }
        return store
    }

    /// Waits (30 s at most: a hang guard) for a background prune to delete `doomed`.
    func waitForPrune(_ store: BlobStore) {
        let deadline = Date().addingTimeInterval(30)
        while store.trashContains(doomed) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    @Test func oldTrashIsPrunedWhenAContainerOpensButNotWhatIsReferenced() throws {
        let dir = TemporaryDirectory()
        let store = try trashedStore(dir)
        // Within the grace period: a container opened with a longer one leaves them.
        var patient = ModelConfiguration(url: dir.store())
        patient.trashGracePeriod = 30 * 86400
        _ = try ModelContainer(for: Memory.self, MemoryImage.self, configurations: patient)
        // The default (7 days): the old unreferenced one goes, in the background.
        _ = try container(Memory.self, MemoryImage.self, at: dir.store())
        waitForPrune(store)
        #expect(!store.trashContains(doomed))
        #expect(store.trashContains(kept) && store.contains(kept))
    }

    /// Found by an outside attack: the prune asked an index whether a trashed value was still
    /// referenced, and a damaged index (which `quick_check` does not read) said no. It now reads the
    /// rows themselves: a value a row names, in any case, is kept.
    @Test func aValueARowNamesIsKeptWhateverItsIndexSays() throws {
        let dir = TemporaryDirectory()
        let store = try trashedStore(dir)
        // The row names it in upper case, and the index on the column is gone.
        let probe = SQLiteProbe(dir.store())
        try probe.execute("UPDATE MemoryImage SET imageData = upper(imageData) WHERE imageData = '\(kept.hex)'")
        for name in try probe.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'MemoryImage'").map(\.[0]) {
            try probe.execute("DROP INDEX \"\(name)\"")
        }
        _ = try container(Memory.self, MemoryImage.self, at: dir.store())
        waitForPrune(store)
        #expect(!store.trashContains(doomed) && store.trashContains(kept))
    }
}

