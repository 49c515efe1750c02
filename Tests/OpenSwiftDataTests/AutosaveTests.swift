import Foundation
import Testing
import OpenSwiftData

@Suite struct AutosaveTests {
    @Test func anAutosavingContextSavesWhenItGoesAway() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        do {
            let context = ModelContext(c)
            context.autosaveEnabled = true
            context.insert(Item(name: "kept", rank: 1))
        }
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT name FROM Item") == "kept")
    }

    @Test func aContextWithoutAutosaveDropsUnsavedChanges() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        do {
            let context = ModelContext(c)
            context.insert(Item(name: "lost", rank: 1))
        }
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Item") == "0")
    }

    @Test func autosaveRunsWhenTheThresholdIsReached() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        let context = c.mainContext
        #expect(context.autosaveEnabled)
        context.autosaveThreshold = 10
        for i in 0..<9 { context.insert(Item(name: "n\(i)", rank: i)) }
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Item") == "0")
        context.insert(Item(name: "n9", rank: 9))
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Item") == "10")
        #expect(!context.hasChanges)
    }

    @Test func mainContextAutosavesAtProcessExit() throws {
        let dir = TemporaryDirectory()
        let store = dir.store("budget.store")
        let status = try runProduct("osd-demo", ["--autosave-probe", store.path])
        #expect(status.exitCode == 0)
        #expect(try SQLiteProbe(store).scalar("SELECT title FROM Expense") == "autosaved")
    }
}
