import Foundation
@testable import MemoriesKit
import Testing

/// `list`'s counts come from memory_stats, which triggers keep; they must always equal the rows.
@Suite struct MemoryStatsTests {
    func counts(_ box: Sandbox) throws -> (kept: [[String]], counted: [[String]]) {
        let lib = try Library(directory: box.library, readOnly: true)
        let kept = try lib.context.query("SELECT memory, photos, bytes FROM memory_stats WHERE photos > 0 ORDER BY memory")
        let counted = try lib.context.query(#"SELECT "memory", count(*), sum("byteCount") FROM "MemoryImage" GROUP BY "memory" ORDER BY "memory""#)
        return (kept.map { $0.map { "\($0)" } }, counted.map { $0.map { "\($0)" } })
    }

    @Test func theKeptCountsEqualTheRowsAfterEveryChange() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        var (kept, counted) = try counts(box)
        #expect(kept == counted && kept.count == 2)
        let photo = try #require(try box.run("show", "Rome", "--json").json(ShowJSON.self).images.first)
        #expect(try box.run("remove", "Rome", photo.filename).status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--into", "Paris").status == 0)
        (kept, counted) = try counts(box)
        #expect(kept == counted)
        #expect(try box.run("delete", "Paris", "--yes").status == 0)
        (kept, counted) = try counts(box)
        #expect(kept == counted && kept.count == 1)
        let list = try box.run("list", "--json").json([ListJSON].self)
        #expect(list.map(\.title) == ["Rome"])
        let rows = try Library(directory: box.library, readOnly: true).context.query(#"SELECT count(*) FROM "MemoryImage""#).first?.first
        #expect(rows == .integer(Int64(list.first?.imageCount ?? -1)) && (list.first?.imageCount ?? 0) > 0)
    }

    @Test func aLibraryFromBeforeTheTableIsCountedReadOnlyAndFilledWhenWritten() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.path, "--title", "All").status == 0)
        let before = try box.run("list", "--json").stdout
        do {
            let lib = try Library(directory: box.library)
            try lib.context.execute("""
            DROP TRIGGER memory_stats_insert; DROP TRIGGER memory_stats_delete; DROP TRIGGER memory_stats_update;
            DROP TRIGGER memory_stats_memory_delete; DROP TABLE memory_stats;
            """)
        }
        // list opens read-only: it creates nothing and counts the rows.
        let readOnly = try box.run("list", "--json")
        #expect(readOnly.status == 0 && readOnly.stdout == before)
        #expect(try Library(directory: box.library, readOnly: true).context.query("SELECT name FROM sqlite_master WHERE name = 'memory_stats'").isEmpty)
        // A writing command puts the table back, filled from the rows.
        #expect(try box.run("edit", "All", "--notes", "n").status == 0)
        let (kept, counted) = try counts(box)
        #expect(!kept.isEmpty && kept == counted)
        #expect(try box.run("list", "--json").stdout == before)
    }
}

/// Several processes opening an old library at once: one rebuilds, the others wait and find it done.
@Suite struct AuxiliaryTablesUnderConcurrencyTests {
    @Test func fourWritersOpeningAnOldLibraryAtOnceRebuildOnce() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.path, "--title", "All").status == 0)
        do {
            let lib = try Library(directory: box.library)
            let triggers = try lib.context.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").compactMap { $0.first?.stringValue }
            for name in triggers where name.hasPrefix("memory_s") { try lib.context.execute("DROP TRIGGER \"\(name)\"") }
            try lib.context.execute("""
            DROP TABLE memory_stats; DROP TABLE memory_search;
            CREATE VIRTUAL TABLE memory_search USING fts5(text, memory UNINDEXED, image UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
            INSERT INTO memory_search (text, memory, image) SELECT "title" || ' ' || "notes", "_pk", NULL FROM "Memory";
            INSERT INTO memory_search (text, memory, image) SELECT "filename", "memory", "_pk" FROM "MemoryImage";
            """)
        }
        let runs = (0..<4).map { i in box.start(["--library", box.library.path, "edit", "All", "--notes", "writer \(i)"]) }
        for (process, _, err) in runs {
            process.waitUntilExit()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(message)")
        }
        let lib = try Library(directory: box.library, readOnly: true)
        let names = try lib.context.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_s%' ORDER BY name").compactMap { $0.first?.stringValue }
        #expect(names.count == 10, "six search and four count triggers, once each: \(names)")
        let fts = try lib.context.query("SELECT count(*) FROM memory_search").first?.first
        let rows = try lib.context.query(#"SELECT (SELECT count(*) FROM "Memory") + (SELECT count(*) FROM "MemoryImage")"#).first?.first
        #expect(fts == rows, "each row indexed once")
        let kept = try lib.context.query("SELECT photos FROM memory_stats").first?.first
        let counted = try lib.context.query(#"SELECT count(*) FROM "MemoryImage""#).first?.first
        #expect(kept == counted)
    }
}

/// The search index's rows are found by rowid, so removing photos never reads the whole index; a
/// library with the first version's index is rebuilt once and finds the same memories.
@Suite struct SearchIndexTests {
    @Test func anOldIndexIsRebuiltAndDeletesLeaveNoRowBehind() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris in spring").status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        do {
            // The first version's shape: rowids of FTS5's choosing, deletes by the image column.
            let lib = try Library(directory: box.library)
            let triggers = try lib.context.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_search%'")
            for name in triggers.compactMap({ $0.first?.stringValue }) { try lib.context.execute("DROP TRIGGER \"\(name)\"") }
            try lib.context.execute("""
            DROP TABLE memory_search;
            CREATE VIRTUAL TABLE memory_search USING fts5(text, memory UNINDEXED, image UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
            INSERT INTO memory_search (text, memory, image) SELECT "title" || ' ' || "notes", "_pk", NULL FROM "Memory";
            INSERT INTO memory_search (text, memory, image) SELECT "filename", "memory", "_pk" FROM "MemoryImage";
            CREATE TRIGGER memory_search_image_delete AFTER DELETE ON "MemoryImage" BEGIN
                DELETE FROM memory_search WHERE image = OLD."_pk";
            END;
            """)
        }
        // A read-only command does not rebuild it, and still finds by it.
        #expect(try box.run("list", "--search", "spring", "--json").json([ListJSON].self).map(\.title) == ["Paris in spring"])
        #expect(try Library(directory: box.library, readOnly: true).context
            .query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_search%'").count == 1)
        // Any writing command rebuilds it; search finds what it found.
        #expect(try box.run("edit", "Rome", "--notes", "forum").status == 0)
        let lib = try Library(directory: box.library, readOnly: true)
        let triggers = try lib.context.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_search%' ORDER BY name")
            .compactMap { $0.first?.stringValue }
        #expect(triggers.count == 6 && triggers.allSatisfy { $0.hasPrefix("memory_search_v3_") }, "\(triggers)")
        let rows = try lib.context.query("SELECT count(*) FROM memory_search").first?.first
        let expected = try lib.context.query(#"SELECT (SELECT count(*) FROM "Memory") + (SELECT count(*) FROM "MemoryImage")"#).first?.first
        #expect(rows == expected)
        // Every row's rowid carries its memory (what a search reads), and names its own row.
        let misfiled = try lib.context.query("""
            SELECT count(*) FROM memory_search WHERE rowid >> 32 IS NOT memory
                OR (image IS NULL AND rowid != memory << 32) OR (image IS NOT NULL AND rowid & 4294967295 != image)
            """).first?.first
        #expect(misfiled == .integer(0))
        #expect(try box.run("list", "--search", "spring", "--json").json([ListJSON].self).map(\.title) == ["Paris in spring"])
        #expect(try box.run("list", "--search", "forum", "--json").json([ListJSON].self).map(\.title) == ["Rome"])
        let photo = try #require(try box.run("show", "Rome", "--json").json(ShowJSON.self).images.first)
        #expect(try box.run("list", "--search", String(photo.filename.prefix(7)), "--json").json([ListJSON].self).map(\.title).contains("Rome"))
        // An older version run since adds its own trigger beside them: the next writing open rebuilds.
        do {
            let lib = try Library(directory: box.library)
            try lib.context.execute(#"CREATE TRIGGER memory_search_image_delete AFTER DELETE ON "MemoryImage" BEGIN DELETE FROM memory_search WHERE image = OLD."_pk"; END"#)
        }
        #expect(try box.run("edit", "Rome", "--notes", "forum").status == 0)
        let again = try Library(directory: box.library, readOnly: true).context
            .query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_search%'").compactMap { $0.first?.stringValue }
        #expect(again.count == 6 && again.allSatisfy { $0.hasPrefix("memory_search_v3_") }, "\(again)")
        // Deleting a memory leaves none of its rows in the index.
        #expect(try box.run("delete", "Rome", "--yes").status == 0)
        let after = try Library(directory: box.library, readOnly: true)
        let left = try after.context.query(#"SELECT count(*) FROM memory_search WHERE memory NOT IN (SELECT "_pk" FROM "Memory")"#).first?.first
        #expect(left == .integer(0))
        #expect(try box.run("list", "--search", "forum", "--json").json([ListJSON].self).isEmpty)
    }
}

@Suite struct DateTextTests {
    /// Arguments (`--date`, `--since`, `--until`) are read strictly, and a day whose midnight
    /// daylight saving time skips still has a first instant.
    @Test func dateArgumentsAreReadStrictlyAndEveryDayHasAStart() throws {
        let utc = TimeZone(identifier: "UTC")!
        func parse(_ text: String, _ zone: TimeZone = utc) throws -> Date { try Display.parseDate(text, in: zone) }
        let noon = try parse("2024-06-11T12:00:00Z")
        #expect(noon == Date(timeIntervalSince1970: 1_718_107_200))
        #expect(try parse("2024-06-11T12:00:00+05:30") == noon.addingTimeInterval(-19_800), "half-hour offsets are kept")
        #expect(try parse("2024-06-11T12:00:00+0530") == noon.addingTimeInterval(-19_800))
        #expect(try parse("2024-06-11 12:00") == noon && parse("2024-06-11T12:00") == noon)
        #expect(try parse("2024-06-11T12:00:00.25Z") == noon.addingTimeInterval(0.25))
        #expect(try parse("2024-06-11") == noon.addingTimeInterval(-43_200))
        for bad in ["2024-06-11T12:00:00+5:30", "2024-06-11T12:00:00+24:00", "2024-06-11T12:00:00+25:00", "2024-06-11T12:00:00+99:99",
                    "2024-06-11T12:00:00Zjunk", "2024-06-11T12:00:00+05:30junk", "2024-06-11T12:00:00Z+05:00", "2024-06-11 ",
                    "2024-06-11T12:00:00+05:60", "2024-06-11T24:00", "2024-6-11", "2024-02-30", "0000-01-01", "1582-10-10", "2024-06-11T12"] {
            #expect(throws: LibraryError.invalidDate(bad), "\(bad)") { try parse(bad) }
        }
        #expect(try parse("2024-06-11T12:00:00+05") == noon.addingTimeInterval(-18_000), "an offset in whole hours")
        // The instant must be in the years 1–9999 too (UTC, as dates are written).
        for (bad, zone) in [("9999-12-31T23:59", "America/Los_Angeles"), ("0001-01-01", "Asia/Tokyo"), ("9999-12-31T23:59-05:00", "UTC")] {
            #expect(throws: LibraryError.invalidDate(bad), "\(bad) in \(zone)") { try parse(bad, TimeZone(identifier: zone)!) }
        }
        #expect(try parse("9999-12-31T23:59", TimeZone(identifier: "Asia/Tokyo")!) < parse("9999-12-31T23:59Z"))
        // Midnight does not exist on these days: the day starts at 01:00 local, when the clocks go on.
        for (zone, day, start) in [("America/Santiago", "2024-09-08", 1_725_768_000.0), ("America/Sao_Paulo", "2018-11-04", 1_541_300_400),
                                   ("Asia/Beirut", "2024-03-31", 1_711_836_000)] {
            let tz = TimeZone(identifier: zone)!
            let date = try parse(day, tz)
            #expect(date == Date(timeIntervalSince1970: start), "\(zone) \(day)")
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = tz
            #expect(calendar.dateComponents([.day, .hour], from: date) == DateComponents(day: Int(day.suffix(2)), hour: 1))
        }
    }


    /// A zone's local mean time before 1900 has an offset with seconds, which ISO 8601 cannot
    /// write (`list --json` printed -03:06:28): such an instant is written in UTC.
    @Test func anOffsetWithSecondsIsWrittenInUTC() throws {
        let date = Date(timeIntervalSince1970: -2_500_000_000)  // 1890-10-23
        let buenosAires = try #require(TimeZone(identifier: "America/Argentina/Buenos_Aires"))
        #expect(buenosAires.secondsFromGMT(for: date) % 60 != 0, "the zone then kept local mean time")
        let text = Display.iso(date, in: buenosAires)
        #expect(text.hasSuffix("Z") && Display.parseISO(text) == date, "\(text)")
        #expect(Display.iso(date, offset: -11_188) == text)
    }

    /// Dates are written without a formatter; they must read exactly as ISO8601DateFormatter's.
    @Test func isoTextEqualsTheFormattersForManyDatesAndZones() throws {
        for bad in ["2024-02-30T00:00:00Z", "2024-13-01T00:00:00Z", "2024-06-13T24:00:00Z", "2024-06-13T00:00:00+0200", "x"] {
            #expect(Display.parseISO(bad) == ISO8601DateFormatter().date(from: bad), "\(bad)")
        }
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        let zones = ["UTC", "Europe/Zurich", "America/Los_Angeles", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns"]
            .compactMap(TimeZone.init(identifier:))
        for _ in 0..<5000 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            // From year 1 to 9999, fractions of a second included.
            let date = Date(timeIntervalSince1970: -62_135_596_800 + Double(seed % 315_537_897_600_000) / 1000)
            for zone in zones {
                // Offsets come from cameras in whole minutes (a zone's 1850 local mean time has seconds).
                let offset = zone.secondsFromGMT(for: date)
                guard offset % 60 == 0 else { continue }
                let formatter = ISO8601DateFormatter()
                formatter.timeZone = zone
                let text = Display.iso(date, offset: offset)
                #expect(text == formatter.string(from: date), "\(date) in \(zone.identifier)")
                #expect(Display.parseISO(text) == formatter.date(from: text), "\(text) read back")
            }
        }
    }
}

@Suite struct OutOfRangeOffsetTests {
    /// Offsets no place keeps (a store written by something else) still give text, not a crash
    /// or hours cut to two digits.
    @Test(arguments: [360_000, -360_000, 99 * 3_600 + 59 * 60, -6_000_000_000_000])
    func absurdOffsetsStillGiveText(offset: Int) {
        let text = Display.iso(Date(timeIntervalSince1970: 0), offset: offset)
        #expect(!text.isEmpty)
        if abs(offset) < 100 * 3_600 { #expect(text.hasSuffix(offset < 0 ? "-99:59" : "+99:59")) }
        else { #expect(!text.hasSuffix("+00:00") || offset == 0) }
    }
}
