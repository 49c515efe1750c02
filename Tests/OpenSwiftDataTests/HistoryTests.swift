import Foundation
import Testing
import OpenSwiftData

@Model final class Journey {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Leg.journey) var legs: [Leg] = []
    init(name: String) { self.name = name }
}

@Model final class Leg {
    @Attribute(.preserveValueOnDeletion) var booking: String
    var seat: Int
    var journey: Journey?
    init(booking: String, seat: Int) {
        self.booking = booking
        self.seat = seat
    }
}

@Model final class Tour {
    @Attribute(.unique) var name: String
    var price: Int = 0
    @Relationship(deleteRule: .nullify, inverse: \Guide.tour) var guides: [Guide] = []
    init(name: String) { self.name = name }
}

@Model final class Guide {
    var name: String
    var tour: Tour?
    init(name: String) { self.name = name }
}

/// History (issue 35), as Apple documents it ("Fetching and filtering time-based model changes")
/// and sync code reads it: transactions per save, their changes, tokens, authors, tombstones.
@Suite struct HistoryTests {
    func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Journey.self, Leg.self, configurations: ModelConfiguration(url: url))
    }

    func history(_ context: ModelContext, after token: DefaultHistoryToken? = nil) throws -> [DefaultHistoryTransaction] {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token { descriptor.predicate = #Predicate { $0.token > token } }
        return try context.fetchHistory(descriptor)
    }

    @Test func eachSaveIsATransactionOfItsInsertsUpdatesAndDeletes() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(dir.store()))
        context.author = "app"
        let leg = Leg(booking: "AB12", seat: 3)
        context.insert(leg)
        try context.save()
        leg.seat = 4
        try context.save()
        let id = leg.persistentModelID
        context.delete(leg)
        try context.save()
        try context.save()  // nothing to save: no transaction

        let transactions = try history(context)
        #expect(transactions.count == 3)
        #expect(transactions.map(\.author) == ["app", "app", "app"])
        #expect(transactions.map(\.transactionIdentifier) == transactions.map(\.transactionIdentifier).sorted())
        #expect(zip(transactions, transactions.dropFirst()).allSatisfy { $0.token < $1.token })
        #expect(transactions.allSatisfy { $0.changes.map(\.changedPersistentIdentifier) == [id] })

        guard case .insert(let insert) = transactions[0].changes[0] else { Issue.record("not an insert"); return }
        #expect(insert is DefaultHistoryInsert<Leg>)
        guard case .update(let update) = transactions[1].changes[0], let legUpdate = update as? DefaultHistoryUpdate<Leg> else {
            Issue.record("not an update of a Leg"); return
        }
        #expect(legUpdate.updatedAttributes.map { $0 as AnyKeyPath } == [\Leg.seat])
        guard case .delete(let delete) = transactions[2].changes[0], let legDelete = delete as? DefaultHistoryDelete<Leg> else {
            Issue.record("not a delete of a Leg"); return
        }
        #expect(legDelete.tombstone[\.booking] as? String == "AB12")
        #expect(legDelete.tombstone[\.seat] == nil, "only .preserveValueOnDeletion values are kept")
    }

    /// Another container on the store (another process, a widget) reads what this one saved,
    /// after a token it kept as JSON, and tells authors apart.
    @Test func anotherContainerReadsChangesAfterAToken() throws {
        let dir = TemporaryDirectory()
        let app = ModelContext(try container(dir.store()))
        app.author = "app"
        app.insert(Journey(name: "Rome"))
        try app.save()
        let kept = try JSONEncoder().encode(try #require(try history(app).last).token)

        let widget = ModelContext(try container(dir.store()))
        widget.author = "widget"
        widget.insert(Journey(name: "Paris"))
        try widget.save()
        app.insert(Journey(name: "Oslo"))
        try app.save()

        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: kept)
        let reader = ModelContext(try container(dir.store()))
        let newer = try history(reader, after: token)
        #expect(newer.map(\.author) == ["widget", "app"])
        let fromWidget = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate {
            $0.token > token && $0.author == "widget"
        }))
        #expect(fromWidget.count == 1 && fromWidget[0].changes.count == 1)
    }

    /// Rows a cascade deletes in SQL, without loading them, are in the history too, with their tombstones.
    @Test func aCascadeDeletesRecordedWithTheirTombstones() throws {
        let dir = TemporaryDirectory()
        do {
            let context = ModelContext(try container(dir.store()))
            let journey = Journey(name: "Rome")
            context.insert(journey)
            journey.legs = [Leg(booking: "X1", seat: 1), Leg(booking: "X2", seat: 2)]
            try context.save()
        }
        let context = ModelContext(try container(dir.store()))
        let journey = try #require(try context.fetch(FetchDescriptor<Journey>()).first)
        context.delete(journey)
        try context.save()
        let last = try #require(try history(context).last)
        let deletes = last.changes.compactMap { change -> DefaultHistoryDelete<Leg>? in
            if case .delete(let delete) = change { return delete as? DefaultHistoryDelete<Leg> } else { return nil }
        }
        #expect(Set(deletes.compactMap { $0.tombstone[\.booking] as? String }) == ["X1", "X2"])
        #expect(last.changes.count == 3)
    }

    /// Deleted history is gone; later transactions keep increasing numbers (a kept token still orders).
    @Test func deleteHistoryRemovesWhatItSelectsAndNumbersAreNotReused() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(dir.store()))
        for name in ["a", "b", "c"] {
            context.insert(Journey(name: name))
            try context.save()
        }
        let all = try history(context)
        let cut = all[1].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= cut }))
        #expect(try history(context).map(\.transactionIdentifier) == [all[2].transactionIdentifier])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try history(context).isEmpty)
        context.insert(Journey(name: "d"))
        try context.save()
        #expect(try history(context).map(\.transactionIdentifier) == [all[2].transactionIdentifier + 1])
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM _osd_history") == "1")
    }

    /// A save that fails records nothing, and the next one is recorded as usual.
    @Test func aFailedSaveRecordsNothing() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(dir.store()))
        context.insert(Journey(name: "a"))
        try context.save()
        try SQLiteProbe(dir.store()).execute("CREATE TRIGGER refuse BEFORE INSERT ON Journey BEGIN SELECT RAISE(ABORT, 'refused'); END")
        context.insert(Journey(name: "b"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try history(context).count == 1)
        try SQLiteProbe(dir.store()).execute("DROP TRIGGER refuse")
        try context.save()
        #expect(try history(context).count == 2)
    }

    /// Sorted and limited as the descriptor says.
    @Test func sortAndLimit() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(dir.store()))
        for name in ["a", "b", "c"] {
            context.insert(Journey(name: name))
            try context.save()
        }
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        descriptor.fetchLimit = 2
        let newest = try context.fetchHistory(descriptor)
        let all = try history(context)
        #expect(newest.map(\.transactionIdentifier) == [all[2].transactionIdentifier, all[1].transactionIdentifier])
    }

    /// Rows SQLite's `ON DELETE SET NULL` updates, unloaded, are recorded as updates of their to-one;
    /// an upsert is an update of the stored row, not an insert.
    @Test func nullifiedRowsAndUpsertsAreUpdates() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        func open() throws -> ModelContext {
            ModelContext(try ModelContainer(for: Tour.self, Guide.self, configurations: ModelConfiguration(url: url)))
        }
        do {
            let context = try open()
            let tour = Tour(name: "Rome")
            context.insert(tour)
            tour.guides = [Guide(name: "Ana")]
            try context.save()
        }
        let context = try open()
        let tour = try #require(try context.fetch(FetchDescriptor<Tour>()).first)
        let guideID = try #require(try context.fetchIdentifiers(FetchDescriptor<Guide>()).first)
        context.delete(tour)
        try context.save()
        var last = try #require(try history(context).last)
        let update = last.changes.compactMap { change -> DefaultHistoryUpdate<Guide>? in
            if case .update(let update) = change { return update as? DefaultHistoryUpdate<Guide> } else { return nil }
        }
        #expect(update.map(\.changedPersistentIdentifier) == [guideID])
        #expect(update.first?.updatedAttributes.map { $0 as AnyKeyPath } == [\Guide.tour])

        context.insert(Tour(name: "Oslo"))
        try context.save()
        let oslo = try #require(try history(context).last).changes
        context.insert(Tour(name: "Oslo"))  // the same unique name: the stored row is updated
        try context.save()
        last = try #require(try history(context).last)
        guard case .insert = oslo[0], case .update(let upsert) = last.changes[0] else { Issue.record("\(last.changes)"); return }
        #expect(upsert.changedPersistentIdentifier == oslo[0].changedPersistentIdentifier)
    }

    /// A damaged record (cut short, a count larger than its bytes, another version) reads as a
    /// transaction without changes: never a crash, never an allocation its numbers ask for.
    @Test func aDamagedRecordReadsAsNoChanges() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(dir.store()))
        context.insert(Journey(name: "a"))
        try context.save()
        for damaged in ["x'01'", "x'0100000000'", "x'010000FFFFFFFF'", "x'02'", "x''"] {
            try SQLiteProbe(dir.store()).execute("UPDATE _osd_history SET changes = \(damaged)")
            let transactions = try history(context)
            #expect(transactions.count == 1 && transactions[0].changes.isEmpty, "\(damaged)")
        }
    }
}
