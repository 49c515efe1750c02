import Foundation
@testable import OpenSwiftData
import Testing

@Model final class Word {
    var text: String
    var note: String?
    init(_ text: String) { self.text = text; self.note = text }
}

/// Random strings from `pieces`, from a fixed seed.
func sampleStrings(count: Int, seed: UInt64, pieces: [String]) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
    return (0..<count).map { _ in (0..<(1 + next(5))).map { _ in pieces[next(pieces.count)] }.joined() }
}

/// Printable ASCII: letters of both cases, digits (no leading zeros), spaces, punctuation, a tab.
let asciiPieces = ["a", "A", "b", "B", "z", "Z", "e", "1", "2", "9", "10", "42", " ", "-", "_", ".", "(", "~", "$", "\t"]

@Suite struct SortComparatorTests {
    static let english = Locale(identifier: "en")

    func foundationCompare(_ a: String, _ b: String, _ options: String.CompareOptions) -> Int {
        switch a.compare(b, options: options, range: nil, locale: Self.english) {
        case .orderedAscending: return -1
        case .orderedDescending: return 1
        case .orderedSame: return 0
        }
    }

    func foundationOrder(_ words: [String], _ options: String.CompareOptions) -> [String] {
        words.sorted { foundationCompare($0, $1, options) < 0 }
    }

    func fetchOrder(_ words: [String], _ sort: SortDescriptor<Word>) throws -> [String] {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Word.self, at: dir.store()))
        for word in words { context.insert(Word(word)) }
        try context.save()
        return try context.fetch(FetchDescriptor<Word>(sortBy: [sort])).map(\.text)
    }

    @Test func aStringSortDescriptorSortsAsTheFinderByDefault() throws {
        let words = ["a10", "a2", "B", "b", "éclair", "Eclair", "eclair", "a1", "x-y", "Zeta", "_x", "9"]
        let finder = words.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        #expect(try fetchOrder(words, SortDescriptor(\Word.text)) == finder)
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .localizedStandard)) == finder)
        #expect(try fetchOrder(words, SortDescriptor(\Word.note, comparator: .localizedStandard)) == finder)
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, order: .reverse)) == finder.reversed())
        #expect(Array(finder.prefix(4)) == ["_x", "9", "a1", "a2"], "numbers by value, punctuation first")
    }

    @Test func asciiStringsSortAsFoundationComparesThem() throws {
        let words = sampleStrings(count: 500, seed: 42, pieces: asciiPieces)
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .localizedStandard))
                == foundationOrder(words, [.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering]))
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .localized)) == foundationOrder(words, []))
    }

    /// Foundation's own pairwise compare is not a consistent order for such text (it gives
    /// "oÆ" < "Ö " < "ÖÄ" < "oÆ", and wraps numbers of 20 digits); the sort keys are.
    @Test func anyTextSortsInOneConsistentOrder() throws {
        let cycle = ["oÆ", "Ö ", "ÖÄ"]
        let forward = try fetchOrder(cycle, SortDescriptor(\Word.text))
        #expect(try fetchOrder(cycle.reversed(), SortDescriptor(\Word.text)) == forward)
        #expect(try fetchOrder(cycle, SortDescriptor(\Word.text, order: .reverse)) == forward.reversed())
        let numbers = ["18446744073709551616", "1", "99999999999999999999999", "18446744073709551615"]
        #expect(try fetchOrder(numbers, SortDescriptor(\Word.text))
                == ["1", "18446744073709551615", "18446744073709551616", "99999999999999999999999"])
        let names = ["Zoë", "zoe", "Zoe", "zoey", "Émile", "emile", "Emile", "alpha", "Ålesund", "Ａlpha", "straße", "strasse"]
        #expect(try fetchOrder(names, SortDescriptor(\Word.text))
                == ["Ålesund", "alpha", "Ａlpha", "emile", "Emile", "Émile", "straße", "strasse", "zoe", "Zoe", "Zoë", "zoey"])
        let any = sampleStrings(count: 400, seed: 9, pieces: asciiPieces + ["é", "É", "ß", "Æ", "Ö", "Ａ", "１", "ø", "中", "\u{301}", "e\u{301}"])
        let keys = Dictionary(any.map { ($0, StringCollation.standard.key($0)) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(keys.values).count == keys.count, "different strings never tie")
        #expect(try fetchOrder(any, SortDescriptor(\Word.text)) == any.sorted { keys[$0]!.lexicographicallyPrecedes(keys[$1]!) })
    }

    @Test func lexicalIsByteOrder() throws {
        let words = ["b", "B", "a10", "a2", "_", "Z"]
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .lexical)) == ["B", "Z", "_", "a10", "a2", "b"])
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .lexical, order: .reverse)) == ["b", "a2", "a10", "_", "Z", "B"])
    }

    /// On printable ASCII (numbers without leading zeros) the keys order every pair as Foundation does.
    @Test func sortKeysOrderASCIIPairsAsFoundation() {
        let words = sampleStrings(count: 250, seed: 7, pieces: asciiPieces) + ["", "a", "A", "1 2", "12", "a b", "ab", "a\u{0}b"]
        for (collation, options) in [(StringCollation.standard, String.CompareOptions([.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering])),
                                     (.localized, [])] {
            var disagreements: [String] = []
            let keys = words.map { collation.key($0) }
            for i in words.indices {
                for j in words.indices where words[i] != words[j] {
                    let byKey = keys[i].lexicographicallyPrecedes(keys[j]) ? -1 : 1
                    let expected = foundationCompare(words[i], words[j], options)
                    if expected != 0 && byKey != expected { disagreements.append("\(collation) \(words[i].debugDescription) vs \(words[j].debugDescription): key \(byKey), Foundation \(expected)") }
                }
            }
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        }
    }

    @Test func theASCIIOrderIsFoundationsOwn() {
        let characters = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }.filter { !("A"..."Z").contains($0) }
        #expect(characters.sorted { foundationCompare($0, $1, [.caseInsensitive]) < 0 }.joined() == StringCollation.asciiOrder)
    }

    @Test func theComparatorsCarrySwiftDatasSettings() {
        let fields = Dictionary(uniqueKeysWithValues: Mirror(reflecting: String.StandardComparator.localizedStandard).children.map { ($0.label!, "\($0.value)") })
        #expect(fields["isLocalized"] == "true")
        #expect(fields["options"] == "\(String.CompareOptions([.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering]))")
        #expect(String.StandardComparator.localizedStandard != .lexical && String.StandardComparator.localized != .lexical)
        #expect(String.StandardComparator(.localizedStandard, order: .reverse).collation == .standard)
        #expect(String.StandardComparator.lexical.collation == .binary)
    }
}
