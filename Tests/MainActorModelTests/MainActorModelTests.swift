import Foundation
import Testing
import SwiftData

/// Model code in a module isolated to the main actor by default (issue 35): it builds and runs as
/// with SwiftData on Xcode 26. Each test is main-actor isolated, as the module's code is.
@Suite struct MainActorModelTests {
    func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, Stop.self, Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func mainActorModelsAreStoredFetchedAndRelated() throws {
        let container = try container()
        let context = container.mainContext
        let rome = Trip(name: "Rome", start: Date(timeIntervalSince1970: 100))
        context.insert(rome)
        rome.stops.append(Stop(title: "Colosseum"))
        rome.cover = Data([1, 2, 3])
        try context.save()

        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Rome"] && trips[0].stops.map(\.title) == ["Colosseum"])
        #expect(trips[0].cover == Data([1, 2, 3]) && trips[0].created == Date(timeIntervalSinceReferenceDate: 0))

        // `#Unique` upserts: a second "Rome" updates the first.
        context.insert(Trip(name: "Rome", start: Date(timeIntervalSince1970: 200)))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)

        // The cascade reaches the stops.
        context.delete(rome)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Stop>()) == 0)
    }

    @Test func mainActorModelsAreObservable() {
        let trip = Trip(name: "Rome", start: .now)
        nonisolated final class Fired: @unchecked Sendable { var count = 0 }
        let fired = Fired()
        withObservationTracking { _ = trip.name } onChange: { fired.count += 1 }
        trip.name = "Roma"
        #expect(fired.count == 1)
    }

    @Test func nonisolatedModelsArePredicatedSortedAndMadeInTheBackground() async throws {
        let container = try container()
        let ids = try await NoteImporter(modelContainer: container).add(["c", "a", "b"])
        #expect(ids.count == 3)
        let minimum = 1
        let descriptor = FetchDescriptor<Note>(predicate: #Predicate { $0.rank >= minimum }, sortBy: [SortDescriptor(\.text)])
        let notes = try container.mainContext.fetch(descriptor)
        #expect(notes.map(\.text) == ["a", "b"])
    }

    /// The schema of main-actor models (their key paths, `#Unique` and `#Index`) is read off the
    /// main actor too: a container is made on a background thread without a trap.
    @Test nonisolated func mainActorModelsSchemaIsReadOnAnyThread() async throws {
        let names = try await Task.detached {
            let container = try ModelContainer(for: Trip.self, Stop.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            // The default values' closures are called off the main actor too, as a migration does.
            let defaults = Trip.schemaMetadata.compactMap { $0.defaultValue?() }
            return (container.schema.entities.map(\.name).sorted(), defaults.count)
        }.value
        #expect(names.0 == ["Stop", "Trip"] && names.1 == 2)
    }
}
