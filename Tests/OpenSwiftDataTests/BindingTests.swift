import Foundation
import Synchronization
import Testing
import OpenSwiftData

/// A save binds a model's strings in place (no copy) and runs the statement while they are
/// borrowed; a fetch hands each row's backing data to the model initializer through a C
/// thread-local. These check the bytes stored and the models built, under the shapes that could
/// break either: strings short enough to live inline in the `String`, long ones, ones made from
/// slices, many models per statement, the upsert path, and fetches on several threads at once.
@Suite struct BindingTests {
    static let texts: [String] = [
        "", "a", "fifteen bytes!!", "sixteen bytes!!!", "héllo 🎉 wörld", "with\u{0}nul inside",
        String(repeating: "long text ", count: 10_000),
        String("a slice of a longer string that is cut".dropFirst(2).dropLast(4)),
    ]

    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }

    @Test func everyStringIsStoredByteForByte() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        for (i, text) in Self.texts.enumerated() {
            c.mainContext.insert(Item(name: "\(i):" + text, rank: i, note: text))
        }
        try c.mainContext.save()
        let rows = try c.mainContext.query("SELECT rank, hex(name), hex(note) FROM Item ORDER BY rank")
        #expect(rows.count == Self.texts.count)
        for row in rows {
            guard case .integer(let rank) = row[0], case .text(let name) = row[1], case .text(let note) = row[2] else {
                Issue.record("unexpected row \(row)"); continue
            }
            let text = Self.texts[Int(rank)]
            #expect(name == Self.hex("\(rank):" + text))
            #expect(note == Self.hex(text))
        }
        // Read back through models in a fresh context: the same strings.
        let fetched = try ModelContext(c).fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)]))
        #expect(fetched.map(\.note) == Self.texts.map { Optional($0) })
    }

    @Test func anUpsertStoresTheNewStrings() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        c.mainContext.insert(Item(name: "same", rank: 1, note: "old note"))
        try c.mainContext.save()
        let other = ModelContext(c)
        let long = String(repeating: "new ", count: 5_000)
        other.insert(Item(name: "same", rank: 2, note: long))
        try other.save()
        let rows = try other.query("SELECT rank, note FROM Item")
        #expect(rows.count == 1)
        #expect(rows.first?[0] == .integer(2))
        #expect(rows.first?[1] == .text(long))
        // The statement does not keep the borrowed strings: a later insert binds its own.
        other.insert(Item(name: "next", rank: 3, note: "third"))
        try other.save()
        #expect(try other.query("SELECT note FROM Item WHERE rank = 3").first?[0] == .text("third"))
    }

    @Test func fetchesOnSeveralThreadsBuildTheirOwnModels() throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        for i in 0..<500 { c.mainContext.insert(Item(name: "item \(i)", rank: i, note: "note \(i)")) }
        try c.mainContext.save()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let context = ModelContext(c)
                for _ in 0..<5 {
                    let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)]))
                    let wrong = items.enumerated().filter { i, item in
                        item.rank != i || item.name != "item \(i)" || item.note != "note \(i)"
                            || item.modelContext !== context
                    }
                    if items.count != 500 || !wrong.isEmpty { failures.withLock { $0 += 1 } }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
