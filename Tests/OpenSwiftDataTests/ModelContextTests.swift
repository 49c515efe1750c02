import Foundation
import Testing
import CSQLite
@testable import OpenSwiftData

@Suite struct ModelContextTests {
    func memoryContainer() throws -> ModelContainer {
        try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func insertSaveAndTrackedArrays() throws {
        let context = ModelContext(try memoryContainer())
        #expect(!context.hasChanges)
        let a = Item(name: "a", rank: 1)
        context.insert(a)
        #expect(context.hasChanges && context.insertedModelsArray.count == 1)
        #expect(a.persistentModelID.isTemporary)
        try context.save()
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty)
        #expect(!a.persistentModelID.isTemporary && a.persistentModelID.primaryKey == 1)
        a.rank = 5
        #expect(context.changedModelsArray.count == 1 && a.hasChanges)
        context.delete(a)
        #expect(context.deletedModelsArray.count == 1 && a.isDeleted)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 0)
    }

    @Test func fetchingTheSameRowTwiceGivesTheSameInstance() throws {
        let c = try memoryContainer()
        let writer = ModelContext(c)
        writer.insert(Item(name: "a", rank: 1))
        try writer.save()
        let reader = ModelContext(c)
        let first = try reader.fetch(FetchDescriptor<Item>())
        let second = try reader.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.rank == 1 }))
        #expect(first.count == 1 && first[0] === second[0])
        #expect(try reader.model(for: first[0].persistentModelID, as: Item.self) === first[0])
    }

    /// Models are registered without being retained: one freed while its backing data lives on
    /// (held here) must leave the registry at once, or a later fetch would hand out a dead object.
    @Test func aModelFreedWhileItsBackingDataLivesIsRefetchedAsANewInstance() throws {
        let context = ModelContext(try memoryContainer())
        context.insert(Item(name: "a", rank: 1))
        try context.save()
        let fresh = ModelContext(context.container)
        var backing: _BackingData?
        weak var freed: Item?
        do {
            let item = try #require(try fresh.fetch(FetchDescriptor<Item>()).first)
            backing = item.persistentBackingData
            freed = item
        }
        #expect(freed == nil && backing != nil)
        #expect(fresh.registry.isEmpty)
        let again = try #require(try fresh.fetch(FetchDescriptor<Item>()).first)
        #expect(again.name == "a" && again.persistentBackingData !== backing)
    }

    /// A class with a deinit of its own (which `@Model` cannot extend) is registered weakly: same
    /// identity rules, and its deinit still runs.
    @Test func aModelWithItsOwnDeinitKeepsIdentityAndIsFreed() throws {
        let c = try ModelContainer(for: Noisy.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(c)
        for i in 0..<3 { writer.insert(Noisy(name: "n\(i)")) }
        try writer.save()
        let reader = ModelContext(c)
        let before = Noisy.deinits
        do {
            let first = try reader.fetch(FetchDescriptor<Noisy>(sortBy: [SortDescriptor(\.name)]))
            let second = try reader.fetch(FetchDescriptor<Noisy>(sortBy: [SortDescriptor(\.name)]))
            #expect(first.map(\.name) == ["n0", "n1", "n2"] && zip(first, second).allSatisfy { $0 === $1 })
        }
        #expect(Noisy.deinits - before == 3)
        let again = try reader.fetch(FetchDescriptor<Noisy>(sortBy: [SortDescriptor(\.name)]))
        #expect(again.map(\.name) == ["n0", "n1", "n2"])
    }

    /// A fetched model is built around the row's backing data; another model made while it is being
    /// built (here by a `@Transient` property's default value) must get one of its own.
    @Test func aModelMadeWhileAFetchedOneIsBuiltGetsItsOwnBackingData() throws {
        let c = try ModelContainer(for: Holder.self, Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(c)
        writer.insert(Holder(label: "kept"))
        try writer.save()
        let holder = try #require(ModelContext(c).fetch(FetchDescriptor<Holder>()).first)
        #expect(holder.label == "kept" && holder.count == 7)
        #expect(holder.scratch.name == "scratch" && holder.scratch.persistentBackingData !== holder.persistentBackingData)
        #expect(holder.scratch.modelContext == nil)
    }

    /// A property's default value that runs a fetch while a fetched model is built: the inner
    /// fetch's hand-off must not take the place of the outer one (the outer model's backing data
    /// was then never released: a leak of every such model and what it held).
    @Test func aFetchInADefaultValueLeavesTheOuterModelItsBackingData() throws {
        let c = try ModelContainer(for: Fetcher.self, Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(c)
        writer.insert(Item(name: "inner", rank: 1))
        writer.insert(Fetcher(label: "outer"))
        try writer.save()
        Fetcher.container = c
        defer { Fetcher.container = nil }
        weak var backing: _BackingData?
        do {
            let reader = ModelContext(c)
            let fetched = try #require(reader.fetch(FetchDescriptor<Fetcher>()).first)
            #expect(fetched.label == "outer" && fetched.found == "inner")
            backing = fetched.persistentBackingData
        }
        #expect(backing == nil, "the fetched model's backing data is freed with it")
    }

    /// A property's default value that builds a model of the same type while a fetched one is
    /// built: that model took the row's backing data (its title read the row's, and its changes
    /// were saved to the row). Now each has its own.
    @Test func aModelOfTheSameTypeMadeByADefaultValueGetsItsOwnBackingData() throws {
        let c = try ModelContainer(for: Draftable.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(c)
        writer.insert(Draftable(title: "row"))
        try writer.save()
        Draftable.makesDrafts = true
        defer { Draftable.makesDrafts = false }
        let reader = ModelContext(c)
        let fetched = try #require(reader.fetch(FetchDescriptor<Draftable>()).first)
        let draft = try #require(fetched.draft)
        #expect(fetched.title == "row" && draft.title == "draft")
        #expect(draft.persistentBackingData !== fetched.persistentBackingData)
        draft.title = "changed draft"
        try reader.save()
        #expect(try reader.query("SELECT title FROM Draftable") == [[.text("row")]])
    }

    @Test func rollbackRestoresSavedValuesAndForgetsInserts() throws {
        let context = ModelContext(try memoryContainer())
        let a = Item(name: "a", rank: 1)
        context.insert(a)
        try context.save()
        a.rank = 99
        a.note = "changed"
        let b = Item(name: "b", rank: 2)
        context.insert(b)
        context.rollback()
        #expect(a.rank == 1 && a.note == nil && !context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Item>()).map(\.name) == ["a"])
    }

    @Test func unsavedChangesAreVisibleToFetchesButNotWritten() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        let context = ModelContext(c)
        context.insert(Item(name: "saved", rank: 1))
        try context.save()
        let pending = Item(name: "pending", rank: 2)
        context.insert(pending)
        let seen = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)]))
        #expect(seen.map(\.name) == ["saved", "pending"])
        #expect(seen[1] === pending && pending.persistentModelID.isTemporary)
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 2)
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Item") == "1")
        var saved = FetchDescriptor<Item>()
        saved.includePendingChanges = false
        #expect(try context.fetchCount(saved) == 1)
    }

    @Test func limitOffsetAndMultipleSorts() throws {
        let context = ModelContext(try memoryContainer())
        for (i, name) in ["d", "b", "a", "c", "e"].enumerated() { context.insert(Item(name: name, rank: i % 2)) }
        try context.save()
        var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank, order: .reverse), SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["b", "c", "a", "d", "e"])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.name) == ["c", "a"])
        #expect(try context.fetchCount(descriptor) == 2)
        #expect(try context.fetchIdentifiers(descriptor).map(\.primaryKey) == [4, 3])
    }

    @Test func enumerateVisitsEveryRowInOrderAndReleasesBatches() throws {
        let context = ModelContext(try memoryContainer())
        for i in 0..<250 { context.insert(Item(name: "n\(i)", rank: i)) }
        try context.save()
        let fresh = ModelContext(context.container)
        var ranks: [Int] = []
        weak var firstSeen: Item?
        try fresh.enumerate(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank, order: .reverse)]), batchSize: 100) { item in
            if firstSeen == nil && ranks.isEmpty { firstSeen = item }
            ranks.append(item.rank)
        }
        #expect(ranks == Array((0..<250).reversed()))
        #expect(firstSeen == nil, "enumerate kept a model of an earlier batch alive")
    }

    @Test func deleteWhereRemovesMatchingRows() throws {
        let context = ModelContext(try memoryContainer())
        for i in 0..<10 { context.insert(Item(name: "n\(i)", rank: i)) }
        try context.save()
        try context.delete(model: Item.self, where: #Predicate { $0.rank >= 7 })
        #expect(context.deletedModelsArray.count == 3)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)])).map(\.rank) == Array(0..<7))
    }

    @Test func transactionSavesOrRollsBack() throws {
        let context = ModelContext(try memoryContainer())
        try context.transaction { context.insert(Item(name: "kept", rank: 1)) }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Item(name: "dropped", rank: 2))
                throw Stop()
            }
        }
        #expect(!context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Item>()).map(\.name) == ["kept"])
    }

    @Test func transientPropertiesAreNotStored() throws {
        let dir = TemporaryDirectory()
        do {
            let c = try container(Item.self, at: dir.store())
            let item = Item(name: "t", rank: 1)
            item.scratch = 42
            c.mainContext.insert(item)
            try c.mainContext.save()
        }
        let columns = try SQLiteProbe(dir.store()).rows("SELECT name FROM pragma_table_info('Item')").map { $0[0] }
        #expect(columns == ["_pk", "name", "rank", "price", "note", "created", "mood", "tags"])
        let c = try container(Item.self, at: dir.store())
        #expect(try c.mainContext.fetch(FetchDescriptor<Item>()).first?.scratch == 0)
    }

    @Test func storeUsesWALForeignKeysAndUniqueIndexes() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        c.mainContext.insert(Item(name: "a", rank: 1))
        try c.mainContext.save()
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.scalar("PRAGMA journal_mode") == "wal")
        #expect(try c.mainContext.connection.pragma("foreign_keys") == "1")
        #expect(try c.mainContext.connection.pragma("busy_timeout") == "10000")
        #expect(try probe.scalar("SELECT sql FROM sqlite_master WHERE name = 'Item_name_unique'") == #"CREATE UNIQUE INDEX "Item_name_unique" ON "Item"("name")"#)
    }

    @Test func aWriterThatMeetsAnotherWaitsAndReadersRunBeside() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        c.mainContext.insert(Item(name: "first", rank: 1))
        try c.mainContext.save()
        // Another process's writer, as SQLite sees it: a second connection holding the write lock.
        var other: OpaquePointer?
        #expect(sqlite3_open(dir.store().path, &other) == SQLITE_OK)
        defer { sqlite3_close_v2(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO Item (name, rank) VALUES ('other', 2)", nil, nil, nil) == SQLITE_OK)
        let holder = HeldConnection(other)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) {
            holder.commit()
            released.signal()
        }
        // A reader on its own connection is not held up by the writer (WAL).
        let reader = ModelContext(c)
        #expect(try reader.fetchCount(FetchDescriptor<Item>()) == 1)
        // A writer waits for the lock (busy timeout) instead of failing with SQLITE_BUSY.
        let writer = ModelContext(c)
        writer.insert(Item(name: "waited", rank: 3))
        try writer.save()
        #expect(holder.committing, "the save went through while the other writer held the lock")
        released.wait()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT name FROM Item ORDER BY rank").map { $0[0] } == ["first", "other", "waited"])
    }

    @Test func statementsArePreparedOnceAndReused() throws {
        let context = ModelContext(try memoryContainer())
        for i in 0..<50 { context.insert(Item(name: "n\(i)", rank: i)) }
        try context.save()
        // The insert, the history's row and the key reservation's read and write.
        #expect(try context.connection.cachedStatementCount <= 5)
    }
}

/// A raw connection holding a write transaction, committed from another thread.
final class HeldConnection: @unchecked Sendable {
    private let db: OpaquePointer?
    private let lock = NSLock()
    private var started = false
    init(_ db: OpaquePointer?) { self.db = db }
    var committing: Bool { lock.withLock { started } }
    func commit() {
        lock.withLock { started = true }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
}

@Model final class Noisy {
    nonisolated(unsafe) static var deinits = 0
    var name: String
    init(name: String) { self.name = name }
    deinit { Noisy.deinits += 1 }
}

@Model final class Fetcher {
    nonisolated(unsafe) static var container: ModelContainer?
    @Transient var found: String? = Fetcher.container.flatMap { try? ModelContext($0).fetch(FetchDescriptor<Item>()).first?.name }
    var label: String
    init(label: String) { self.label = label }
}

@Model final class Draftable {
    nonisolated(unsafe) static var makesDrafts = false
    nonisolated(unsafe) static var building = false
    @Transient var draft: Draftable? = Draftable.draftIfWanted()
    var title: String
    init(title: String) { self.title = title }
    /// A new draft, except while one is being made (its own `draft` stays nil).
    static func draftIfWanted() -> Draftable? {
        guard makesDrafts, !building else { return nil }
        building = true
        defer { building = false }
        return Draftable(title: "draft")
    }
}

@Model final class Holder {
    @Transient var scratch = Item(name: "scratch", rank: 0)
    var label: String
    var count: Int = 7
    init(label: String) { self.label = label }
}
