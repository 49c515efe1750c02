import Foundation
import Testing
@testable import OpenSwiftData

@Suite struct MigrationTests {
    func backups(in dir: TemporaryDirectory) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains(".backup-") }) ?? []
    }

    @Test func theBudgetStoreOpensWithTheLaterNoteProperty() throws {
        let dir = TemporaryDirectory()
        do {
            let old = try container(BudgetV1.Expense.self, at: dir.store())
            old.mainContext.insert(BudgetV1.Expense(title: "Rent", amount: Decimal(string: "1200.50")!, category: .housing, date: Date(timeIntervalSinceReferenceDate: 5)))
            try old.mainContext.save()
        }
        let c = try container(Expense.self, at: dir.store())
        let expenses = try c.mainContext.fetch(FetchDescriptor<Expense>())
        #expect(expenses.count == 1)
        #expect(expenses[0].title == "Rent" && expenses[0].amount == Decimal(string: "1200.50")! && expenses[0].category == .housing)
        #expect(expenses[0].note == "")
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT note FROM Expense") == "")
        #expect(backups(in: dir).count == 1, "a backup of the store is made before migrating")
        // Opening again changes nothing and makes no new backup.
        _ = try container(Expense.self, at: dir.store())
        #expect(backups(in: dir).count == 1)
    }

    @Test func renameKeepRemovedAndAddUniqueHappenAutomatically() throws {
        let dir = TemporaryDirectory()
        do {
            let old = try container(ShapeV1.Card.self, at: dir.store())
            old.mainContext.insert(ShapeV1.Card(name: "a", extra: "x", code: "1"))
            old.mainContext.insert(ShapeV1.Card(name: "b", extra: "y", code: "2"))
            try old.mainContext.save()
        }
        let c = try container(ShapeV2.Card.self, at: dir.store())
        let cards = try c.mainContext.fetch(FetchDescriptor<ShapeV2.Card>(sortBy: [SortDescriptor(\.code)]))
        #expect(cards.map(\.title) == ["a", "b"])
        let probe = SQLiteProbe(dir.store())
        // `extra` is no longer declared: its column and values stay (automatic migration drops nothing).
        #expect(try probe.rows("SELECT name FROM pragma_table_info('Card')").map { $0[0] } == ["_pk", "title", "extra", "code"])
        #expect(try probe.rows("SELECT extra FROM Card ORDER BY code").map { $0[0] } == ["x", "y"])
        // Rows inserted by the version without it leave it NULL.
        c.mainContext.insert(ShapeV2.Card(title: "c", code: "3"))
        try c.mainContext.save()
        #expect(try probe.scalar("SELECT extra FROM Card WHERE code = '3'") == "NULL")
        #expect(try probe.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Card_code_unique'") == "1")
        // And back: removing .unique really drops the index.
        _ = try container(ShapeV3.Card.self, at: dir.store())
        #expect(try probe.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Card_code_unique'") == "0")
    }

    func fileBytes(_ dir: TemporaryDirectory) throws -> Data {
        try Data(contentsOf: dir.store())
    }

    func storeWithDuplicates() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let old = try container(ShapeV1.Card.self, at: dir.store())
        old.mainContext.insert(ShapeV1.Card(name: "a", extra: "x", code: "same"))
        old.mainContext.insert(ShapeV1.Card(name: "b", extra: "y", code: "same"))
        try old.mainContext.save()
        return dir
    }

    @Test func aTypeChangeFailsNamingThePropertyAndLeavesTheFileUntouched() throws {
        let dir = try storeWithDuplicates()
        let before = try SQLiteProbe(dir.store()).rows("SELECT * FROM Card")
        let schemaBefore = try SQLiteProbe(dir.store()).rows("SELECT sql FROM sqlite_master")
        #expect {
            _ = try container(ShapeTyped.Card.self, at: dir.store())
        } throws: { error in
            guard case MigrationError.incompatibleChange(let model, let property, let change, let fix) = error else { return false }
            return model == "Card" && property == "code" && change.contains("TEXT") && change.contains("INTEGER") && fix.contains("SchemaMigrationPlan")
        }
        #expect(try SQLiteProbe(dir.store()).rows("SELECT * FROM Card") == before)
        #expect(try SQLiteProbe(dir.store()).rows("SELECT sql FROM sqlite_master") == schemaBefore)
        #expect(backups(in: dir).isEmpty)
    }

    @Test func uniqueOverDuplicatesAndARequiredPropertyWithoutDefaultFail() throws {
        let dir = try storeWithDuplicates()
        #expect(throws: MigrationError.self) { _ = try container(ShapeV2.Card.self, at: dir.store()) }
        #expect(try SQLiteProbe(dir.store()).rows("SELECT name FROM pragma_table_info('Card')").map { $0[0] } == ["_pk", "name", "extra", "code"])
        #expect {
            _ = try container(ShapeRequired.Card.self, at: dir.store())
        } throws: { error in
            guard case MigrationError.incompatibleChange(_, let property, _, let fix) = error else { return false }
            return property == "owner" && fix.contains("default value")
        }
    }

    @Test func aCustomStageCarriesValuesAcrossATypeChange() throws {
        let dir = TemporaryDirectory()
        do {
            let c = try ModelContainer(for: Schema(versionedSchema: PriceV1.self), migrationPlan: PricePlan.self,
                                       configurations: ModelConfiguration(url: dir.store()))
            c.mainContext.insert(PriceV1.Price(label: "tea", amount: 2.5))
            try c.mainContext.save()
        }
        let c = try ModelContainer(for: Schema(versionedSchema: PriceV2.self), migrationPlan: PricePlan.self,
                                   configurations: ModelConfiguration(url: dir.store()))
        let prices = try c.mainContext.fetch(FetchDescriptor<PriceV2.Price>())
        #expect(prices.map(\.amount) == [Decimal(string: "2.5")!])
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT value FROM _osd_metadata WHERE key = 'schemaVersion'") == "2.0.0")
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT typeof(amount) FROM Price") == "text")
    }

    /// A store's version is recognised by its shape, as Core Data recognises a model version by
    /// its entities: two versions sharing an identifier still run the stage between them.
    @Test func versionsSharingAnIdentifierAreToldApartByTheirShape() throws {
        let dir = TemporaryDirectory()
        do {
            let c = try ModelContainer(for: Schema(versionedSchema: TagV1.self), migrationPlan: TagPlan.self,
                                       configurations: ModelConfiguration(url: dir.store()))
            c.mainContext.insert(TagV1.Tag(name: "rome"))
            try c.mainContext.save()
        }
        let c = try ModelContainer(for: Schema(versionedSchema: TagV2.self), migrationPlan: TagPlan.self,
                                   configurations: ModelConfiguration(url: dir.store()))
        #expect(try c.mainContext.fetch(FetchDescriptor<TagV2.Tag>()).map(\.weight) == [4])
        // Opened again, the store is recognised as the second version: the stage does not run twice.
        do {
            let context = c.mainContext
            try context.fetch(FetchDescriptor<TagV2.Tag>()).forEach { $0.weight = 9 }
            try context.save()
        }
        let again = try ModelContainer(for: Schema(versionedSchema: TagV2.self), migrationPlan: TagPlan.self,
                                       configurations: ModelConfiguration(url: dir.store()))
        #expect(try again.mainContext.fetch(FetchDescriptor<TagV2.Tag>()).map(\.weight) == [9])
    }

    /// A stage drops what its earlier version declared, and only that: a column no version of
    /// the plan declared (another app's, a newer version's) stays with its values.
    @Test func aStageDropsOnlyColumnsItsEarlierVersionDeclared() throws {
        let dir = TemporaryDirectory()
        do {
            let c = try ModelContainer(for: Schema(versionedSchema: NoteV1.self), migrationPlan: NotePlan.self,
                                       configurations: ModelConfiguration(url: dir.store()))
            let note = NoteV1.Note(title: "a")
            note.draft = "unsaved words"
            c.mainContext.insert(note)
            try c.mainContext.save()
            try c.anchorConnection.execute("ALTER TABLE Note ADD COLUMN later TEXT; UPDATE Note SET later = 'kept'")
        }
        let c = try ModelContainer(for: Schema(versionedSchema: NoteV2.self), migrationPlan: NotePlan.self,
                                   configurations: ModelConfiguration(url: dir.store()))
        #expect(try c.mainContext.fetch(FetchDescriptor<NoteV2.Note>()).map(\.title) == ["a"])
        let probe = SQLiteProbe(dir.store())
        #expect(try probe.rows("SELECT name FROM pragma_table_info('Note')").map { $0[0] } == ["_pk", "title", "later"])
        #expect(try probe.scalar("SELECT later FROM Note") == "kept")
    }
}


@Suite struct IndexMigrationTests {
    func indexes(_ url: URL) throws -> [String] {
        try SQLiteProbe(url).rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Visit' AND sql IS NOT NULL ORDER BY name").map { $0[0] }
    }

    @Test func uniqueAndIndexListsComeAndGoWithLightweightMigration() throws {
        let dir = TemporaryDirectory()
        let day = Date(timeIntervalSinceReferenceDate: 700_000_000)
        do {
            let old = try container(IndexV1.Visit.self, at: dir.store())
            let context = ModelContext(old)
            let a = IndexV1.Visit(place: "Rome", day: day), b = IndexV1.Visit(place: "Oslo", day: day)
            a.note = "a"
            b.note = "b"
            context.insert(a)
            context.insert(b)
            try context.save()
        }
        #expect(try indexes(dir.store()) == [])
        let c = try container(IndexV2.Visit.self, at: dir.store())
        #expect(try indexes(dir.store()) == ["Visit_day_index", "Visit_note_unique", "Visit_place_day_index", "Visit_place_day_unique"])
        #expect(try SQLiteProbe(dir.store()).rows("SELECT place, note FROM Visit ORDER BY place") == [["Oslo", "b"], ["Rome", "a"]])
        // The new constraints act: the same place and day upserts, and so does the same note.
        let context = ModelContext(c)
        let again = IndexV2.Visit(place: "Rome", day: day)
        again.note = "c"
        context.insert(again)
        let sameNote = IndexV2.Visit(place: "Bern", day: day.addingTimeInterval(86_400))
        sameNote.note = "b"
        context.insert(sameNote)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT place, note FROM Visit ORDER BY note") == [["Bern", "b"], ["Rome", "c"]])
        // Back to the version without them: the indexes go, the rows stay.
        _ = try container(IndexV1.Visit.self, at: dir.store())
        #expect(try indexes(dir.store()) == [])
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Visit") == "2")
    }

    @Test func addingAUniqueListOverDuplicateRowsFailsAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let day = Date(timeIntervalSinceReferenceDate: 700_000_000)
        do {
            let old = try container(IndexV1.Visit.self, at: dir.store())
            old.mainContext.insert(IndexV1.Visit(place: "Rome", day: day))
            old.mainContext.insert(IndexV1.Visit(place: "Rome", day: day))
            try old.mainContext.save()
        }
        // Read through SQLite (the WAL included), not only the main file's bytes.
        let probe = SQLiteProbe(dir.store())
        let schema = try probe.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        let rows = try probe.rows("SELECT * FROM Visit ORDER BY _pk")
        let before = try Data(contentsOf: dir.store())
        #expect(throws: MigrationError.self) { _ = try container(IndexV2.Visit.self, at: dir.store()) }
        #expect(try Data(contentsOf: dir.store()) == before)
        #expect(try probe.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name") == schema)
        #expect(try probe.rows("SELECT * FROM Visit ORDER BY _pk") == rows && rows.count == 2)
        #expect(try indexes(dir.store()) == [])
    }
}
