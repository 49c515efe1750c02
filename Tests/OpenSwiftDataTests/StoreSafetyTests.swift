import BlobStore
import Foundation
import Testing
@testable import OpenSwiftData

/// What an emptied, replaced, damaged, newer or read-only store does to garbage collection and
/// migration: every case here once made a collection remove blobs that rows referenced, or a
/// migration drop a newer version's column.
@Suite struct StoreSafetyTests {
    /// A store with two documents whose bodies are blobs; returns their digests.
    func makeStore(_ url: URL) throws -> [BlobDigest] {
        let c = try container(DocV1.Doc.self, at: url)
        let context = ModelContext(container: c, connection: c.anchorConnection, autosave: false)
        context.insert(DocV1.Doc(title: "a", body: Data("body a".utf8)))
        context.insert(DocV1.Doc(title: "b", body: Data("body b".utf8)))
        try context.save()
        return ["body a", "body b"].map { SHA256.digest(Data($0.utf8)) }
    }

    func blobCount(_ c: ModelContainer) -> Int {
        (FileManager.default.enumerator(atPath: c.blobStore!.root.appendingPathComponent("sha256").path)?.allObjects.compactMap { $0 as? String }.filter { $0.count > 3 }.count ?? 0)
    }

    @Test func anEmptiedOrDeletedStoreIsReportedAndCollectsNothing() throws {
        for damage in ["empty", "delete"] {
            let dir = TemporaryDirectory()
            let digests = try makeStore(dir.store())
            if damage == "empty" { try Data().write(to: dir.store()) } else {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.store().path + suffix) }
            }
            let c = try container(DocV1.Doc.self, at: dir.store())
            guard case .storeIdentityMismatch? = c.identityProblem else {
                Issue.record("\(damage): no identity problem reported")
                continue
            }
            #expect(throws: ModelError.self) { try c.collectGarbage(gracePeriod: 0, pruneNow: true) }
            #expect(throws: ModelError.self) { try c.verifyExternalStorage() }
            for digest in digests { #expect(c.blobStore!.contains(digest), "\(damage): a referenced blob was removed") }
        }
    }

    @Test func aStoreReplacedByAnotherLibrarysIsRefused() throws {
        let dir = TemporaryDirectory()
        let digests = try makeStore(dir.store())
        let other = TemporaryDirectory()
        _ = try makeStore(other.store())
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.store().path + suffix) }
        try FileManager.default.removeItem(at: dir.store())
        try FileManager.default.copyItem(at: other.store(), to: dir.store())
        let c = try container(DocV1.Doc.self, at: dir.store())
        #expect(throws: ModelError.self) { try c.collectGarbage(gracePeriod: 0, pruneNow: true) }
        for digest in digests { #expect(c.blobStore!.contains(digest)) }
    }

    @Test func aDamagedIndexPageStopsGarbageCollectionBeforeAnythingMoves() throws {
        let dir = TemporaryDirectory()
        let c0 = try container(DocV1.Doc.self, at: dir.store())
        let context = ModelContext(container: c0, connection: c0.anchorConnection, autosave: false)
        // Enough rows for the blob index to span several pages.
        for i in 0..<400 { context.insert(DocV1.Doc(title: "doc \(i)", body: Data("body \(i)".utf8))) }
        try context.save()
        try c0.anchorConnection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        // Overwrite one leaf page of the blob index with its neighbour, as a misdirected write
        // would: the index then lacks the entries of one page, and nothing fails to read.
        let leaves = try c0.anchorConnection.rows("SELECT pageno FROM dbstat WHERE name = 'Doc_body_blob' AND pagetype = 'leaf' ORDER BY pageno")
            .compactMap { row -> Int? in if case .integer(let n) = row[0] { return Int(n) } else { return nil } }
        #expect(leaves.count >= 2)
        let pageSize = 4096
        let handle = try FileHandle(forUpdating: dir.store())
        try handle.seek(toOffset: UInt64((leaves[1] - 1) * pageSize))
        let neighbour = try handle.read(upToCount: pageSize)!
        try handle.seek(toOffset: UInt64((leaves[0] - 1) * pageSize))
        try handle.write(contentsOf: neighbour)
        try handle.close()
        let c = try container(DocV1.Doc.self, at: dir.store())
        let before = blobCount(c)
        // The index alone answers with fewer references, and no error:
        let indexed = try c.anchorConnection.rows("SELECT count(DISTINCT body) FROM Doc INDEXED BY Doc_body_blob WHERE body IS NOT NULL")
        #expect(indexed.first?.first != .integer(400))
        #expect(throws: ModelError.self) { try c.collectGarbage(gracePeriod: 0, pruneNow: true) }
        #expect(blobCount(c) == before && before == 400)
    }

    struct ProbeFailure: Error {}

    @Test func anOlderSchemaReadsANewerStoreButNeverMigratesOrWritesIt() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir.store())  // written by V1: the record holds V1
        let edited = Data("edited a".utf8)
        do {
            let newer = try container(DocV2.Doc.self, at: dir.store())
            let context = ModelContext(container: newer, connection: newer.anchorConnection, autosave: false)
            let docs = try context.fetch(FetchDescriptor<DocV2.Doc>(sortBy: [SortDescriptor(\.title)]))
            docs[0].edited = edited
            try context.save()
        }
        let older = try container(DocV1.Doc.self, at: dir.store())
        guard case .storeIsNewer(_, let unknown)? = older.writeRefusal else {
            Issue.record("the older schema did not see that the store is newer")
            return
        }
        #expect(unknown == ["Doc.edited"])
        let context = ModelContext(container: older, connection: older.anchorConnection, autosave: false)
        let docs = try context.fetch(FetchDescriptor<DocV1.Doc>(sortBy: [SortDescriptor(\.title)]))
        #expect(docs.map(\.title) == ["a", "b"] && docs[0].body == Data("body a".utf8))
        docs[1].title = "changed"
        #expect(throws: ModelError.self) { try context.save() }
        #expect(throws: ModelError.self) { try older.collectGarbage(gracePeriod: 0) }
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.scalar("SELECT edited FROM Doc WHERE title = 'a'") == SHA256.digest(edited).hex)
        #expect(try probe.scalar("SELECT count(*) FROM Doc WHERE title = 'changed'") == "0")
        #expect(older.blobStore!.contains(SHA256.digest(edited)))
    }

    @Test func aColumnNoSchemaDeclaresStillKeepsItsBlobs() throws {
        // A store made by V2 and opened by V1, which never wrote to it: nothing says which is
        // newer, so V1 may write, but `edited` stays and its blob is still referenced.
        let dir = TemporaryDirectory()
        let edited = Data("edited".utf8)
        do {
            let newer = try container(DocV2.Doc.self, at: dir.store())
            let context = ModelContext(container: newer, connection: newer.anchorConnection, autosave: false)
            context.insert(DocV2.Doc(title: "a", body: nil, edited: edited))
            try context.save()
        }
        let older = try container(DocV1.Doc.self, at: dir.store())
        #expect(older.writeRefusal == nil)
        let report = try older.collectGarbage(gracePeriod: 0, pruneNow: true)
        #expect(report.orphanBlobs == 0)
        #expect(older.blobStore!.contains(SHA256.digest(edited)))
        #expect(try older.referencedBlobDigests() == [SHA256.digest(edited)])
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT edited FROM Doc") == SHA256.digest(edited).hex)
    }

    @Test func allowsSaveFalseCreatesNothingAndRefusesSaves() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        let schema = Schema([DocV1.Doc.self])
        #expect(throws: ModelError.storeNotFound(path: url.path)) {
            try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: url, allowsSave: false)])
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        _ = try makeStore(url)
        let c = try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: url, allowsSave: false)])
        let context = ModelContext(c)
        let docs = try context.fetch(FetchDescriptor<DocV1.Doc>())
        #expect(docs.count == 2)
        docs[0].title = "x"
        #expect(throws: ModelError.readOnlyStore(path: url.path)) { try context.save() }
        #expect(throws: ModelError.self) { try c.collectGarbage() }
        #expect(try c.verifyExternalStorage().isHealthy)
    }

    @Test func manyContainersCreatingOneNewStoreAtOnceAllSucceed() throws {
        for _ in 0..<10 {
            let dir = TemporaryDirectory()
            let url = dir.store()
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do { _ = try container(DocV1.Doc.self, at: url) } catch { failures.add("\(error)") }
            }
            #expect(failures.all.isEmpty)
            let ids = try SQLiteProbe(url).rows("SELECT value FROM _osd_metadata WHERE key = 'storeIdentifier'")
            #expect(ids.count == 1)
        }
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var all: [String] = []
        func add(_ text: String) { lock.lock(); all.append(text); lock.unlock() }
    }
}

@Suite struct SameNamedModelsTests {
    /// The inverse of `Owner.items` was cached by the name "Owner.items": the second pair of
    /// models then used the first pair's property, at the wrong slot (a crash, or wrong links).
    @Test func modelsWithTheSameNameKeepTheirOwnInverses() throws {
        for round in 0..<2 {
            let dir = TemporaryDirectory()
            if round == 0 {
                let c = try container(TwinA.Owner.self, TwinA.Item.self, at: dir.store())
                let owner = TwinA.Owner(name: "a")
                c.mainContext.insert(owner)
                owner.items.append(TwinA.Item(label: "x"))
                try c.mainContext.save()
                #expect(try c.mainContext.fetch(FetchDescriptor<TwinA.Item>()).first?.owner?.name == "a")
            } else {
                let c = try container(TwinB.Owner.self, TwinB.Item.self, at: dir.store())
                let owner = TwinB.Owner(name: "b")
                c.mainContext.insert(owner)
                owner.items.append(TwinB.Item(label: "y"))
                try c.mainContext.save()
                let fresh = ModelContext(c)
                let item = try #require(try fresh.fetch(FetchDescriptor<TwinB.Item>()).first)
                #expect(item.owner?.name == "b" && item.label == "y" && item.weight == 0)
                #expect(try fresh.fetch(FetchDescriptor<TwinB.Owner>()).first?.items.map(\.label) == ["y"])
            }
        }
    }
}

/// Two to-many relationships with one inverse (Apple's Backyard Birds: a yard's `leading` and
/// `trailing` plants, both `inverse: \Plant.yard`), issue 35: each keeps its own members, stored
/// and read back apart, and the to-one says the yard.
@Suite struct SharedInverseTests {
    typealias Yard = SharedInverse.Yard
    typealias Plant = SharedInverse.Plant

    @Test func eachToManyKeepsItsOwnMembers() throws {
        let dir = TemporaryDirectory()
        let c = try container(Yard.self, Plant.self, at: dir.store())
        let context = ModelContext(c)
        let yard = Yard(name: "Back")
        context.insert(yard)
        let (a, b, x) = (Plant(species: "fern"), Plant(species: "rose"), Plant(species: "oak"))
        yard.leading = [a, b]
        yard.trailing.append(x)
        #expect(a.yard === yard && x.yard === yard)
        try context.save()

        func reread() throws -> (leading: [String], trailing: [String], yards: [String: String]) {
            let fresh = ModelContext(c)
            let yard = try #require(try fresh.fetch(FetchDescriptor<Yard>()).first)
            let plants = try fresh.fetch(FetchDescriptor<Plant>())
            return (yard.leading.map(\.species).sorted(), yard.trailing.map(\.species).sorted(),
                    Dictionary(uniqueKeysWithValues: plants.map { ($0.species, $0.yard?.name ?? "-") }))
        }
        var now = try reread()
        #expect(now.leading == ["fern", "rose"] && now.trailing == ["oak"])
        #expect(now.yards == ["fern": "Back", "rose": "Back", "oak": "Back"])

        // Moved from one list to the other: still in the yard. Taken out of both: in no yard.
        yard.leading.removeAll { $0 === b }
        yard.trailing.append(b)
        yard.trailing.removeAll { $0 === x }
        #expect(b.yard === yard && x.yard == nil)
        try context.save()
        now = try reread()
        #expect(now.leading == ["fern"] && now.trailing == ["rose"] && now.yards == ["fern": "Back", "rose": "Back", "oak": "-"])

        // Into another yard: out of both of this one's lists.
        let front = Yard(name: "Front")
        context.insert(front)
        front.leading.append(a)
        #expect(a.yard === front && yard.leading.isEmpty)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM _Yard_leading") == "1")
        // A plant deleted leaves its list.
        context.delete(b)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM _Yard_trailing") == "0")
    }

    /// Found by an outside attack: a plant in both lists, taken out of one after a save (the other
    /// list not read again), keeps its yard.
    @Test func aMemberOfBothListsKeepsItsOwnerWhenItLeavesOne() throws {
        let dir = TemporaryDirectory()
        let c = try container(Yard.self, Plant.self, at: dir.store())
        let context = ModelContext(c)
        let yard = Yard(name: "Y")
        context.insert(yard)
        let both = Plant(species: "ivy")
        yard.leading.append(both)
        yard.trailing.append(both)
        try context.save()
        yard.leading.removeAll { $0 === both }
        #expect(both.yard === yard)
        try context.save()
        let fresh = ModelContext(c)
        let plant = try #require(try fresh.fetch(FetchDescriptor<Plant>()).first)
        #expect(plant.yard?.name == "Y" && plant.yard?.trailing.map(\.species) == ["ivy"] && plant.yard?.leading.isEmpty == true)
    }
}

