import Foundation
@testable import OpenSwiftData
import Testing

@Model final class Album {
    var title: String
    var year: Int
    var notes: String?
    @Attribute(.externalStorage) var cover: Data?
    @Relationship(deleteRule: .cascade, inverse: \Track.album) var tracks: [Track] = []
    init(title: String, year: Int) { self.title = title; self.year = year }
}

@Model final class Track {
    var name: String
    var album: Album?
    init(name: String) { self.name = name }
}

/// `propertiesToFetch` and `relationshipKeyPathsForPrefetching` change the SQL a fetch runs.
@Suite struct FetchShapeTests {
    func filled(_ dir: TemporaryDirectory) throws -> ModelContainer {
        let c = try container(Album.self, Track.self, at: dir.store())
        let context = ModelContext(c)
        for i in 0..<5 {
            let album = Album(title: "A\(i)", year: 2000 + i)
            album.notes = "n\(i)"
            album.cover = Data([UInt8(i), 1, 2])
            context.insert(album)
            for j in 0..<3 { album.tracks.append(Track(name: "t\(i)-\(j)")) }
        }
        try context.save()
        return c
    }

    @Test func propertiesToFetchSelectsOnlyThoseColumnsAndTheRestLoadOnceForAll() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try filled(dir))
        var statements: [String] = []
        context.traceSQL { statements.append($0) }
        var descriptor = FetchDescriptor<Album>(sortBy: [SortDescriptor(\.year)])
        descriptor.propertiesToFetch = [\.title]
        let albums = try context.fetch(descriptor)
        #expect(statements.count == 1)
        #expect(statements[0].hasPrefix(#"SELECT t0."_pk", t0."title" FROM "Album""#), "\(statements[0])")
        #expect(albums.map(\.title) == ["A0", "A1", "A2", "A3", "A4"])
        #expect(statements.count == 1)
        // The first read of a column left out loads the missing columns of all five, in one query.
        #expect(albums.map(\.year) == [2000, 2001, 2002, 2003, 2004])
        #expect(albums.map(\.notes) == ["n0", "n1", "n2", "n3", "n4"])
        #expect(statements.count == 2, "\(statements)")
        #expect(albums[3].cover == Data([3, 1, 2]))
        #expect(albums[3].tracks.count == 3)
    }

    @Test func aModelFetchedPartlyCanBeChangedSavedAndRolledBack() throws {
        let dir = TemporaryDirectory()
        let c = try filled(dir)
        let context = ModelContext(c)
        var descriptor = FetchDescriptor<Album>(predicate: #Predicate { $0.title == "A1" })
        descriptor.propertiesToFetch = [\.title]
        let album = try #require(try context.fetch(descriptor).first)
        album.year = 1999
        try context.save()
        album.title = "changed"
        context.rollback()
        #expect(album.title == "A1" && album.notes == "n1" && album.cover == Data([1, 1, 2]))
        let fresh = try #require(try ModelContext(c).fetch(FetchDescriptor<Album>(predicate: #Predicate { $0.title == "A1" })).first)
        #expect(fresh.year == 1999 && fresh.notes == "n1")
    }

    @Test func rollingBackAModelWhoseLazyValuesWereReadAfterTheChangeRereadsThem() throws {
        let dir = TemporaryDirectory()
        let c = try filled(dir)
        let context = ModelContext(c)
        let album = try #require(try context.fetch(FetchDescriptor<Album>(predicate: #Predicate { $0.title == "A2" })).first)
        album.title = "changed"          // the snapshot holds the cover and tracks not loaded yet
        #expect(album.cover == Data([2, 1, 2]))
        #expect(album.tracks.count == 3)
        context.rollback()
        #expect(album.title == "A2")
        #expect(album.cover == Data([2, 1, 2]))
        #expect(album.tracks.count == 3)
    }

    @Test func columnsLeftOutCanBeReadAfterTheContextIsGone() throws {
        let dir = TemporaryDirectory()
        let c = try filled(dir)
        func fetchPartly() throws -> [Album] {
            let context = ModelContext(c)
            var descriptor = FetchDescriptor<Album>(sortBy: [SortDescriptor(\.year)])
            descriptor.propertiesToFetch = [\.title]
            return try context.fetch(descriptor)
        }
        let albums = try fetchPartly()
        #expect(albums.map(\.year) == [2000, 2001, 2002, 2003, 2004])
        #expect(albums[1].notes == "n1" && albums[1].cover == Data([1, 1, 2]))
    }

    @Test func prefetchingCoversResultsThatWereInMemoryAlready() throws {
        let dir = TemporaryDirectory()
        let c = try filled(dir)
        let context = ModelContext(c)
        let early = try context.fetch(FetchDescriptor<Album>(predicate: #Predicate { $0.year < 2002 }))
        var statements = 0
        context.traceSQL { _ in statements += 1 }
        var descriptor = FetchDescriptor<Album>()
        descriptor.relationshipKeyPathsForPrefetching = [\.tracks]
        let albums = try context.fetch(descriptor)
        let afterFetch = statements
        #expect(albums.map { $0.tracks.count } == [3, 3, 3, 3, 3])
        #expect(statements == afterFetch, "every album's tracks were loaded by the fetch")
        #expect(early.count == 2)
    }

    @Test func prefetchedRelationshipsLoadWithTheFetchInOneQueryEach() throws {
        let dir = TemporaryDirectory()
        let c = try filled(dir)
        let context = ModelContext(c)
        var statements: [String] = []
        context.traceSQL { statements.append($0) }
        var descriptor = FetchDescriptor<Album>()
        descriptor.relationshipKeyPathsForPrefetching = [\.tracks]
        let albums = try context.fetch(descriptor)
        #expect(statements.count == 2, "\(statements)")
        #expect(statements[1].contains(#"FROM "Track""#))
        #expect(albums.map { $0.tracks.count } == [3, 3, 3, 3, 3])
        #expect(statements.count == 2)

        let tracksContext = ModelContext(c)
        var trackStatements = 0
        tracksContext.traceSQL { _ in trackStatements += 1 }
        var byTrack = FetchDescriptor<Track>()
        byTrack.relationshipKeyPathsForPrefetching = [\.album]
        let tracks = try tracksContext.fetch(byTrack)
        #expect(trackStatements == 2)
        #expect(Set(tracks.compactMap { $0.album?.title }).count == 5)
        #expect(trackStatements == 2)
    }

    @Test func keyPathsThatAreNotPropertiesOrNotRelationshipsAreRefused() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try filled(dir))
        var descriptor = FetchDescriptor<Album>()
        descriptor.relationshipKeyPathsForPrefetching = [\.title]
        #expect(throws: PredicateTranslationError.self) { try context.fetch(descriptor) }
        var other = FetchDescriptor<Album>()
        other.propertiesToFetch = [\.persistentModelID]
        #expect(throws: PredicateTranslationError.self) { try context.fetch(other) }
    }
}
