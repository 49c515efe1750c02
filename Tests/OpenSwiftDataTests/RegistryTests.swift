import Foundation
import Testing
@testable import OpenSwiftData

/// The identity map's table: paged by primary key, with a dictionary for keys outside the pages.
@Suite struct RegistryTests {
    @Test func entriesAreFoundReplacedAndRemovedAcrossPagesAndOverflowKeys() throws {
        let objects = (0..<6).map { _ in NSObject() }
        let backings = objects.map { object in
            let backing = _BackingData(count: 0)
            backing.owner = object
            return backing
        }
        let a = ObjectIdentifier(Int.self), b = ObjectIdentifier(String.self)
        let keys: [Int64] = [1, 1023, 1024, 5_000_000, 0, 1 << 40]
        var registry = Registry()
        for (i, key) in keys.enumerated() {
            registry[.init(entity: a, primaryKey: key)] = .init(backing: backings[i])
        }
        registry[.init(entity: b, primaryKey: 1)] = .init(backing: backings[5])
        #expect(registry.count == 7 && registry.entries.count == 7)
        for (i, key) in keys.enumerated() {
            #expect(registry[.init(entity: a, primaryKey: key)]?.backing === backings[i])
        }
        #expect(registry[.init(entity: b, primaryKey: 1)]?.object === objects[5])
        #expect(registry[.init(entity: a, primaryKey: 2)] == nil && registry[.init(entity: b, primaryKey: 1024)] == nil)
        // Replacing keeps the count; removing an absent key changes nothing.
        registry[.init(entity: a, primaryKey: 1)] = .init(backing: backings[1])
        registry[.init(entity: a, primaryKey: 77)] = nil
        #expect(registry.count == 7 && registry[.init(entity: a, primaryKey: 1)]?.backing === backings[1])
        for key in keys { registry[.init(entity: a, primaryKey: key)] = nil }
        #expect(registry.count == 1 && !registry.contains(entity: a) && registry.contains(entity: b))
        #expect(registry[.init(entity: a, primaryKey: 1024)] == nil && registry[.init(entity: a, primaryKey: 0)] == nil)
        withExtendedLifetime((backings, objects)) {}
    }
}
