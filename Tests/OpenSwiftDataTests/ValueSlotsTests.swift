import Foundation
import Testing
@testable import OpenSwiftData

/// A backing data's value slots: one owner, explicit copies, every value released exactly once.
@Suite(.serialized) struct ValueSlotsTests {
    /// Counts its live instances, so a test can see which values the slots still hold.
    final class Tracked {
        nonisolated(unsafe) static var live = 0
        init() { Tracked.live += 1 }
        deinit { Tracked.live -= 1 }
    }

    @Test func growKeepsValuesAndReplaceUnsetsWhatTheCopyLacks() {
        var slots = ValueSlots(count: 2)
        #expect(slots.count == 2 && slots[0] == nil && slots[1] == nil)
        slots[0] = "a"
        slots[1] = 7
        slots.grow(to: 4)
        #expect(slots.count == 4 && slots[0] as? String == "a" && slots[1] as? Int == 7 && slots[3] == nil)
        let copy = slots.copy
        slots[0] = "changed"
        #expect(copy[0] as? String == "a", "a copy shares nothing with the slots")
        slots.replace(with: [1.5])
        #expect(slots.count == 4 && slots[0] as? Double == 1.5 && slots[1] == nil && slots[3] == nil)
        slots.replace(with: [1, 2, 3, 4, 5])
        #expect(slots.count == 5 && slots[4] as? Int == 5)
    }

    /// `isUnset` reads the slot's memory instead of copying the value: it must agree with `== nil`
    /// for every kind of value an `Any?` holds (inline, boxed, class, optional inside, empty).
    @Test func isUnsetAgreesWithComparingToNil() {
        struct Big { var a = 1, b = 2, c = 3, d = 4 }  // larger than the existential's inline buffer
        let values: [Any?] = [nil, 0, "", "a long string, stored out of line", Date(), Tracked(), Big(),
                              Optional<Int>.none as Any, [Int](), 1.5, true, Data(), (1, "x")]
        let slots = ValueSlots(count: values.count)
        for (i, value) in values.enumerated() { slots[i] = value }
        for i in values.indices {
            let unset = slots.isUnset(i)
            #expect(unset == (values[i] == nil), "slot \(i): \(String(describing: values[i]))")
        }
        let first = slots.isUnset(0), nilInside = slots.isUnset(7)
        #expect(first && !nilInside, "a nil Int inside is a value, not an unset slot")
        slots[3] = nil
        let cleared = slots.isUnset(3)
        #expect(cleared)
    }

    @Test func valuesAreReleasedWhenOverwrittenAndWithTheSlots() {
        Tracked.live = 0
        do {
            let slots = ValueSlots(count: 3) { slot, _ in slot.initialize(to: Tracked()) }
            #expect(Tracked.live == 3)
            slots[1] = nil
            #expect(Tracked.live == 2)
        }
        #expect(Tracked.live == 0)
    }

    @Test func aFailedInitializationReleasesTheSlotsItFilled() {
        struct Stop: Error {}
        Tracked.live = 0
        #expect(throws: Stop.self) {
            _ = try ValueSlots(count: 4) { slot, index in
                if index == 2 { throw Stop() }
                slot.initialize(to: Tracked())
            }
        }
        #expect(Tracked.live == 0)
    }
}
