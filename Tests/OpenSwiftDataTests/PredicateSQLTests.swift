import Foundation
import Testing
@testable import OpenSwiftData

/// The SQL each predicate form becomes, and that it selects the right rows.
@Suite struct PredicateSQLTests {
    func sql(_ predicate: Predicate<Item>) throws -> String {
        try PredicateTranslator.translate(predicate, entity: EntityCache.entity(for: Item.self)).condition.sql
    }

    func names(_ predicate: Predicate<Item>) throws -> [String] {
        let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        let rows: [(String, Int, String?)] = [("apple", 1, "Crème brûlée"), ("banana", 2, nil), ("cherry", 3, "50%_off"), ("date", 4, "red")]
        for (name, rank, note) in rows {
            let item = Item(name: name, rank: rank, note: note, created: Date(timeIntervalSinceReferenceDate: Double(rank) * 100))
            item.tags = rank % 2 == 0 ? ["even"] : ["odd"]
            context.insert(item)
        }
        try context.save()
        return try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.rank)])).map(\.name)
    }

    @Test func comparisonsAndLogic() throws {
        let p = #Predicate<Item> { $0.rank > 1 && ($0.rank <= 3 || !($0.name == "date")) }
        #expect(try sql(p) == #"((t0."rank" > ?) AND ((t0."rank" <= ?) OR (NOT (t0."name" IS ?))))"#)
        #expect(try names(p) == ["banana", "cherry"])
    }

    @Test func arithmetic() throws {
        let p = #Predicate<Item> { $0.rank * 2 - 1 >= 5 && $0.rank % 2 == 0 }
        #expect(try sql(p) == #"((((t0."rank" * ?) - ?) >= ?) AND ((t0."rank" % ?) IS ?))"#)
        #expect(try names(p) == ["date"])
    }

    @Test func nilChecksAndCoalescing() throws {
        let isNil = #Predicate<Item> { $0.note == nil }
        #expect(try sql(isNil) == #"(t0."note" IS NULL)"#)
        #expect(try names(isNil) == ["banana"])
        let notNil = #Predicate<Item> { $0.note != nil }
        #expect(try sql(notNil) == #"(t0."note" IS NOT NULL)"#)
        let coalesce = #Predicate<Item> { ($0.note ?? "none") == "none" }
        #expect(try sql(coalesce) == #"(coalesce(t0."note", ?) IS ?)"#)
        #expect(try names(coalesce) == ["banana"])
        let chained = #Predicate<Item> { ($0.note?.count ?? 0) > 3 }
        #expect(try names(chained) == ["apple", "cherry"])
    }

    @Test func stringContainsIsCaseSensitive() throws {
        let p = #Predicate<Item> { $0.name.contains("an") }
        #expect(try sql(p) == #"(instr(t0."name", ?) > 0)"#)
        #expect(try names(p) == ["banana"])
        #expect(try names(#Predicate<Item> { $0.name.contains("AN") }) == [])
    }

    @Test func startsWithEscapesGlobCharacters() throws {
        let p = #Predicate<Item> { $0.name.starts(with: "ch") }
        #expect(try sql(p) == #"(t0."name" GLOB ?)"#)
        #expect(try names(p) == ["cherry"])
        #expect(try names(#Predicate<Item> { ($0.note ?? "").starts(with: "50%_") }) == ["cherry"])
        #expect(try names(#Predicate<Item> { $0.name.starts(with: "*") }) == [])
    }

    /// A wildcard followed by a combining mark or U+200D is one Swift `Character` that is not the
    /// wildcard; SQLite reads the pattern by code point, so the escaping must too.
    @Test func wildcardsAreEscapedByUnicodeScalar() throws {
        #expect(globEscaped("*\u{301}?\u{200D}[x") == "[*]\u{301}[?]\u{200D}[[]x")
        #expect(likeEscaped("%\u{301}_\u{200D}\\") == "\\%\u{301}\\_\u{200D}\\\\")
        // Unescaped, "*\u{301}" would be a GLOB matching any text that holds U+0301.
        #expect(try names(#Predicate<Item> { $0.name.starts(with: "*\u{301}") }) == [])
    }

    @Test func localizedStandardContainsIgnoresCaseAndAccentsAndEscapesLike() throws {
        let p = #Predicate<Item> { ($0.note ?? "").localizedStandardContains("CREME") }
        #expect(try sql(p) == #"(osd_fold(coalesce(t0."note", ?)) LIKE ? ESCAPE '\')"#)
        #expect(try names(p) == ["apple"])
        #expect(try names(#Predicate<Item> { ($0.note ?? "").localizedStandardContains("%_") }) == ["cherry"])
        #expect(try names(#Predicate<Item> { ($0.note ?? "").localizedStandardContains("0_") }) == [])
    }

    @Test func arrayContainsBecomesIn() throws {
        let wanted = ["apple", "date", "zzz"]
        let p = #Predicate<Item> { wanted.contains($0.name) }
        #expect(try sql(p) == #"(t0."name" IN (?, ?, ?))"#)
        #expect(try names(p) == ["apple", "date"])
        let none: [String] = []
        #expect(try names(#Predicate<Item> { none.contains($0.name) }) == [])
    }

    @Test func storedArrayContainsUsesJSONEach() throws {
        let p = #Predicate<Item> { $0.tags.contains("even") }
        #expect(try sql(p) == #"EXISTS (SELECT 1 FROM json_each(t0."tags") WHERE value = ?)"#)
        #expect(try names(p) == ["banana", "date"])
    }

    @Test func rangesAndDates() throws {
        let closed = #Predicate<Item> { (2...3).contains($0.rank) }
        #expect(try sql(closed) == #"((t0."rank" >= ?) AND (t0."rank" <= ?))"# || (try sql(closed)) == #"(t0."rank" >= ? AND t0."rank" <= ?)"#)
        #expect(try names(closed) == ["banana", "cherry"])
        let start = Date(timeIntervalSinceReferenceDate: 150)
        let end = Date(timeIntervalSinceReferenceDate: 400)
        let range = start..<end
        #expect(try names(#Predicate<Item> { range.contains($0.created) }) == ["banana", "cherry"])
        #expect(try names(#Predicate<Item> { $0.created >= start && $0.created < end }) == ["banana", "cherry"])
    }

    @Test func conditionalAndStringCount() throws {
        let p = #Predicate<Item> { ($0.rank > 2 ? $0.name.count : 0) == 4 }
        #expect(try sql(p) == #"((CASE WHEN (t0."rank" > ?) THEN length(t0."name") ELSE ? END) IS ?)"#)
        #expect(try names(p) == ["date"])
        #expect(try names(#Predicate<Item> { $0.name.isEmpty }) == [])
    }

    @Test func untranslatableExpressionsThrowNamingThem() throws {
        let p = #Predicate<Item> { $0.scratch == 1 }
        #expect(throws: PredicateTranslationError.self) { try sql(p) }
        do {
            _ = try sql(p)
        } catch let error as PredicateTranslationError {
            guard case .unknownKeyPath(let model, let keyPath) = error else { Issue.record("wrong error \(error)"); return }
            #expect(model == "Item" && keyPath.contains("scratch"))
        }
        let unsupported = #Predicate<Item> { $0.rank > 1 && $0.tags.allSatisfy { $0 == "x" } }
        do {
            _ = try sql(unsupported)
            Issue.record("translated an unsupported predicate")
        } catch PredicateTranslationError.unsupportedExpression(let name) {
            #expect(name.hasPrefix("PredicateExpressions.SequenceAllSatisfy<"), "\(name)")
        }
    }
}
