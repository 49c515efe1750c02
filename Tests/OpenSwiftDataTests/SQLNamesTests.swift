import Foundation
@testable import OpenSwiftData
import Testing

/// `SQLNames` gives an app's own SQL the names the schema stores its models under.
@Suite struct SQLNamesTests {
    @Test func namesAreTheOnesTheStoreUsesAndWorkInAQuery() throws {
        #expect(SQLNames.table(Album.self) == "\"Album\"")
        #expect(SQLNames.column(\Album.year) == "\"year\"")
        #expect(SQLNames.column(\Track.album) == "\"album\"", "a to-one relationship's column")
        #expect(SQLNames.primaryKey == "\"_pk\"")
        let dir = TemporaryDirectory()
        let c = try container(Album.self, Track.self, at: dir.store())
        let context = ModelContext(c)
        let album = Album(title: "A", year: 1999)
        album.tracks = [Track(name: "one"), Track(name: "two")]
        context.insert(album)
        try context.save()
        let tracks = SQLNames.table(Track.self), owner = SQLNames.column(\Track.album)
        let rows = try context.query("SELECT \(owner), count(*) FROM \(tracks) GROUP BY \(owner)")
        #expect(rows == [[.integer(album.persistentModelID.primaryKey), .integer(2)]])
        let year = try context.query("SELECT \(SQLNames.column(\Album.year)) FROM \(SQLNames.table(Album.self)) WHERE \(SQLNames.primaryKey) = ?",
                                     [.integer(album.persistentModelID.primaryKey)])
        #expect(year == [[.integer(1999)]])
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(Date(sqliteValue: date.sqliteValue) == date)
    }
}
