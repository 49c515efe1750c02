import Foundation
@testable import OpenSwiftData
import Testing

@Model final class Word {
    var text: String
    var note: String?
    init(_ text: String) { self.text = text; self.note = text }
}

/// Random strings of printable ASCII (digits, letters of both cases, spaces, punctuation) with
/// some accented and wide letters, from a fixed seed.
func sampleStrings(count: Int, seed: UInt64) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
    let pieces = ["a", "A", "b", "B", "z", "Z", "e", "é", "É", "0", "1", "2", "9", "10", "007", " ", "-", "_", ".", "(", "~", "ß", "Ａ", "ø"]
    return (0..<count).map { _ in (0..<(1 + next(5))).map { _ in pieces[next(pieces.count)] }.joined() }
}

@Suite struct SortComparatorTests {
    func foundationOrder(_ words: [String], _ options: String.CompareOptions) -> [String] {
        words.sorted { $0.compare($1, options: options, range: nil, locale: Locale.current) == .orderedAscending }
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

    @Test func randomStringsSortAsFoundationComparesThem() throws {
        let words = sampleStrings(count: 600, seed: 42)
        let standard = String.StandardComparator.localizedStandard
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: standard)) == foundationOrder(words, StringCollation.standard.options))
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .localized)) == foundationOrder(words, []))
    }

    @Test func lexicalIsByteOrder() throws {
        let words = ["b", "B", "a10", "a2", "_", "Z"]
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .lexical)) == ["B", "Z", "_", "a10", "a2", "b"])
        #expect(try fetchOrder(words, SortDescriptor(\Word.text, comparator: .lexical, order: .reverse)) == ["b", "a2", "a10", "_", "Z", "B"])
    }

    /// The collation's quick path for ASCII agrees with Foundation on every pair it decides.
    @Test func theQuickPathAgreesWithFoundationPairByPair() {
        let words = sampleStrings(count: 300, seed: 7) + ["", "a", "A", "a0", "a00", "0", "00", "1 2", "12", "a b", "ab"]
        for collation in [StringCollation.standard, .localized] {
            var disagreements: [String] = []
            for a in words {
                for b in words {
                    let expected: Int32
                    switch a.compare(b, options: collation.options, range: nil, locale: Locale.current) {
                    case .orderedAscending: expected = -1
                    case .orderedDescending: expected = 1
                    case .orderedSame: expected = 0
                    }
                    let got = Array(a.utf8).withUnsafeBufferPointer { pa in Array(b.utf8).withUnsafeBufferPointer { pb in collation.compare(pa, pb) } }
                    if got != expected { disagreements.append("\(collation) \(a.debugDescription) vs \(b.debugDescription): \(got), Foundation \(expected)") }
                }
            }
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        }
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
