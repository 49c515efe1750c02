import Foundation
import Testing
import OpenSwiftData

/// `ModelContext.willSave` and `didSave` (issue 35), as Apple documents them and apps read them:
/// `userInfo[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]`.
@Suite struct SaveNotificationTests {
    /// What one observer saw, in order.
    final class Seen: @unchecked Sendable {
        var events: [(name: Notification.Name, object: AnyObject?, userInfo: [AnyHashable: Any]?)] = []
        func ids(_ key: ModelContext.NotificationKey, at index: Int) -> [PersistentIdentifier]? {
            events[index].userInfo?[key.rawValue] as? [PersistentIdentifier]
        }
    }

    func observe(_ context: ModelContext, during body: (Seen) throws -> Void) rethrows {
        let seen = Seen()
        let tokens = [ModelContext.willSave, ModelContext.didSave].map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
                seen.events.append((note.name, note.object as AnyObject?, note.userInfo))
            }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        try body(seen)
    }

    @Test func aSaveIsAnnouncedThenReportedWithItsIdentifiers() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Item.self, at: dir.store()))
        try observe(context) { seen in
            let a = Item(name: "a", rank: 1), b = Item(name: "b", rank: 2)
            context.insert(a)
            context.insert(b)
            try context.save()
            #expect(seen.events.map(\.name) == [ModelContext.willSave, ModelContext.didSave])
            #expect(seen.events[0].userInfo == nil && seen.events.allSatisfy { $0.object === context })
            let inserted = try #require(seen.ids(.insertedIdentifiers, at: 1))
            #expect(Set(inserted) == [a.persistentModelID, b.persistentModelID] && inserted.allSatisfy { !$0.isTemporary })
            #expect(seen.ids(.updatedIdentifiers, at: 1) == [] && seen.ids(.deletedIdentifiers, at: 1) == [])

            // An update and a delete; then a save with nothing to save posts nothing.
            a.rank = 10
            let deletedID = b.persistentModelID
            context.delete(b)
            try context.save()
            #expect(seen.ids(.updatedIdentifiers, at: 3) == [a.persistentModelID])
            #expect(seen.ids(.deletedIdentifiers, at: 3) == [deletedID] && seen.ids(.insertedIdentifiers, at: 3) == [])
            try context.save()
            #expect(seen.events.count == 4)
        }
    }

    /// What an observer of `willSave` changes is saved with the rest (apps stamp `updatedAt` so).
    @Test func changesMadeInWillSaveAreSaved() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Item.self, at: dir.store()))
        let token = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            for case let item as Item in context.insertedModelsArray { item.note = "stamped" }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        context.insert(Item(name: "x", rank: 1))
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT note FROM Item") == "stamped")
    }

    /// Another context's save is not this one's: observers filter by object.
    @Test func anObserverOfOneContextDoesNotHearAnother() throws {
        let dir = TemporaryDirectory()
        let shared = try container(Item.self, at: dir.store())
        let mine = ModelContext(shared), other = ModelContext(shared)
        try observe(mine) { seen in
            other.insert(Item(name: "theirs", rank: 1))
            try other.save()
            #expect(seen.events.isEmpty)
        }
    }

    /// Found by an outside attack: `save()` called by a `willSave` observer recursed until the
    /// stack overflowed; now it returns, and the save under way saves everything once.
    @Test func aSaveFromWillSaveIsTheSaveUnderWay() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Item.self, at: dir.store()))
        nonisolated(unsafe) var didSaves = 0
        let tokens = [
            NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in try? context.save() },
            NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { _ in didSaves += 1 },
        ]
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        context.insert(Item(name: "once", rank: 1))
        try context.save()
        #expect(didSaves == 1)
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Item") == "1")
    }

    /// Found by an outside attack: `didSave` was posted while the save still held the blob
    /// store's lock, so an observer's own save of an external value waited for it and then left
    /// its removed blob behind.
    @Test func didSaveComesAfterTheBlobStoreIsFree() throws {
        let dir = TemporaryDirectory()
        let c = try container(Memory.self, MemoryImage.self, at: dir.store())
        let context = ModelContext(c)
        let store = try #require(c.blobStore)
        nonisolated(unsafe) var free: Bool?
        let token = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { _ in
            guard free == nil else { return }
            free = (try? store.exclusiveLock(timeout: 0)).map { $0.unlock(); return true } ?? false
        }
        defer { NotificationCenter.default.removeObserver(token) }
        context.insert(Memory(title: "A", date: .now, notes: "", images: [image("blob")]))
        try context.save()
        #expect(free == true)
    }
}

