import Foundation

/// A small set of property indexes (models rarely have more than 64 properties; more spill into a `Set`).
struct IndexSetBits: Sequence {
    private var low: UInt64 = 0
    private var high: Set<Int> = []

    var isEmpty: Bool { low == 0 && high.isEmpty }
    func contains(_ i: Int) -> Bool { i < 64 ? low & (1 << UInt64(i)) != 0 : high.contains(i) }
    mutating func insert(_ i: Int) { if i < 64 { low |= 1 << UInt64(i) } else { high.insert(i) } }
    mutating func remove(_ i: Int) { if i < 64 { low &= ~(1 << UInt64(i)) } else { high.remove(i) } }
    mutating func removeAll() { low = 0; high = [] }

    func makeIterator() -> AnyIterator<Int> {
        var bits = low
        var rest = high.sorted().makeIterator()
        return AnyIterator {
            if bits != 0 {
                let i = bits.trailingZeroBitCount
                bits &= bits - 1
                return i
            }
            return rest.next()
        }
    }
}
