import Foundation
import Testing
import OpenSwiftData

@Suite struct UniqueTests {
    @Test func insertingADuplicateUniqueValueUpdatesTheStoredRow() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        let context = ModelContext(c)
        let original = Item(name: "same", rank: 1)
        context.insert(original)
        try context.save()
        let replacement = Item(name: "same", rank: 7, note: "newer")
        context.insert(replacement)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT _pk, name, rank, note FROM Item") == [["1", "same", "7", "newer"]])
        #expect(replacement.persistentModelID == original.persistentModelID)
        #expect(original.rank == 7, "the object already standing for the row shows the saved values")
        let fetched = try context.fetch(FetchDescriptor<Item>())
        #expect(fetched.count == 1 && fetched[0] === replacement)
    }

    @Test func failPolicyThrowsATypedErrorAndWritesNothing() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store(), policy: .fail)
        let context = ModelContext(c)
        context.insert(Item(name: "same", rank: 1))
        try context.save()
        context.insert(Item(name: "other", rank: 2))
        context.insert(Item(name: "same", rank: 3))
        #expect(throws: ModelError.uniqueConstraintViolation(model: "Item", property: "name")) { try context.save() }
        #expect(context.hasChanges, "the failed changes stay pending")
        #expect(try SQLiteProbe(dir.store()).rows("SELECT name, rank FROM Item") == [["same", "1"]])
    }

    @Test func changingAUniqueValueToATakenOneThrows() throws {
        let context = ModelContext(try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let a = Item(name: "a", rank: 1)
        let b = Item(name: "b", rank: 2)
        context.insert(a)
        context.insert(b)
        try context.save()
        b.name = "a"
        #expect(throws: ModelError.uniqueConstraintViolation(model: "Item", property: "name")) { try context.save() }
    }

    /// An upsert writes the new model's values into the row; children that point at the row stay
    /// its children, for the object that stood for the row before too (its array is read from the
    /// store again, not taken from the new model's empty one), so a cascade from it reaches them.
    @Test func anUpsertKeepsTheRowsChildrenForTheOlderObject() throws {
        let dir = TemporaryDirectory()
        let c = try container(UpsertParent.self, UpsertChild.self, at: dir.store())
        let context = ModelContext(c)
        let album = UpsertParent(title: "Blue")
        context.insert(album)
        album.tracks.append(UpsertChild(name: "one"))
        try context.save()

        context.insert(UpsertParent(title: "Blue"))
        try context.save()
        #expect(album.tracks.map(\.name) == ["one"])

        context.delete(album)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT COUNT(*) FROM UpsertChild") == [["0"]])
    }
}

@Model final class UpsertParent {
    @Attribute(.unique) var title: String
    @Relationship(deleteRule: .cascade, inverse: \UpsertChild.parent) var tracks: [UpsertChild] = []
    init(title: String) { self.title = title }
}

@Model final class UpsertChild {
    var name: String
    var parent: UpsertParent?
    init(name: String) { self.name = name }
}
