import Foundation
import Testing
@testable import OpenSwiftData

/// Subexpressions of a predicate that do not depend on the row are evaluated once and bound as
/// constants (issue 35), as apps write them: a captured value's properties.
@Suite struct ConstantFoldingTests {
    struct Filter: Codable, Sendable {
        var minimum: Int
        var word: String
        var names: [String]
        var id = UUID(uuidString: "00000000-0000-0000-0000-0000000000AB")!
    }

    func translate(_ predicate: Predicate<Item>) throws -> SQLFragment {
        try PredicateTranslator.translate(predicate, entity: EntityCache.entity(for: Item.self)).condition
    }

    func names(_ predicate: Predicate<Item>, notes: [String: String] = [:]) throws -> [String] {
        try fruitNames(predicate, notes: notes)
    }

    @Test func aCapturedValuesPropertiesAreBoundAsConstants() throws {
        let filter = Filter(minimum: 2, word: "an", names: ["cherry", "date"])
        let p = #Predicate<Item> { $0.rank >= filter.minimum && $0.name.contains(filter.word) }
        let fragment = try translate(p)
        #expect(fragment.sql == #"((t0."rank" >= ?) AND (instr(t0."name", ?) > 0))"#)
        #expect(fragment.bindings == [.integer(2), .text("an")])
        #expect(try names(p) == ["banana"])
    }

    /// `$0.key.contains(itemID.description)`, from a public app: a method-like property of a
    /// captured identifier, evaluated by Foundation's rules.
    @Test func aCapturedIdentifiersDescriptionIsAConstant() throws {
        let filter = Filter(minimum: 0, word: "", names: [])
        let p = #Predicate<Item> { ($0.note ?? "").contains(filter.id.description) }
        #expect(try translate(p).bindings == [.text(""), .text("00000000-0000-0000-0000-0000000000AB")])
        #expect(try names(p, notes: ["date": "see 00000000-0000-0000-0000-0000000000AB"]) == ["date"])
    }

    @Test func aCapturedValuesArrayIsAnInList() throws {
        let filter = Filter(minimum: 0, word: "", names: ["cherry", "date", "fig"])
        let p = #Predicate<Item> { filter.names.contains($0.name) }
        let fragment = try translate(p)
        #expect(fragment.sql == #"(t0."name" IN (?, ?, ?))"#)
        #expect(try names(p) == ["cherry", "date"])
    }

    /// Arithmetic of constants stays SQL: evaluating `1 / 0` would trap, SQLite gives NULL.
    @Test func constantArithmeticIsLeftToSQL() throws {
        let zero = 0
        let p = #Predicate<Item> { $0.rank == 1 / zero }
        #expect(try translate(p).sql == #"(t0."rank" IS (? / ?))"#)
        #expect(try names(p) == [])
    }

    /// A row-dependent expression without a translation is still refused, by name.
    @Test func aRowDependentExpressionWithoutATranslationIsStillRefused() throws {
        let p = #Predicate<Item> { $0.tags.max() == "z" }
        #expect(throws: PredicateTranslationError.self) { try translate(p) }
    }
}

/// The names, by rank, of the items "apple" (rank 1), "banana", "cherry" and "date" (4), each with
/// its `notes` entry, that `predicate` selects in a new in-memory store.
func fruitNames(_ predicate: Predicate<Item>, notes: [String: String] = [:]) throws -> [String] {
    let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = c.mainContext
    for (rank, name) in ["apple", "banana", "cherry", "date"].enumerated() {
        context.insert(Item(name: name, rank: rank + 1, note: notes[name]))
    }
    try context.save()
    return try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.rank)])).map(\.name)
}
