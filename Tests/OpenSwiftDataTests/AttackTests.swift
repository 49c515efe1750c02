import Foundation
import Observation
import Testing
import BlobStore
@testable import OpenSwiftData

// An outside attack on this round's features (observation, constant folding, migration by shape,
// history, several stores), written by a reviewer who saw only the code: each test failed before
// the fix that followed it. (Three of its findings are not fixed yet; the session note names them.)

@Model final class AtkShip {
    var name: String
    var rank: Int = 0
    init(name: String) { self.name = name }
}

@Model final class AtkBook {
    var title: String
    init(title: String) { self.title = title }
}

@Model final class AtkPhoto {
    var title: String
    @Attribute(.externalStorage) var data: Data?
    init(title: String, data: Data?) {
        self.title = title
        self.data = data
    }
}

@Model final class AtkOwner {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \AtkPet.owner) var pets: [AtkPet] = []
    init(name: String) { self.name = name }
}

@Model final class AtkPet {
    var name: String
    var owner: AtkOwner?
    init(name: String) { self.name = name }
}

enum AtkV1 {
    @Model final class AtkCrate {
        var label: String
        init(label: String) { self.label = label }
    }
}

enum AtkV2 {
    @Model final class AtkCrate {
        var label: String
        var weight: Int = 0
        init(label: String, weight: Int) {
            self.label = label
            self.weight = weight
        }
    }
}

@Suite struct AttackMultiStoreTests {
    /// Blobs of a model kept in the second store are references too: garbage collection must not
    /// trash (and prune) them.
    @Test func atkGarbageCollectionKeepsTheSecondStoresBlobs() throws {
        let dir = TemporaryDirectory()
        let c = try ModelContainer(for: AtkShip.self, AtkPhoto.self, configurations:
            ModelConfiguration("ships", schema: Schema([AtkShip.self]), url: dir.store("ships.store")),
            ModelConfiguration("photos", schema: Schema([AtkPhoto.self]), url: dir.store("photos.store")))
        let context = ModelContext(c)
        context.insert(AtkPhoto(title: "p", data: Data("kept-bytes".utf8)))
        try context.save()
        let digest = SHA256.digest(Data("kept-bytes".utf8))
        #expect(try c.referencedBlobDigests().contains(digest))
        _ = try c.collectGarbage(gracePeriod: 0)
        _ = try c.collectGarbage(gracePeriod: 0, pruneNow: true)
        let photo = try #require(try ModelContext(c).fetch(FetchDescriptor<AtkPhoto>()).first)
        #expect(photo.data == Data("kept-bytes".utf8))
    }

    /// `allowsSave: false` on the second configuration: its file must not be written.
    @Test func atkReadOnlySecondStoreIsNotWritten() throws {
        let dir = TemporaryDirectory()
        let books = dir.store("books.store")
        do {
            let context = ModelContext(try container(AtkBook.self, at: books))
            context.insert(AtkBook(title: "old"))
            try context.save()
        }
        let c = try ModelContainer(for: AtkShip.self, AtkBook.self, configurations:
            ModelConfiguration("ships", schema: Schema([AtkShip.self]), url: dir.store("ships.store")),
            ModelConfiguration("books", schema: Schema([AtkBook.self]), url: books, allowsSave: false))
        let context = ModelContext(c)
        context.insert(AtkBook(title: "new"))
        _ = try? context.save()  // should be refused
        #expect(try SQLiteProbe(books).scalar("SELECT count(*) FROM AtkBook") == "1")
    }

    /// The same file named through a symbolic link to its folder is one store, as one URL is.
    @Test func atkOneFileThroughASymlinkIsOneStore() throws {
        let dir = TemporaryDirectory()
        let real = dir.url.appendingPathComponent("real"), link = dir.url.appendingPathComponent("link")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        func open() throws -> ModelContainer {
            try ModelContainer(for: AtkShip.self, AtkBook.self, configurations:
                ModelConfiguration("a", schema: Schema([AtkShip.self]), url: real.appendingPathComponent("s.store")),
                ModelConfiguration("b", schema: Schema([AtkBook.self]), url: link.appendingPathComponent("s.store")))
        }
        do {
            let context = ModelContext(try open())
            context.insert(AtkShip(name: "s"))
            context.insert(AtkBook(title: "b"))
            try context.save()
        }
        let c = try open()
        #expect(c.writeRefusal == nil)
        let context = ModelContext(c)
        #expect(try context.fetchCount(FetchDescriptor<AtkShip>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<AtkBook>()) == 1)
        context.insert(AtkShip(name: "t"))
        try context.save()
    }

    /// An in-memory first configuration beside a file store: SQLite attaches the file with the
    /// in-memory database's VFS, so it would be an empty database in memory. Refused, saying how.
    @Test func atkAFileStoreBesideAnInMemoryFirstStore() throws {
        let dir = TemporaryDirectory()
        let books = dir.store("books.store")
        #expect {
            try ModelContainer(for: AtkShip.self, AtkBook.self, configurations:
                ModelConfiguration("scratch", schema: Schema([AtkShip.self]), isStoredInMemoryOnly: true),
                ModelConfiguration("books", schema: Schema([AtkBook.self]), url: books))
        } throws: { error in
            guard case ModelError.severalStores(let reason) = error else { return false }
            return reason.contains("list the file's configuration first")
        }
    }

    /// A table left in the first file from before the stores were separated is used for the
    /// second configuration's model, but no store migrates it any more: a new property breaks it.
    @Test func atkATableKeptInTheFirstFileIsStillMigrated() throws {
        let dir = TemporaryDirectory()
        let ships = dir.store("ships.store"), crates = dir.store("crates.store")
        do {
            let context = ModelContext(try ModelContainer(for: AtkShip.self, AtkV1.AtkCrate.self, configurations: ModelConfiguration(url: ships)))
            context.insert(AtkV1.AtkCrate(label: "old"))
            try context.save()
        }
        let c = try ModelContainer(for: AtkShip.self, AtkV2.AtkCrate.self, configurations:
            ModelConfiguration("ships", schema: Schema([AtkShip.self]), url: ships),
            ModelConfiguration("crates", schema: Schema([AtkV2.AtkCrate.self]), url: crates))
        let context = ModelContext(c)
        context.insert(AtkV2.AtkCrate(label: "new", weight: 5))
        try context.save()
        #expect(try ModelContext(c).fetch(FetchDescriptor<AtkV2.AtkCrate>(sortBy: [SortDescriptor(\.label)])).map(\.weight) == [5, 0])
    }
}

@Suite struct AttackObservationTests {
    final class Count: @unchecked Sendable { var value = 0 }
    func track(_ read: @escaping () -> Void) -> Count {
        let count = Count()
        withObservationTracking(read) { count.value += 1 }
        return count
    }

    /// A member added to a to-many that a save had unloaded, read, then rolled back: the array
    /// goes back to what the store holds, and its observers are told.
    @Test func atkRollbackOfAMemberAddedToAnUnloadedArray() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(AtkOwner.self, AtkPet.self, at: dir.store()))
        let ann = AtkOwner(name: "Ann"), rex = AtkPet(name: "Rex")
        context.insert(ann)
        context.insert(rex)
        rex.owner = ann
        try context.save()   // the save unloaded ann.pets
        let max = AtkPet(name: "Max")
        context.insert(max)
        max.owner = ann
        #expect(Set(ann.pets.map(\.name)) == ["Rex", "Max"])
        let pets = track { _ = ann.pets }
        context.rollback()
        #expect(ann.pets.map(\.name) == ["Rex"])
        #expect(pets.value == 1)
    }
}

@Suite struct AttackHistoryTests {
    /// A deleted row's key is not given to the next insert (SQLite gives the largest key plus
    /// one): history showed "delete p2" then "insert p2" of another model, and an identifier kept
    /// from before named the new one. Nor after a reopen, nor after `erase()`.
    @Test func atkAnIdentifierIsNotReusedAfterADelete() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(AtkBook.self, at: dir.store()))
        let a = AtkBook(title: "a"), b = AtkBook(title: "b")
        context.insert(a); context.insert(b)
        try context.save()
        let gone = b.persistentModelID
        context.delete(b)
        try context.save()
        let c = AtkBook(title: "c")
        context.insert(c)
        try context.save()
        #expect(c.persistentModelID != gone)
        #expect((try? context.model(for: gone, as: AtkBook.self))?.title != "c")

        let lastKey = c.persistentModelID.primaryKey
        context.delete(c)
        try context.save()
        let reopened = ModelContext(try container(AtkBook.self, at: dir.store()))
        let d = AtkBook(title: "d")
        reopened.insert(d)
        try reopened.save()
        #expect(d.persistentModelID.primaryKey == lastKey + 1)
    }

    /// `erase()` is in the history, as a transaction deleting every row (a reader following it
    /// from a token learns the models are gone), and the erased keys are not given again.
    @Test func atkEraseIsVisibleInHistory() throws {
        let dir = TemporaryDirectory()
        let c = try container(AtkBook.self, at: dir.store())
        let context = ModelContext(c)
        let book = AtkBook(title: "a")
        context.insert(book)
        try context.save()
        let erased = book.persistentModelID
        try c.erase()
        let last = try #require(try ModelContext(c).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        guard case .delete(let delete)? = last.changes.first else { Issue.record("\(last.changes)"); return }
        #expect(last.changes.count == 1 && delete.changedPersistentIdentifier == erased)
        let next = ModelContext(c)
        let newer = AtkBook(title: "b")
        next.insert(newer)
        try next.save()
        #expect(newer.persistentModelID.primaryKey == erased.primaryKey + 1)
    }
}

@Suite struct AttackConstantFoldingTests {
    struct Inner: Codable, Sendable { var value: Int }
    struct Holder: Codable, Sendable {
        var ranks: ClosedRange<Int>
        var inner: Inner?
        var note: String?
        var ids: [PersistentIdentifier] = []
    }

    func fetch(_ predicate: Predicate<Item>, notes: [String: String] = [:]) throws -> [String] {
        try fruitNames(predicate, notes: notes)
    }

    /// `holder.ranks.contains($0.rank)`: a captured value's range property.
    @Test func atkACapturedValuesRangeProperty() throws {
        let holder = Holder(ranks: 2...3)
        #expect(try fetch(#Predicate<Item> { holder.ranks.contains($0.rank) }) == ["banana", "cherry"])
    }

    /// Optional chaining on a captured value: `holder.inner?.value`.
    @Test func atkOptionalChainingOnACapturedValue() throws {
        let holder = Holder(ranks: 0...0, inner: Inner(value: 3))
        #expect(try fetch(#Predicate<Item> { $0.rank == (holder.inner?.value ?? 0) }) == ["cherry"])
    }

    /// A constant sequence holding nil: Swift's `contains` finds nil, SQL's `IN (NULL, …)` does not.
    @Test func atkNilInAConstantSequence() throws {
        let notes: [String?] = [nil, "x"]
        let matched = try fetch(#Predicate<Item> { notes.contains($0.note) }, notes: ["apple": "x"])
        #expect(matched == ["apple", "banana", "cherry", "date"])
        let unmatched = try fetch(#Predicate<Item> { !notes.contains($0.note) }, notes: ["apple": "x", "date": "y"])
        #expect(unmatched == ["date"])
    }

    /// A constant `String.count` is Swift's (grapheme clusters), not SQLite's `length` (code points).
    @Test func atkACapturedStringsCountIsSwiftsCount() throws {
        let word = "👍🏽"  // one Character, two scalars
        #expect(word.count == 1)
        #expect(try fetch(#Predicate<Item> { $0.rank == word.count }) == ["apple"])
    }

    /// Force-unwrapping a captured nil: Foundation's evaluate throws; the fetch does not.
    @Test func atkForceUnwrapOfACapturedNil() throws {
        let holder = Holder(ranks: 0...0, note: nil)
        let predicate = #Predicate<Item> { $0.name == holder.note! }
        #expect(throws: (any Error).self) { try predicate.evaluate(Item(name: "z", rank: 0)) }
        #expect(throws: (any Error).self) { try fetch(predicate, notes: ["apple": "x"]) }
    }

    /// `ids.contains($0.persistentModelID)` with the identifiers in a captured value.
    @Test func atkCapturedIdentifiersInAnInList() throws {
        let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        let a = Item(name: "a", rank: 1), b = Item(name: "b", rank: 2)
        context.insert(a); context.insert(b)
        try context.save()
        let holder = Holder(ranks: 0...0, ids: [b.persistentModelID])
        #expect(try context.fetch(FetchDescriptor(predicate: #Predicate<Item> { holder.ids.contains($0.persistentModelID) })).map(\.name) == ["b"])
        let ids = [b.persistentModelID]
        #expect(try context.fetch(FetchDescriptor(predicate: #Predicate<Item> { ids.contains($0.persistentModelID) })).map(\.name) == ["b"])
    }

}

enum AtkUV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [AtkTrip.self] }
    @Model final class AtkTrip {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Only `.unique` added (Apple's own example of a custom stage: de-duplicate, then make unique).
enum AtkUV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [AtkTrip.self] }
    @Model final class AtkTrip {
        @Attribute(.unique) var name: String
        init(name: String) { self.name = name }
    }
}

enum AtkUPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [AtkUV1.self, AtkUV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: AtkUV1.self, toVersion: AtkUV2.self, willMigrate: { context in
            var seen = Set<String>()
            for trip in try context.fetch(FetchDescriptor<AtkUV1.AtkTrip>()) where !seen.insert(trip.name).inserted { context.delete(trip) }
            try context.save()
        }, didMigrate: nil)]
    }
}

@Suite struct AttackMigrationTests {
    /// The app's first release had no migration plan (`ModelContainer(for: Trip.self)`); the next
    /// adds one whose V1 is those models and whose V2 only adds `.unique`. The store has no
    /// recorded version; its shape is V1's and V2's (the shape ignores `.unique`), and the latest
    /// is taken: the de-duplicating stage never runs and the unique index is never made.
    @Test func atkAStoreWithoutAVersionRunsTheStageToAVersionOfTheSameShape() throws {
        let dir = TemporaryDirectory()
        do {
            let context = ModelContext(try ModelContainer(for: AtkUV1.AtkTrip.self, configurations: ModelConfiguration(url: dir.store())))
            context.insert(AtkUV1.AtkTrip(name: "rome"))
            context.insert(AtkUV1.AtkTrip(name: "rome"))
            try context.save()
        }
        let c = try ModelContainer(for: Schema(versionedSchema: AtkUV2.self), migrationPlan: AtkUPlan.self,
                                   configurations: ModelConfiguration(url: dir.store()))
        #expect(try c.mainContext.fetchCount(FetchDescriptor<AtkUV2.AtkTrip>()) == 1)
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'AtkTrip'") != "0")
    }
}
