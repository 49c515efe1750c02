import Foundation
import Testing
import BlobStore
@testable import OpenSwiftData

/// Cascades through relationships that are not loaded delete rows by key, level by level, without
/// making models of them; what is in memory is still deleted as a model.
@Suite struct CascadeTests {
    /// Two shelves of boxes of items with scans; the "shared" scan is on both shelves.
    func shelves(_ dir: TemporaryDirectory) throws -> ModelContainer {
        let c = try container(Shelf.self, Box.self, BoxItem.self, Tag.self, at: dir.store())
        let context = ModelContext(c)
        for shelfName in ["kept", "doomed"] {
            let shelf = Shelf(name: shelfName)
            context.insert(shelf)
            for b in 0..<3 {
                let box = Box(name: "\(shelfName)-box\(b)")
                shelf.boxes.append(box)
                for i in 0..<4 {
                    let name = "\(shelfName)-item\(b)\(i)"
                    box.items.append(BoxItem(name: name, scan: Data((b == 0 && i == 0 ? "shared" : name).utf8)))
                }
            }
        }
        try context.save()
        return c
    }

    @Test func aCascadeThroughUnloadedRelationshipsDeletesRowsLevelByLevel() throws {
        let dir = TemporaryDirectory()
        let c = try shelves(dir)
        let context = ModelContext(c)
        var statements: [String] = []
        context.traceSQL { statements.append($0) }
        let doomed = try #require(try context.fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.name == "doomed" })).first)
        context.delete(doomed)
        try context.save()

        let probe = SQLiteProbe(dir.store())
        #expect(try probe.rows("SELECT name FROM Shelf") == [["kept"]])
        #expect(try probe.rows("SELECT DISTINCT substr(name, 1, 4) FROM Box") == [["kept"]])
        #expect(try probe.scalar("SELECT count(*) FROM BoxItem") == "12")
        #expect(try probe.scalar("SELECT count(*) FROM BoxItem WHERE name LIKE 'doomed%'") == "0")
        // No item or box was made a model: no statement read their rows' columns, only keys and scans.
        #expect(!statements.contains { $0.hasPrefix("SELECT t0.\"_pk\", ") && ($0.contains("FROM \"Box\"") || $0.contains("FROM \"BoxItem\"")) })
        #expect(statements.contains("SELECT \"scan\" FROM \"BoxItem\" WHERE \"_pk\" IN (SELECT value FROM json_each(?)) AND \"scan\" IS NOT NULL"))
        // Children's rows go first, so SQLite's ON DELETE SET NULL has nothing to update.
        let deletes = statements.filter { $0.hasPrefix("DELETE") }
        #expect(deletes.map { $0.components(separatedBy: " ")[2] } == ["\"BoxItem\"", "\"Box\"", "\"Shelf\""])
        #expect(!statements.contains { $0.hasPrefix("UPDATE") })
        // The doomed shelf's scans are gone, except the one the kept shelf uses too.
        let store = try #require(c.blobStore)
        #expect(store.contains(SHA256.digest(Data("shared".utf8))))
        #expect(!store.contains(SHA256.digest(Data("doomed-item12".utf8))))
        #expect(store.contains(SHA256.digest(Data("kept-item12".utf8))))
        #expect(try c.verifyExternalStorage().isHealthy)
        #expect(try c.collectGarbage(dryRun: true).orphans.isEmpty)
    }

    @Test func modelsInMemoryAreDeletedAsModelsAndLeaveTheirInverses() throws {
        let dir = TemporaryDirectory()
        let c = try shelves(dir)
        let context = ModelContext(c)
        // A tag holding one doomed item and one kept item, loaded; a doomed box held on its own.
        let doomedItem = try #require(try context.fetch(FetchDescriptor<BoxItem>(predicate: #Predicate { $0.name == "doomed-item21" })).first)
        let keptItem = try #require(try context.fetch(FetchDescriptor<BoxItem>(predicate: #Predicate { $0.name == "kept-item21" })).first)
        let tag = Tag(name: "red")
        context.insert(tag)
        tag.items = [doomedItem, keptItem]
        try context.save()
        #expect(tag.items.count == 2)
        let box = try #require(try context.fetch(FetchDescriptor<Box>(predicate: #Predicate { $0.name == "doomed-box1" })).first)
        let shelf = try #require(try context.fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.name == "doomed" })).first)
        context.delete(shelf)
        try context.save()
        #expect(box.modelContext == nil && doomedItem.modelContext == nil)
        #expect(keptItem.modelContext === context)
        #expect(tag.items.map(\.name) == ["kept-item21"])
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.rows("SELECT i.name FROM BoxItem i JOIN Tag t ON i.tag = t._pk") == [["kept-item21"]])
        #expect(try probe.scalar("SELECT count(*) FROM BoxItem WHERE name LIKE 'doomed%'") == "0")
        #expect(try probe.scalar("SELECT count(*) FROM Box") == "3")
    }

    @Test func aDenyRuleBelowACascadeStillRefusesAndNothingChanges() throws {
        let dir = TemporaryDirectory()
        let c = try container(Vault.self, Safe.self, SafeKey.self, Keyring.self, at: dir.store())
        do {
            let context = ModelContext(c)
            let vault = Vault(name: "v")
            context.insert(vault)
            let safe = Safe(name: "s")
            vault.safes.append(safe)
            safe.keys.append(SafeKey(name: "k"))
            vault.safes.append(Safe(name: "empty"))
            try context.save()
        }
        let context = ModelContext(c)
        let vault = try #require(try context.fetch(FetchDescriptor<Vault>()).first)
        context.delete(vault)
        #expect(throws: ModelError.deleteDenied(model: "Safe", relationship: "keys")) { try context.save() }
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.scalar("SELECT count(*) FROM Vault") == "1")
        #expect(try probe.scalar("SELECT count(*) FROM Safe") == "2")
        #expect(try probe.scalar("SELECT count(*) FROM SafeKey") == "1")
    }

    /// `.deny` is judged once the save's whole delete set is known: a key that a cascade deletes
    /// in the same save does not hold its safe back.
    @Test func aDenyRuleSeesWhatALaterCascadeDeletes() throws {
        let dir = TemporaryDirectory()
        let c = try container(Vault.self, Safe.self, SafeKey.self, Keyring.self, at: dir.store())
        do {
            let context = ModelContext(c)
            let safe = Safe(name: "s"), ring = Keyring(name: "r"), key = SafeKey(name: "k")
            context.insert(safe)
            context.insert(ring)
            safe.keys.append(key)
            ring.keys.append(key)
            try context.save()
        }
        let context = ModelContext(c)
        let safe = try #require(try context.fetch(FetchDescriptor<Safe>()).first)
        let ring = try #require(try context.fetch(FetchDescriptor<Keyring>()).first)
        context.delete(safe)   // first: its deny check comes before the keyring's cascade
        context.delete(ring)
        try context.save()
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.scalar("SELECT count(*) FROM Safe") == "0")
        #expect(try probe.scalar("SELECT count(*) FROM SafeKey") == "0")
        #expect(try probe.scalar("SELECT count(*) FROM Keyring") == "0")
    }

    @Test func toOneManyToManyAndRingCascadesReachEveryRowOnce() throws {
        let dir = TemporaryDirectory()
        let c = try container(Ticket.self, Stub.self, Playlist.self, Song.self, RingNode.self, at: dir.store())
        do {
            let context = ModelContext(c)
            let ticket = Ticket(name: "t")
            context.insert(ticket)
            ticket.stub = Stub(name: "s")
            context.insert(Stub(name: "other"))
            let mix = Playlist(name: "mix"), keep = Playlist(name: "keep")
            context.insert(mix)
            context.insert(keep)
            let a = Song(name: "a"), b = Song(name: "b"), z = Song(name: "z")
            mix.songs = [a, b]
            keep.songs = [z]
            let first = RingNode(name: "1"), second = RingNode(name: "2"), third = RingNode(name: "3")
            context.insert(first)
            first.next = second
            second.next = third
            third.next = first
            context.insert(RingNode(name: "alone"))
            try context.save()
        }
        let context = ModelContext(c)
        for ticket in try context.fetch(FetchDescriptor<Ticket>()) { context.delete(ticket) }
        for playlist in try context.fetch(FetchDescriptor<Playlist>(predicate: #Predicate { $0.name == "mix" })) { context.delete(playlist) }
        for node in try context.fetch(FetchDescriptor<RingNode>(predicate: #Predicate { $0.name == "1" })) { context.delete(node) }
        try context.save()
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.rows("SELECT name FROM Stub") == [["other"]])
        #expect(try probe.rows("SELECT name FROM Song") == [["z"]])
        #expect(try probe.rows("SELECT name FROM Playlist") == [["keep"]])
        #expect(try probe.rows("SELECT name FROM RingNode") == [["alone"]])
        #expect(try probe.scalar("SELECT count(*) FROM _Playlist_songs__Song_playlists") == "1")
    }

    @Test func aFailedSaveLeavesTheCascadePendingAndTheRowsInPlace() throws {
        let dir = TemporaryDirectory()
        let c = try shelves(dir)
        let context = ModelContext(c)
        let shelf = try #require(try context.fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.name == "doomed" })).first)
        context.delete(shelf)
        // The store refuses writes: the save fails before anything is deleted.
        let probe = SQLiteProbe(dir.store())
        try probe.execute("CREATE TRIGGER refuse BEFORE DELETE ON Box BEGIN SELECT RAISE(ABORT, 'refused'); END")
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try probe.scalar("SELECT count(*) FROM BoxItem") == "24")
        #expect(try probe.scalar("SELECT count(*) FROM Shelf") == "2")
        #expect(try c.verifyExternalStorage().isHealthy)
        try probe.execute("DROP TRIGGER refuse")
        try context.save()
        #expect(try probe.scalar("SELECT count(*) FROM BoxItem") == "12")
        #expect(try probe.scalar("SELECT count(*) FROM Shelf") == "1")
        #expect(try c.verifyExternalStorage().isHealthy)
    }
}
