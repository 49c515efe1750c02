import Foundation
import Testing
@testable import OpenSwiftData

// Differential fuzzing of the predicate translator: random predicate trees are built at run time
// from Foundation's own PredicateExpressions, translated to SQL and run by SQLite, and the rows
// compared with Foundation evaluating the same Predicate on every model in memory.
// `scripts/fuzz-predicates.sh SECONDS` runs it for a given time; the test suite runs 400 trees.

/// Type erasure so that trees of any shape fit one Predicate type.
struct AnyBoolExpression: StandardPredicateExpression, SQLPredicateExpression, @unchecked Sendable {
    typealias Output = Bool
    let base: any StandardPredicateExpression<Bool>
    let text: String
    func evaluate(_ bindings: PredicateBindings) throws -> Bool { try base.evaluate(bindings) }
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        guard let sql = base as? any SQLPredicateExpression else { throw PredicateTranslationError.unsupportedExpression(text) }
        return try sql.sqlTerm(&t)
    }
    func encode(to encoder: any Encoder) throws { throw CancellationError() }
    init(from decoder: any Decoder) throws { throw CancellationError() }
    init(_ base: any StandardPredicateExpression<Bool>, _ text: String) {
        self.base = base
        self.text = text
    }
}

struct AnyIntExpression: StandardPredicateExpression, SQLPredicateExpression, @unchecked Sendable {
    typealias Output = Int
    let base: any StandardPredicateExpression<Int>
    func evaluate(_ bindings: PredicateBindings) throws -> Int { try base.evaluate(bindings) }
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm { try (base as! any SQLPredicateExpression).sqlTerm(&t) }
    func encode(to encoder: any Encoder) throws { throw CancellationError() }
    init(from decoder: any Decoder) throws { throw CancellationError() }
    init(_ base: any StandardPredicateExpression<Int>) { self.base = base }
}

struct AnyStringExpression: StandardPredicateExpression, SQLPredicateExpression, @unchecked Sendable {
    typealias Output = String
    let base: any StandardPredicateExpression<String>
    func evaluate(_ bindings: PredicateBindings) throws -> String { try base.evaluate(bindings) }
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm { try (base as! any SQLPredicateExpression).sqlTerm(&t) }
    func encode(to encoder: any Encoder) throws { throw CancellationError() }
    init(from decoder: any Decoder) throws { throw CancellationError() }
    init(_ base: any StandardPredicateExpression<String>) { self.base = base }
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
}

struct TreeBuilder {
    var rng: SplitMix
    let v: PredicateExpressions.Variable<Item>
    let words = ["", "a", "an", "apple", "b", "Crème", "é", "50%", "_", "z", "Z", "pear", "ap"]

    mutating func int(_ depth: Int) -> AnyIntExpression {
        switch depth <= 0 ? rng.int(2) : rng.int(6) {
        case 0: return AnyIntExpression(PredicateExpressions.KeyPath(root: v, keyPath: \Item.rank))
        case 1: return AnyIntExpression(PredicateExpressions.Value(rng.int(21) - 10))
        case 2: return AnyIntExpression(PredicateExpressions.Arithmetic(lhs: int(depth - 1), rhs: int(depth - 1), op: rng.pick([.add, .subtract, .multiply])))
        case 3: return AnyIntExpression(PredicateExpressions.IntRemainder(lhs: int(depth - 1), rhs: PredicateExpressions.Value(rng.pick([1, 2, 3, 7, -3]))))
        case 4: return AnyIntExpression(PredicateExpressions.UnaryMinus(int(depth - 1)))
        default: return AnyIntExpression(PredicateExpressions.IntDivision(lhs: int(depth - 1), rhs: PredicateExpressions.Value(rng.pick([1, 2, 4, -5]))))
        }
    }

    mutating func string() -> AnyStringExpression {
        switch rng.int(3) {
        case 0: return AnyStringExpression(PredicateExpressions.KeyPath(root: v, keyPath: \Item.name))
        case 1: return AnyStringExpression(PredicateExpressions.NilCoalesce(lhs: PredicateExpressions.KeyPath(root: v, keyPath: \Item.note), rhs: PredicateExpressions.Value(rng.pick(words))))
        default: return AnyStringExpression(PredicateExpressions.Value(rng.pick(words)))
        }
    }

    mutating func bool(_ depth: Int) -> AnyBoolExpression {
        switch depth <= 0 ? 2 + rng.int(5) : rng.int(8) {
        case 0: return AnyBoolExpression(PredicateExpressions.Conjunction(lhs: bool(depth - 1), rhs: bool(depth - 1)), "and")
        case 1: return AnyBoolExpression(PredicateExpressions.Disjunction(lhs: bool(depth - 1), rhs: bool(depth - 1)), "or")
        case 2: return AnyBoolExpression(PredicateExpressions.Comparison(lhs: int(2), rhs: int(2), op: rng.pick([.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])), "cmp")
        case 3: return rng.int(2) == 0
            ? AnyBoolExpression(PredicateExpressions.Equal(lhs: int(2), rhs: int(2)), "eq")
            : AnyBoolExpression(PredicateExpressions.NotEqual(lhs: string(), rhs: string()), "ne")
        case 4: return AnyBoolExpression(PredicateExpressions.CollectionContainsCollection(base: string(), other: PredicateExpressions.Value(rng.pick(words))), "contains")
        case 5: return AnyBoolExpression(PredicateExpressions.SequenceStartsWith(base: string(), prefix: PredicateExpressions.Value(rng.pick(words))), "starts")
        case 6: return rng.int(2) == 0
            ? AnyBoolExpression(PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: v, keyPath: \Item.note), rhs: PredicateExpressions.NilLiteral<String>()), "isnil")
            : AnyBoolExpression(PredicateExpressions.Comparison(lhs: string(), rhs: string(), op: rng.pick([.lessThan, .greaterThanOrEqual])), "strcmp")
        default: return AnyBoolExpression(PredicateExpressions.Negation(bool(depth - 1)), "not")
        }
    }
}

@Suite struct PredicateFuzzTests {
    @Test func randomPredicatesSelectWhatFoundationSelects() throws {
        let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        let names = ["apple", "Apple", "banana", "pear", "ap", "Crème brûlée", "é", "50%_off", "z", "", "a_b", "*glob?"]
        var items: [Item] = []
        for (i, name) in names.enumerated() {
            let item = Item(name: name, rank: i * 3 - 10, note: i % 3 == 0 ? nil : names[(i * 5) % names.count])
            context.insert(item)
            items.append(item)
        }
        try context.save()
        let seconds = Double(ProcessInfo.processInfo.environment["OSD_PREDICATE_FUZZ_SECONDS"] ?? "") ?? 0
        let deadline = Date().addingTimeInterval(seconds)
        var seed: UInt64 = UInt64(ProcessInfo.processInfo.environment["OSD_PREDICATE_FUZZ_SEED"] ?? "") ?? 20261130
        var tried = 0, mismatches = 0
        var outcomes = Set<Int>()
        repeat {
            for _ in 0..<400 {
                seed &+= 1
                var builder = TreeBuilder(rng: SplitMix(state: seed), v: PredicateExpressions.Variable<Item>())
                let predicate = Predicate<Item> { v in
                    builder = TreeBuilder(rng: SplitMix(state: seed), v: v)
                    return builder.bool(3)
                }
                let expected: [String]
                do {
                    expected = try items.filter { try predicate.evaluate($0) }.map(\.name).sorted()
                } catch {
                    continue  // Foundation could not evaluate it (overflow): nothing to compare
                }
                let got = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
                tried += 1
                outcomes.insert(expected.count)
                if got != expected {
                    mismatches += 1
                    let sql = (try? PredicateTranslator.translate(predicate, entity: EntityCache.entity(for: Item.self)).condition.sql) ?? "?"
                    Issue.record("seed \(seed): SQL gave \(got), Foundation \(expected)\n\(sql)")
                    if mismatches > 5 { return }
                }
            }
        } while Date() < deadline
        #expect(tried > 300)
        #expect(outcomes.count >= 8, "the trees select many different numbers of rows: \(outcomes.sorted())")
        if seconds > 0 { print("predicate fuzz: \(tried) random predicates compared, \(mismatches) mismatches") }
    }
}
