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
}
