import Foundation
import Testing
@testable import OpenSwiftData

/// Several named configurations, each with its own URL and models: a store per configuration, as
/// SwiftData keeps them (issue 35). Models here: `Journey`/`Leg` and `Tour`/`Guide` (HistoryTests).
@Suite struct MultiStoreTests {
    func tables(_ url: URL) throws -> Set<String> {
        Set(try SQLiteProbe(url).rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").map { $0[0] })
    }

    func container(_ trips: URL, _ tours: URL) throws -> ModelContainer {
        try ModelContainer(for: Journey.self, Leg.self, Tour.self, Guide.self, configurations:
            ModelConfiguration("trips", schema: Schema([Journey.self]), url: trips),
            ModelConfiguration("tours", schema: Schema([Tour.self]), url: tours))
    }

    @Test func eachConfigurationsModelsAreWrittenToItsOwnFile() throws {
        let dir = TemporaryDirectory()
        let trips = dir.url.appendingPathComponent("trips.store"), tours = dir.url.appendingPathComponent("tours.store")
        do {
            let c = try container(trips, tours)
            #expect(c.configurations.map(\.name) == ["trips", "tours"])
            let context = ModelContext(c)
            let journey = Journey(name: "Rome")
            context.insert(journey)
            journey.legs = [Leg(booking: "A1", seat: 1)]
            let tour = Tour(name: "Forum")
            context.insert(tour)
            tour.guides = [Guide(name: "Ana")]
            try context.save()
        }
        #expect(try tables(trips) == ["Journey", "Leg"])
        #expect(try tables(tours) == ["Tour", "Guide"])
        #expect(try SQLiteProbe(tours).scalar("SELECT name FROM Tour") == "Forum")

        // Reopened, one context reads, changes and deletes models of both stores.
        let context = ModelContext(try container(trips, tours))
        let journey = try #require(try context.fetch(FetchDescriptor<Journey>()).first)
        let tour = try #require(try context.fetch(FetchDescriptor<Tour>(predicate: #Predicate { $0.name == "Forum" })).first)
        #expect(journey.legs.map(\.booking) == ["A1"] && tour.guides.map(\.name) == ["Ana"])
        tour.price = 12
        context.delete(journey)
        try context.save()
        #expect(try SQLiteProbe(trips).scalar("SELECT count(*) FROM Leg") == "0")
        #expect(try SQLiteProbe(tours).scalar("SELECT price FROM Tour") == "12")
        // The history, kept in the first store, has both.
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(Set(last.changes.map(\.changedPersistentIdentifier.entityName)) == ["Journey", "Leg", "Tour"])
    }

    /// A model in two configurations with different stores would have relationships across them:
    /// refused, naming it. Two configurations with one URL are one store.
    @Test func aRelationshipAcrossStoresIsRefusedAndOneURLIsOneStore() throws {
        let dir = TemporaryDirectory()
        let a = dir.url.appendingPathComponent("a.store"), b = dir.url.appendingPathComponent("b.store")
        #expect {
            try ModelContainer(for: Journey.self, Leg.self, configurations:
                ModelConfiguration("a", schema: Schema([Journey.self]), url: a), ModelConfiguration("b", schema: Schema([Leg.self]), url: b))
        } throws: { error in
            guard case ModelError.severalStores(let reason) = error else { return false }
            // `Schema([Leg.self])` holds `Journey` too (its relationship reaches it): named as in both.
            return reason.contains("Journey is in the models of configurations with different stores") && reason.contains("cannot cross stores")
        }
        let shared = try ModelContainer(for: Journey.self, Tour.self, configurations:
            ModelConfiguration("a", schema: Schema([Journey.self]), url: a), ModelConfiguration("b", schema: Schema([Tour.self]), url: a))
        let context = ModelContext(shared)
        context.insert(Journey(name: "x"))
        context.insert(Tour(name: "y"))
        try context.save()
        #expect(try tables(a).isSuperset(of: ["Journey", "Tour"]) && !FileManager.default.fileExists(atPath: b.path))
    }

    /// A store written when every model went into the first file keeps its rows there: the models
    /// now configured elsewhere are still read from it, and not made again in the other file.
    @Test func rowsWrittenBeforeTheStoresWereSeparatedStayReadable() throws {
        let dir = TemporaryDirectory()
        let trips = dir.url.appendingPathComponent("trips.store"), tours = dir.url.appendingPathComponent("tours.store")
        do {
            let context = ModelContext(try ModelContainer(for: Journey.self, Tour.self, configurations: ModelConfiguration(url: trips)))
            context.insert(Tour(name: "old"))
            try context.save()
        }
        let context = ModelContext(try container(trips, tours))
        #expect(try context.fetch(FetchDescriptor<Tour>()).map(\.name) == ["old"])
        // Every model of the second configuration was in the first file already: no second file.
        #expect(!FileManager.default.fileExists(atPath: tours.path))
    }

    /// An in-memory configuration beside a file: each its own store.
    @Test func anInMemoryStoreBesideAFile() throws {
        let dir = TemporaryDirectory()
        let trips = dir.url.appendingPathComponent("trips.store")
        let c = try ModelContainer(for: Journey.self, Tour.self, configurations:
            ModelConfiguration("trips", schema: Schema([Journey.self]), url: trips),
            ModelConfiguration("scratch", schema: Schema([Tour.self]), isStoredInMemoryOnly: true))
        let context = ModelContext(c)
        context.insert(Journey(name: "kept"))
        context.insert(Tour(name: "gone"))
        try context.save()
        #expect(try ModelContext(c).fetch(FetchDescriptor<Tour>()).map(\.name) == ["gone"])
        #expect(try tables(trips).contains("Journey") && !(try tables(trips).contains("Tour")))
    }
}
