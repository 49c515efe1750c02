import Foundation
import Testing
@testable import OpenSwiftData

/// A to-many relationship of a fetch's models is loaded for all of them in one query: owners whose
/// keys fill most of their range by one range scan of the foreign key's index (the rows of owners
/// not asked for skipped), others by looking each owner up.
@Suite struct ToManyLoadTests {
    /// A model joining a to-many relationship that is not loaded, by its to-one side being set,
    /// reads nothing (adding 200 photos to a 5,000-photo memory read all 5,000 and searched the
    /// array once per photo); the array, read when asked for, shows the models that joined and
    /// are still its own (not moved on, deleted or rolled back), each once, before and after a save.
    @Test func joiningByTheToOneSideReadsNothingUntilTheArrayIsAskedFor() throws {
        let dir = TemporaryDirectory()
        let c = try store(dir)
        let context = ModelContext(c)
        let owner = try #require(try context.fetch(FetchDescriptor<Owner>(predicate: #Predicate { $0.name == "even 4" })).first)
        let other = try #require(try context.fetch(FetchDescriptor<Owner>(predicate: #Predicate { $0.name == "even 6" })).first)
        var sql: [String] = []
        context.traceSQL { sql.append($0) }
        let pets = (0..<50).map { Pet(name: "new-\($0)") }
        for pet in pets {
            context.insert(pet)
            pet.owner = owner
        }
        #expect(sql.isEmpty, "nothing read to add to an unloaded to-many: \(sql)")
        context.delete(pets[1])
        pets[0].owner = other
        let expected = Set(["4-a", "4-b"] + (2..<50).map { "new-\($0)" })
        #expect(owner.pets.count == expected.count && Set(owner.pets.map(\.name)) == expected, "\(owner.pets.map(\.name).sorted())")
        #expect(Set(other.pets.map(\.name)) == ["6-a", "6-b", "new-0"])
        try context.save()
        let reader = ModelContext(c)
        let stored = try #require(try reader.fetch(FetchDescriptor<Owner>(predicate: #Predicate { $0.name == "even 4" })).first)
        #expect(stored.pets.count == expected.count && Set(stored.pets.map(\.name)) == expected, "\(stored.pets.map(\.name).sorted())")

        // Joined after the save (the array is not loaded again), then rolled back: not a member.
        let late = Pet(name: "late")
        context.insert(late)
        late.owner = owner
        context.rollback()
        #expect(owner.pets.count == expected.count && !owner.pets.contains { $0.name == "late" }, "\(owner.pets.map(\.name).sorted())")
    }

    /// A model moved into a to-many relationship that is not loaded, then its owner deleted with a
    /// cascade: the cascade reaches it (it is not in the store's rows of that owner yet).
    @Test func aCascadeReachesAModelThatJoinedAnUnloadedRelationship() throws {
        let dir = TemporaryDirectory()
        let c = try container(Folder.self, at: dir.store())
        let setup = ModelContext(c)
        let a = Folder(name: "a"), b = Folder(name: "b")
        setup.insert(a)
        setup.insert(b)
        setup.insert(Folder(name: "c", parent: b))
        try setup.save()
        let context = ModelContext(c)
        let folders = try context.fetch(FetchDescriptor<Folder>(sortBy: [SortDescriptor(\.name)]))
        let (fa, fc) = (folders[0], folders[2])
        fc.parent = fa
        context.delete(fa)
        try context.save()
        #expect(try ModelContext(c).fetch(FetchDescriptor<Folder>()).map(\.name) == ["b"])
    }

    /// 300 owners with two pets each: owner `i` is named "even i", "odd i" or, for 1, 101 and
    /// 201, "far i"; its pets are "i-a" and "i-b".
    static func name(_ i: Int) -> String { "\(i % 100 == 1 ? "far" : i % 2 == 0 ? "even" : "odd") \(i)" }
    static func pets(_ name: String) -> [String] { let i = name.split(separator: " ")[1]; return ["\(i)-a", "\(i)-b"] }

    func store(_ dir: TemporaryDirectory) throws -> ModelContainer {
        let c = try container(Owner.self, Pet.self, at: dir.store())
        let context = ModelContext(c)
        for i in 0..<300 {
            let owner = Owner(name: Self.name(i))
            context.insert(owner)
            for suffix in ["a", "b"] { owner.pets.append(Pet(name: "\(i)-\(suffix)")) }
        }
        try context.save()
        return c
    }

    /// The store, closed, for editing by hand: SQL on it, and the name of Pet's owner column.
    func handEdited(_ dir: TemporaryDirectory) throws -> (probe: SQLiteProbe, ownerColumn: String) {
        _ = try store(dir)
        let probe = SQLiteProbe(dir.store())
        return (probe, try probe.scalar("SELECT name FROM pragma_table_info('Pet') WHERE name LIKE '%owner%'"))
    }

    /// Loads the pets of the owners `predicate` picks; returns each owner's pets' names and the SQL.
    func load(_ c: ModelContainer, _ predicate: Predicate<Owner>) throws -> (pets: [String: [String]], sql: [String]) {
        let context = ModelContext(c)
        var sql: [String] = []
        let owners = try context.fetch(FetchDescriptor<Owner>(predicate: predicate, sortBy: [SortDescriptor(\.name)]))
        context.traceSQL { sql.append($0) }
        var pets: [String: [String]] = [:]
        for owner in owners { pets[owner.name] = owner.pets.map(\.name) }
        return (pets, sql)
    }

    /// The even owners: 150 keys spread over a range of 299, dense enough for the range scan, with
    /// the other owners' pets inside it and after it (the scan stops past its last key); the three
    /// "far" owners, looked up one by one; every owner.
    @Test(arguments: [("even", 150, ">= ?"), ("far", 3, "json_each"), ("", 300, ">= ?")])
    func eachOwnerGetsOnlyItsOwnPets(prefix: String, owners: Int, sqlUsed: String) throws {
        let dir = TemporaryDirectory()
        let c = try store(dir)
        let (pets, sql) = try load(c, #Predicate { $0.name.starts(with: prefix) })
        #expect(pets.count == owners)
        for (name, list) in pets { #expect(list == Self.pets(name), "\(name)") }
        #expect(sql.count == 1 && sql.first?.contains(sqlUsed) == true, "\(sql)")
    }

    /// A hand-edited store whose owners' keys lie at both ends of Int64. The negative one is refused
    /// by name (such a row was read as a model not saved yet: its pets read as empty, and its key
    /// could be a new model's); the rest load, the key at Int64.max with its pets, and the range is
    /// not computed by an overflowing subtraction (that trapped): the owners are looked up one by one.
    @Test func ownerKeysAtBothEndsOfInt64AreRefusedOrLookedUpNotSubtracted() throws {
        let dir = TemporaryDirectory()
        let (probe, column) = try handEdited(dir)
        // Keys 2 and 3 ("far 1", "even 2"): the first owner walked ("even 0", key 1) loads them as its mates.
        for (old, new) in [("2", "-9223372036854775807"), ("3", "9223372036854775807")] {
            try probe.execute("PRAGMA foreign_keys=OFF; UPDATE Owner SET _pk = \(new) WHERE _pk = \(old); UPDATE Pet SET \(column) = \(new) WHERE \(column) = \(old)")
        }
        let c = try container(Owner.self, Pet.self, at: dir.store())
        #expect {
            _ = try ModelContext(c).fetch(FetchDescriptor<Owner>())
        } throws: { error in
            guard case ModelError.corruptValue(model: "Owner", property: "_pk", let stored) = error else { return false }
            return stored.hasPrefix("-9223372036854775807 (a key below 1")
        }
        let (pets, sql) = try load(c, #Predicate { $0.name != "far 1" })
        #expect(pets.count == 299 && pets["even 2"] == Self.pets("even 2"))
        for (name, list) in pets { #expect(list == Self.pets(name), "\(name)") }
        #expect(sql.count == 1 && sql.first?.contains("json_each") == true, "\(sql)")
    }

    /// After a fetch refused a row, the context is not left reading the store as it was (the
    /// refused statement kept its read snapshot open), and a pet whose owner is that row reads
    /// its owner as nil, reported to `loadErrorHandler` (the fault left in place crashed the getter).
    @Test func aRefusedRowLeavesNoStaleSnapshotAndItsReferrersReadNil() throws {
        let dir = TemporaryDirectory()
        let (probe, column) = try handEdited(dir)
        try probe.execute("PRAGMA foreign_keys=OFF; UPDATE Owner SET _pk = -5 WHERE _pk = 2; UPDATE Pet SET \(column) = -5 WHERE \(column) = 2")
        let c = try container(Owner.self, Pet.self, at: dir.store())
        let context = ModelContext(c)
        var reported: [Error] = []
        context.loadErrorHandler = { reported.append($0) }
        #expect(throws: ModelError.self) { try context.fetch(FetchDescriptor<Owner>()) }
        let other = ModelContext(try container(Owner.self, Pet.self, at: dir.store()))
        other.insert(Owner(name: "late"))
        try other.save()
        #expect(try context.fetchCount(FetchDescriptor<Owner>()) == 301, "the new owner is seen")
        let pet = try #require(try context.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.name == "1-a" })).first)
        #expect(pet.owner == nil)
        #expect(reported.count == 1)
    }

    /// A damaged store whose foreign key holds text ('5x'): the range scan (`>= ?`, under which
    /// text sorts after every number) does not give the pet to owner 5.
    @Test func aForeignKeyStoredAsTextIsNotReadAsANumber() throws {
        let dir = TemporaryDirectory()
        let (probe, column) = try handEdited(dir)
        try probe.execute("PRAGMA foreign_keys=OFF; UPDATE Pet SET \(column) = '5x' WHERE name = '299-a'")
        let (pets, sql) = try load(try container(Owner.self, Pet.self, at: dir.store()), #Predicate { $0.name.starts(with: "") })
        #expect(sql.first?.contains(">= ?") == true, "\(sql)")
        #expect(pets["even 4"] == Self.pets("even 4"))
        #expect(pets["odd 299"] == ["299-b"])
    }
}
