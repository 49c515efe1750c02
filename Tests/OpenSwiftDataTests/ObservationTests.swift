import Foundation
import Observation
import Testing
@testable import OpenSwiftData

/// `@Model` classes are `Observable`, as SwiftData's are (issue 35): `withObservationTracking` over a
/// read of a persisted property is told of the next change to it, whoever makes it.
@Suite struct ObservationTests {
    /// How many times an observer's `onChange` ran.
    final class Count: @unchecked Sendable { var value = 0 }

    /// Tracks what `read` reads; the returned count grows when any of it changes.
    func track(_ read: @escaping () -> Void) -> Count {
        let count = Count()
        withObservationTracking(read) { count.value += 1 }
        return count
    }

    @Test func modelsAreObservable() {
        func isObservable<T: Observable>(_: T.Type) -> Bool { true }
        #expect(isObservable(Item.self))
        let item = Item(name: "a", rank: 1)
        #expect((item as Any) is any Observable)
    }

    @Test func aWriteToAReadPropertyIsReportedOnceAndOthersAreNot() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Item.self, at: dir.store()))
        let item = Item(name: "a", rank: 1)
        context.insert(item)
        try context.save()

        let rank = track { _ = item.rank }
        item.name = "b"               // not read: not reported
        #expect(rank.value == 0)
        item.rank = 2
        #expect(rank.value == 1)
        item.rank = 3                 // `withObservationTracking` reports the first change only
        #expect(rank.value == 1)
        #expect(item.rank == 3 && item.hasChanges)

        // Another item's rank is another property.
        let other = Item(name: "c", rank: 5)
        context.insert(other)
        let otherRank = track { _ = other.rank }
        item.rank = 4
        #expect(otherRank.value == 0)
    }

    @Test func aDetachedModelIsObservedToo() {
        let item = Item(name: "a", rank: 1)
        let note = track { _ = item.note }
        item.note = "written before any context"
        #expect(note.value == 1)
    }

    /// `Observations`-style observers need `didSet` after the value changed: the value read in
    /// `onChange` (which runs at `willSet`) is still the old one, as with `@Observable`.
    @Test func onChangeRunsBeforeTheValueChanges() {
        let item = Item(name: "a", rank: 1)
        final class Seen: @unchecked Sendable { var rank: Int? }
        let seen = Seen()
        withObservationTracking { _ = item.rank } onChange: { seen.rank = item.rank }
        item.rank = 9
        #expect(seen.rank == 1 && item.rank == 9)
    }

    @Test func theOtherSideOfARelationshipIsReportedWhenTheRuntimeKeepsItInStep() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Owner.self, Pet.self, at: dir.store()))
        let ann = Owner(name: "Ann"), bob = Owner(name: "Bob")
        let rex = Pet(name: "Rex")
        context.insert(ann); context.insert(bob); context.insert(rex)
        try context.save()

        // Setting the to-one changes both owners' arrays.
        let annPets = track { _ = ann.pets }
        let bobPets = track { _ = bob.pets }
        rex.owner = ann
        #expect(annPets.value == 1 && bobPets.value == 0)
        let annPetsAgain = track { _ = ann.pets }
        rex.owner = bob
        #expect(annPetsAgain.value == 1 && bobPets.value == 1)
        #expect(ann.pets.isEmpty && bob.pets.map(\.name) == ["Rex"])

        // Appending to the to-many sets the pet's owner.
        let rexOwner = track { _ = rex.owner }
        ann.pets.append(rex)
        #expect(rexOwner.value == 1 && rex.owner === ann)
    }

    @Test func rollbackReportsTheValuesItRestores() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Item.self, at: dir.store()))
        let item = Item(name: "a", rank: 1)
        context.insert(item)
        try context.save()
        item.rank = 2
        let rank = track { _ = item.rank }
        let name = track { _ = item.name }
        context.rollback()
        #expect(item.rank == 1)
        #expect(rank.value == 1 && name.value == 0)
    }

    /// A fetched model is observed like an inserted one, and one never read costs no registrar.
    @Test func fetchedModelsAreObserved() throws {
        let dir = TemporaryDirectory()
        let url = dir.store()
        do {
            let context = ModelContext(try container(Item.self, at: url))
            context.insert(Item(name: "a", rank: 1))
            try context.save()
        }
        let context = ModelContext(try container(Item.self, at: url))
        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        let rank = track { _ = item.rank }
        item.rank = 7
        #expect(rank.value == 1)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.rank == 7 })).count == 1)
    }

    /// Reads outside `withObservationTracking` make no registrar (the walk of a relationship stays
    /// as quick as before); the first read under it does, and from then on the model is observed.
    @Test func aRegistrarIsMadeOnlyForAReadUnderObservation() {
        let item = Item(name: "a", rank: 1)
        _ = item.rank
        item.rank = 2
        #expect(item.persistentBackingData.observation == nil)
        let rank = track { _ = item.rank }
        #expect(item.persistentBackingData.observation != nil)
        item.rank = 3
        #expect(rank.value == 1)
    }

    /// Observers that never fire stay in each registrar they read, the probe's too (a model read
    /// first under observation is probed); the probe is replaced every 1,024 collected reads, and
    /// observation keeps working across replacements: each observer hears its own model only.
    @Test func manyObserversThatNeverFireLeaveObservationWorking() {
        let items = (0..<2_500).map { Item(name: "\($0)", rank: $0) }
        let counts = items.map { item in track { _ = item.rank } }
        items[10].rank = -1
        items[2_000].rank = -1
        #expect(counts.enumerated().allSatisfy { index, count in count.value == ([10, 2_000].contains(index) ? 1 : 0) })
    }

    /// Observation is per thread: a read on another thread is collected by that thread's tracking.
    @Test func observationWorksOnAnyThread() async {
        let item = Item(name: "a", rank: 1)
        nonisolated(unsafe) let shared = item
        let count = await Task.detached { self.track { _ = shared.rank } }.value
        item.rank = 5
        #expect(count.value == 1)
    }
}
