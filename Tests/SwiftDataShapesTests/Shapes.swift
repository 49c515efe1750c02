// Model code as SwiftData apps write it, importing only SwiftData, built in the Swift 6 language
// mode: it must build with no change and no warning.
import SwiftData
import Testing

@Model final class Trip {
    #Unique<Trip>([\.name, \.start])
    #Index<Trip>([\.start])
    var name: String
    var start: Date
    var id: UUID = UUID()
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

@Model final class Stop {
    var place: String
    var trip: Trip?
    init(place: String) { self.place = place }
}

@Suite struct ShapesTests {
    @Test func modelCodeThatImportsOnlySwiftDataRuns() throws {
        let schema = SwiftData.Schema([Trip.self, Stop.self])
        let container = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let trip = Trip(name: "Rome", start: .now)
        context.insert(trip)
        trip.stops.append(Stop(place: "Colosseum"))
        try context.save()
        let found = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Rome" }))
        #expect(found.first?.stops.map(\.place) == ["Colosseum"])
        context.delete(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 0)
        let model: any SwiftData.PersistentModel.Type = Trip.self
        #expect(String(describing: model) == "Trip")
    }
}

/// Types inferred from the initial value, as real apps write them.
@Model final class Habit {
    var name = ""
    var count = 0
    var done = false
    var score = 1.5
    var id = UUID()
    var created = Date.now
    var tags = [String]()
    var completions = [Completion]()
    init(name: String) { self.name = name }
}

@Model final class Completion {
    var day = Date.now
    var habit: Habit?
    init() {}
}

@Suite struct InferredTypeTests {
    @Test func propertiesWithInferredTypesArePersisted() throws {
        let container = try ModelContainer(for: Habit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let habit = Habit(name: "Run")
        habit.count = 3
        habit.tags = ["a", "b"]
        context.insert(habit)
        habit.completions.append(Completion())
        try context.save()
        let fresh = ModelContext(container)
        let found = try #require(try fresh.fetch(FetchDescriptor<Habit>(predicate: #Predicate { $0.count > 2 && !$0.done })).first)
        #expect(found.name == "Run" && found.score == 1.5 && found.tags == ["a", "b"] && found.id == habit.id)
        #expect(found.completions.count == 1 && found.completions.first?.habit === found)
    }
}

@Suite struct PersistentModelIDPredicateTests {
    @Test func predicatesFilterByPersistentModelIDAndByARelatedOnes() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let rome = Trip(name: "Rome", start: .now), oslo = Trip(name: "Oslo", start: .now)
        context.insert(rome)
        context.insert(oslo)
        rome.stops.append(Stop(place: "Forum"))
        oslo.stops.append(Stop(place: "Fjord"))
        try context.save()
        let id = rome.persistentModelID
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentModelID == id }))
        #expect(trips.map(\.name) == ["Rome"])
        let stops = try context.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.persistentModelID == id }))
        #expect(stops.map(\.place) == ["Forum"])
        let others = try context.fetch(FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.persistentModelID != id }))
        #expect(others.map(\.place) == ["Fjord"])
    }
}

/// The CloudKit-compatible shape: optional to-many relationships, everything with a default.
@Model final class Checklist {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Task.list) var tasks: [Task]? = []
    init(title: String) { self.title = title }
}

@Model final class Task {
    var name: String = ""
    var done: Bool = false
    var list: Checklist?
    init(name: String, done: Bool = false) {
        self.name = name
        self.done = done
    }
}

@Suite struct OptionalToManyTests {
    @Test func optionalToManyRelationshipsStoreCascadeAndFilter() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shapes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("lists.store")
        do {
            let container = try ModelContainer(for: Checklist.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let home = Checklist(title: "Home"), work = Checklist(title: "Work"), empty = Checklist(title: "Empty")
            [home, work, empty].forEach(context.insert)
            home.tasks?.append(Task(name: "Dishes", done: true))
            home.tasks?.append(Task(name: "Laundry"))
            home.tasks?.append(Task(name: "Plants"))
            work.tasks = [Task(name: "Report")]
            try context.save()
            #expect(home.tasks?.first?.list === home)
        }
        let container = try ModelContainer(for: Checklist.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        func titles(_ predicate: Predicate<Checklist>) throws -> [String] {
            try context.fetch(FetchDescriptor<Checklist>(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { $0.tasks?.isEmpty == false }) == ["Home", "Work"])
        #expect(try titles(#Predicate { ($0.tasks?.count ?? 0) > 2 }) == ["Home"])
        #expect(try titles(#Predicate { $0.tasks?.contains { $0.done } == true }) == ["Home"])
        let home = try #require(try titles(#Predicate { $0.title == "Home" }).first.flatMap { title in
            try context.fetch(FetchDescriptor<Checklist>(predicate: #Predicate { $0.title == title })).first })
        #expect(Set(home.tasks?.map(\.name) ?? []) == ["Dishes", "Laundry", "Plants"])
        context.delete(home)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Task>()) == 1)
    }
}

@ModelActor actor TripImporter {
    func add(_ name: String) throws -> PersistentIdentifier {
        let trip = Trip(name: name, start: .now)
        modelContext.insert(trip)
        try modelContext.save()
        return trip.persistentModelID
    }

    func name(of id: PersistentIdentifier) -> String? {
        self[id, as: Trip.self]?.name
    }

    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
}

@Suite struct ModelActorTests {
    @Test func severalModelActorsWriteAtOnceAndSeeEachOthersSaves() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("actors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: dir.appendingPathComponent("trips.store")))
        let importers = (0..<4).map { _ in TripImporter(modelContainer: container) }
        let ids = try await withThrowingTaskGroup(of: PersistentIdentifier.self) { group in
            for (n, importer) in importers.enumerated() {
                for i in 0..<10 { group.addTask { try await importer.add("trip \(n)-\(i)") } }
            }
            return try await group.reduce(into: [PersistentIdentifier]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 40)
        // Another actor (another connection) sees every save, and finds each by its identifier.
        let reader = TripImporter(modelContainer: container)
        #expect(try await reader.count() == 40)
        for id in ids.prefix(5) { #expect(await reader.name(of: id)?.hasPrefix("trip ") == true) }
        let context = ModelContext(container)
        #expect(context[ids[0], as: Trip.self] != nil)
    }
}

@Suite struct ModelForIdentifierTests {
    @Test func modelForAnIdentifierAsSwiftDataSpellsIt() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let trip = Trip(name: "Lisbon", start: .now)
        writer.insert(trip)
        try writer.save()
        let reader = ModelContext(container)
        let found = reader.model(for: trip.persistentModelID) as? Trip
        #expect(found?.name == "Lisbon" && found !== trip)
        let registered: Trip? = reader.registeredModel(for: trip.persistentModelID)
        #expect(registered === found)
    }
}

/// `let` properties, as real apps declare them: with and without an initial value.
@Model final class Entry {
    let id = UUID()
    let createdAt: Date
    let tag: String?
    var text: String
    init(text: String, createdAt: Date, tag: String? = nil) {
        self.text = text
        self.createdAt = createdAt
        self.tag = tag
    }
}

@Suite struct ConstantPropertyTests {
    @Test func letPropertiesAreStoredOnceAndReadBackNotRemade() throws {
        let url = URL.temporaryDirectory.appending(path: "shapes-\(UUID().uuidString)/store.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        var savedID: UUID
        do {
            let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let entry = Entry(text: "first", createdAt: created, tag: "a")
            context.insert(entry)
            try context.save()
            savedID = entry.id
            entry.text = "edited"
            try context.save()
        }
        let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let found = try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.id == savedID }))
        #expect(found.count == 1)
        #expect(found.first?.id == savedID && found.first?.createdAt == created && found.first?.tag == "a")
        #expect(found.first?.text == "edited")
        let byDate = try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.createdAt == created }, sortBy: [SortDescriptor(\.createdAt)]))
        #expect(byDate.map(\.id) == [savedID])
    }
}

/// A versioned schema with a custom stage, in the shape of Apple's documentation: V2 makes
/// titles unique, so the stage removes duplicates before and fills a new property after.
enum JournalSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var body: String
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

enum JournalSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        #Unique<Note>([\.title])
        var title: String
        var body: String
        var words = 0
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

typealias JournalNote = JournalSchemaV2.Note

enum JournalMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, JournalSchemaV2.self] }
    static var stages: [MigrationStage] { [migrateV1toV2] }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: JournalSchemaV1.self,
        toVersion: JournalSchemaV2.self,
        willMigrate: { context in
            var seen = Set<String>()
            for note in try context.fetch(FetchDescriptor<JournalSchemaV1.Note>(sortBy: [SortDescriptor(\.body)])) {
                if !seen.insert(note.title).inserted { context.delete(note) }
            }
            try context.save()
        },
        didMigrate: { context in
            for note in try context.fetch(FetchDescriptor<JournalSchemaV2.Note>()) {
                note.words = note.body.split(separator: " ").count
            }
            try context.save()
        }
    )
}

@Suite struct VersionedSchemaShapeTests {
    @Test func aCustomStageRunsWhenTheStoreOpensWithTheNewSchema() throws {
        let url = URL.temporaryDirectory.appending(path: "shapes-\(UUID().uuidString)/journal.store")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(JournalSchemaV1.Note(title: "Rome", body: "a first day"))
            context.insert(JournalSchemaV1.Note(title: "Rome", body: "b duplicate"))
            context.insert(JournalSchemaV1.Note(title: "Paris", body: "rain"))
            try context.save()
        }
        let container = try ModelContainer(for: JournalNote.self, migrationPlan: JournalMigrationPlan.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<JournalNote>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["Paris", "Rome"])
        #expect(notes.map(\.words) == [1, 3])
        // The unique title now upserts.
        context.insert(JournalNote(title: "Rome", body: "replaced"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<JournalNote>()) == 2)
        container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<JournalNote>()) == 0)
    }
}

@Model final class Contact {
    var name: String
    init(name: String) { self.name = name }
}

@Suite struct SortComparatorShapeTests {
    @Test func stringSortsAsSwiftDataSortsThem() throws {
        let container = try ModelContainer(for: Contact.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for name in ["item 10", "Item 2", "émile", "Zoe", "adam"] { context.insert(Contact(name: name)) }
        let byDefault = try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(byDefault == ["adam", "émile", "Item 2", "item 10", "Zoe"])
        let finder = try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)])).map(\.name)
        #expect(finder == byDefault.reversed())
        let localized = try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\Contact.name, comparator: .localized)])).map(\.name)
        #expect(localized == ["adam", "émile", "item 10", "Item 2", "Zoe"])
        let lexical = try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])).map(\.name)
        #expect(lexical == ["Item 2", "Zoe", "adam", "item 10", "émile"])
    }
}

/// A model its author declares Sendable (Swift 6 mode): the generated storage must not make it fail.
@Model final class Pin: Sendable {
    var label: String
    var placedAt = Date.now
    init(label: String) { self.label = label }
}

/// An `@Observable` class beside the models, in a file that imports only SwiftData.
@Observable final class TripFilter {
    var text = ""
    var since: Date?
    var selection: UUID?
}

final class ChangeCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func add() { lock.withLock { value += 1 } }
}

@Suite struct SendableAndObservableTests {
    @Test func aSendableModelCrossesIntoATaskByItsIdentifier() async throws {
        let container = try ModelContainer(for: Pin.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let pin = Pin(label: "home")
        context.insert(pin)
        try context.save()
        let id = pin.persistentModelID
        let label = await _Concurrency.Task.detached { () -> String? in
            let other = ModelContext(container)
            return other[id, as: Pin.self]?.label
        }.value
        #expect(label == "home")
    }

    @Test func observableClassesBuildBesideTheModels() {
        let filter = TripFilter()
        let changes = ChangeCount()
        withObservationTracking { _ = filter.text } onChange: { changes.add() }
        filter.since = .now
        #expect(changes.count == 0, "only what was read is tracked")
        filter.text = "rome"
        #expect(changes.count == 1 && filter.selection == nil)
    }
}

@Suite struct OptionalToManyPredicateFormTests {
    @Test func flatMapAndNilCoalescingFormsTranslate() throws {
        let container = try ModelContainer(for: Checklist.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let home = Checklist(title: "Home"), work = Checklist(title: "Work"), empty = Checklist(title: "Empty")
        [home, work, empty].forEach(context.insert)
        home.tasks = [Task(name: "Dishes", done: true), Task(name: "Laundry")]
        work.tasks = [Task(name: "Report")]
        try context.save()
        func titles(_ predicate: Predicate<Checklist>) throws -> [String] {
            try context.fetch(FetchDescriptor<Checklist>(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { $0.tasks.flatMap { $0.isEmpty } ?? true }) == ["Empty"])
        #expect(try titles(#Predicate { ($0.tasks?.isEmpty ?? true) == false }) == ["Home", "Work"])
        #expect(try titles(#Predicate { ($0.tasks.flatMap { $0.count } ?? 0) == 1 }) == ["Work"])
        #expect(try titles(#Predicate { $0.tasks.flatMap { $0.contains { $0.done } } ?? false }) == ["Home"])
        #expect(try titles(#Predicate { $0.tasks?.contains { $0.name == "Report" } ?? false }) == ["Work"])
        // Every form gives the rows Swift's own evaluation gives.
        let all = try context.fetch(FetchDescriptor<Checklist>(sortBy: [SortDescriptor(\.title)]))
        let predicate = #Predicate<Checklist> { $0.tasks.flatMap { $0.contains { !$0.done } } ?? false }
        #expect(try titles(predicate) == all.filter { try! predicate.evaluate($0) }.map(\.title))
    }
}

@Suite struct ModelActorReadTests {
    @Test func identifiersAreLookedUpFromManyTasksAtOnceAndUnknownOnesAreNil() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("actors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: dir.appendingPathComponent("trips.store")))
        let writer = TripImporter(modelContainer: container)
        var ids: [PersistentIdentifier] = []
        for i in 0..<12 { ids.append(try await writer.add("trip \(i)")) }
        let readers = (0..<3).map { _ in TripImporter(modelContainer: container) }
        let names = await withTaskGroup(of: (Int, String?).self) { group in
            for (i, id) in ids.enumerated() { group.addTask { (i, await readers[i % 3].name(of: id)) } }
            return await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
        }
        #expect((0..<12).allSatisfy { names[$0] == "trip \($0)" })
        // A context that never loaded a model has none registered; a deleted row has no model.
        let context = ModelContext(container)
        let unregistered: Trip? = context.registeredModel(for: ids[0])
        #expect(unregistered == nil)
        let loaded = context.model(for: ids[0]) as? Trip
        let registered: Trip? = context.registeredModel(for: ids[0])
        #expect(loaded?.name == "trip 0" && registered === loaded)
        let doomed = try #require(context[ids[1], as: Trip.self])
        context.delete(doomed)
        try context.save()
        #expect(await readers[0].name(of: ids[1]) == nil)
    }
}

/// A model declared `nonisolated`, as apps whose module isolates to the main actor by default write
/// them (a main-actor-isolated model cannot conform: its schema's key paths are formed nonisolated).
@Model nonisolated final class Setting {
    var key: String
    var value = ""
    init(key: String) { self.key = key }
}

@Suite struct NonisolatedModelTests {
    @MainActor @Test func aNonisolatedModelIsUsedFromTheMainActor() throws {
        let container = try ModelContainer(for: Setting.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let setting = Setting(key: "theme")
        setting.value = "dark"
        context.insert(setting)
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Setting>(predicate: #Predicate { $0.key == "theme" }))
        #expect(fetched.map(\.value) == ["dark"])
    }
}

/// Save notifications as sync code reads them (`ModelContext.didSave`, keys by raw value).
@Suite struct SaveNotificationShapeTests {
    @MainActor @Test func didSaveCarriesTheInsertedIdentifiers() throws {
        let container = try ModelContainer(for: Setting.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        nonisolated(unsafe) var inserted: [PersistentIdentifier] = []
        let token = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { notification in
            inserted = notification.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let setting = Setting(key: "sync")
        context.insert(setting)
        try context.save()
        #expect(inserted == [setting.persistentModelID])
    }
}
