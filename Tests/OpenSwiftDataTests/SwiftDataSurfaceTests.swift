import Foundation
import Testing
@testable import OpenSwiftData

/// A trip with `#Index` and `#Unique` lists, as SwiftData (2024) declares them.
@Model final class IndexedTrip {
    #Unique<IndexedTrip>([\.name, \.start])
    #Index<IndexedTrip>([\.name], [\.start, \.name])
    var name: String
    var start: Date
    var note: String = ""
    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

/// SwiftData's API shapes that real apps use (issue: SwiftData code from real apps).
@Suite struct SwiftDataSurfaceTests {
    @Test func creatingAContextCannotFailTheFirstFetchThrowsInstead() throws {
        let dir = TemporaryDirectory()
        let c = try container(IndexedTrip.self, at: dir.store())
        let context = ModelContext(c)  // no `try`, as in SwiftData
        #expect(try context.fetchCount(FetchDescriptor<IndexedTrip>()) == 0)
        // A store that cannot be opened any more: the context made now fails on first use.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.store().path + suffix) }
        try FileManager.default.createDirectory(at: dir.store(), withIntermediateDirectories: true)
        let late = ModelContext(c)
        #expect(throws: (any Error).self) { try late.fetch(FetchDescriptor<IndexedTrip>()) }
    }

    @Test func deleteAllDataEmptiesEveryTableAndEraseReportsWhatFails() throws {
        let dir = TemporaryDirectory()
        let c = try container(IndexedTrip.self, at: dir.store())
        let context = ModelContext(c)
        context.insert(IndexedTrip(name: "a", start: .now))
        context.insert(IndexedTrip(name: "b", start: .now))
        try context.save()
        c.deleteAllData()  // no `try`, as in SwiftData
        #expect(try SQLiteProbe(dir.store()).scalar(#"SELECT count(*) FROM "IndexedTrip""#) == "0")
        let readOnly = try ModelContainer(for: Schema([IndexedTrip.self]), configurations: [ModelConfiguration(url: dir.store(), allowsSave: false)])
        #expect(throws: ModelError.self) { try readOnly.erase() }
    }

    @Test func persistentIdentifiersRoundTripThroughCodable() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(IndexedTrip.self, at: dir.store()))
        let trip = IndexedTrip(name: "a", start: .now)
        context.insert(trip)
        try context.save()
        let data = try JSONEncoder().encode([trip.persistentModelID])
        let decoded = try JSONDecoder().decode([PersistentIdentifier].self, from: data)
        #expect(decoded == [trip.persistentModelID])
        let other = ModelContext(context.container)
        #expect((other.model(for: decoded[0]) as? IndexedTrip)?.name == "a")
    }

    @Test func indexAndUniqueListsBecomeIndexesAndUpserts() throws {
        let dir = TemporaryDirectory()
        let c = try container(IndexedTrip.self, at: dir.store())
        let probe = SQLiteProbe(dir.store())
        let indexes = try probe.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'IndexedTrip' ORDER BY name")
        #expect(indexes.map { $0[0] } == ["IndexedTrip_name_index", "IndexedTrip_name_start_unique", "IndexedTrip_start_name_index"])
        #expect(indexes[1][1].contains("UNIQUE INDEX") && indexes[1][1].contains("(\"name\", \"start\")"))
        let day = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let context = ModelContext(c)
        context.insert(IndexedTrip(name: "Rome", start: day))
        try context.save()
        let again = IndexedTrip(name: "Rome", start: day)
        again.note = "second"
        context.insert(again)
        context.insert(IndexedTrip(name: "Rome", start: day.addingTimeInterval(86400)))
        try context.save()
        #expect(try probe.rows("SELECT name, note FROM IndexedTrip ORDER BY start") == [["Rome", "second"], ["Rome", ""]])
        #expect(c.schema.entity(for: IndexedTrip.self)?.uniquenessConstraints == [["name", "start"]])
        // With .fail, the same insert throws, naming both properties.
        let strict = try container(IndexedTrip.self, at: dir.store(), policy: .fail)
        let strictContext = ModelContext(strict)
        strictContext.insert(IndexedTrip(name: "Rome", start: day))
        #expect(throws: ModelError.uniqueConstraintViolation(model: "IndexedTrip", property: "name, start")) { try strictContext.save() }
    }

    @Test func modelConfigurationHasSwiftDatasInitializers() throws {
        let dir = TemporaryDirectory()
        let inMemory = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(inMemory.isStoredInMemoryOnly && inMemory.allowsSave)
        let typed = ModelConfiguration(for: IndexedTrip.self, isStoredInMemoryOnly: true)
        #expect(typed.schema?.entities.map(\.name) == ["IndexedTrip"])
        let named = ModelConfiguration("Trips", schema: Schema([IndexedTrip.self]), isStoredInMemoryOnly: false, allowsSave: true,
                                       groupContainer: .identifier("group.example"), cloudKitDatabase: .private("iCloud.example"))
        #expect(named.url.lastPathComponent == "Trips.store" && named.groupAppContainerIdentifier == "group.example")
        #expect(named.cloudKitContainerIdentifier == "iCloud.example")
        let atURL = ModelConfiguration(schema: Schema([IndexedTrip.self]), url: dir.store(), cloudKitDatabase: .none)
        let c = try ModelContainer(for: IndexedTrip.self, configurations: atURL)
        #expect(c.configurations.first?.url == dir.store())
        let readOnly = try ModelContainer(for: IndexedTrip.self, configurations: ModelConfiguration(url: dir.store(), allowsSave: false))
        let context = ModelContext(readOnly)
        context.insert(IndexedTrip(name: "x", start: .now))
        #expect(throws: ModelError.readOnlyStore(path: dir.store().path)) { try context.save() }
    }
}

/// The default store (issue 35): in the application-support folder, as SwiftData keeps it, in a
/// folder named after the program; never the working directory.
@Suite struct DefaultStoreTests {
    @Test func theDefaultStoreIsInTheApplicationSupportFolder() throws {
        let support = try #require(FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first)
        let url = ModelConfiguration().url   // as apps write it (it was ambiguous)
        if ProcessInfo.processInfo.environment["OPENSWIFTDATA_STORE_DIR"] == nil {
            #expect(url.deletingLastPathComponent().standardizedFileURL.path
                    == support.appendingPathComponent(ProcessInfo.processInfo.processName).standardizedFileURL.path)
        }
        #expect(url.lastPathComponent == "default.store")
        #expect(url.deletingLastPathComponent().standardizedFileURL.path != FileManager.default.currentDirectoryPath)
        #expect(ModelConfiguration("Trips").url.lastPathComponent == "Trips.store")
    }

    /// A program that opens its default container, run with `XDG_DATA_HOME` set: the store is made
    /// there, in the program's folder, and nothing in its working directory.
    @Test func aProgramsDefaultStoreGoesUnderXDGDataHome() throws {
        let dir = TemporaryDirectory()
        let data = dir.url.appendingPathComponent("data"), work = dir.url.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let result = try runProduct("osd-demo", ["--default-store"], environment: ["XDG_DATA_HOME": data.path], directory: work)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("osd-demo/default.store").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
    }
}
