import CSQLite

/// A context's identity map: (entity, primary key) → the live model of that row.
///
/// Primary keys are SQLite rowids, handed out from 1 upwards, so each entity's rows are kept in
/// pages of 1,024 consecutive keys found by `key >> 10`: no hashing, and a fetch touching rows
/// 1…100,000 touches 98 pages of 8 KB rather than scattering over a hash table many times that
/// size. Keys outside 1..<2³⁰ (possible, not produced by this package) go to a dictionary.
struct Registry {
    private var tables: [(entity: ObjectIdentifier, rows: RowTable)] = []

    var count: Int { tables.reduce(0) { $0 + $1.rows.count } }
    var isEmpty: Bool { tables.allSatisfy { $0.rows.count == 0 } }

    /// Whether any model of `entity` is registered.
    func contains(entity: ObjectIdentifier) -> Bool {
        tables.contains { $0.entity == entity && $0.rows.count > 0 }
    }

    /// Every registered entry, in no particular order.
    var entries: [ModelContext.Registered] { tables.flatMap { $0.rows.entries } }

    subscript(key: ModelContext.RegistryKey) -> ModelContext.Registered? {
        get { table(key.entity)?[key.primaryKey] }
        set { rows(of: key.entity)[key.primaryKey] = newValue }
    }

    /// The table of `entity`'s rows, made if there is none: a fetch looks it up once, not per row.
    mutating func rows(of entity: ObjectIdentifier) -> RowTable {
        table(entity) ?? addTable(entity)
    }

    private func table(_ entity: ObjectIdentifier) -> RowTable? {
        for table in tables where table.entity == entity { return table.rows }
        return nil
    }

    private mutating func addTable(_ entity: ObjectIdentifier) -> RowTable {
        let rows = RowTable()
        tables.append((entity, rows))
        return rows
    }
}

/// The registered rows of one entity: each slot is a backing data pointer (8 bytes, not retained;
/// the model is its `owner`), so the slots of 100,000 rows take 800 KB.
final class RowTable {
    private static let pageShift = 10
    private static let pageSize = 1 << pageShift
    private static let pagedLimit: Int64 = 1 << 30

    @exclusivity(unchecked) private var pages: [Page?] = []
    @exclusivity(unchecked) private var overflow: [Int64: ModelContext.Registered] = [:]
    @exclusivity(unchecked) private(set) var count = 0

    /// 1,024 slots; nil marks an empty one.
    private final class Page {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: RowTable.pageSize)
        @exclusivity(unchecked) var count = 0
        init() { slots.initialize(repeating: nil, count: RowTable.pageSize) }
        deinit { slots.deallocate() }
    }

    subscript(key: Int64) -> ModelContext.Registered? {
        get {
            guard let (number, index) = Self.position(of: key) else { return overflow[key] }
            guard number < pages.count, let page = pages[number], let pointer = page.slots[index] else { return nil }
            return ModelContext.Registered(backing: Unmanaged<_BackingData>.fromOpaque(pointer).takeUnretainedValue())
        }
        set {
            guard let (number, index) = Self.position(of: key) else {
                count += (newValue == nil ? 0 : 1) - (overflow[key] == nil ? 0 : 1)
                overflow[key] = newValue
                return
            }
            if let newValue {
                if number >= pages.count { pages.append(contentsOf: repeatElement(nil, count: number - pages.count + 1)) }
                let page = pages[number] ?? {
                    let page = Page()
                    pages[number] = page
                    return page
                }()
                if page.slots[index] == nil {
                    page.count += 1
                    count += 1
                }
                page.slots[index] = Unmanaged.passUnretained(newValue.backing).toOpaque()
            } else {
                guard number < pages.count, let page = pages[number], page.slots[index] != nil else { return }
                page.slots[index] = nil
                page.count -= 1
                count -= 1
                if page.count == 0 { pages[number] = nil }
            }
        }
    }

    /// Starts loading the cache line that `self[key] = …` will write. A sorted fetch registers its
    /// rows in random key order, each slot a likely cache miss; prefetched as the row is read, the
    /// slot is ready by the time its model is made (perf: the registry's share of a 100,000-row
    /// fetch fell from ~4% to under 0.5%).
    func prefetch(_ key: Int64) {
        guard let (number, index) = Self.position(of: key), number < pages.count, let page = pages[number] else { return }
        csqlite_prefetch_for_write(page.slots + index)
    }

    /// The page number and slot of a key, or nil for a key kept in `overflow`.
    @inline(__always)
    private static func position(of key: Int64) -> (page: Int, slot: Int)? {
        guard key > 0 && key < pagedLimit else { return nil }
        return (Int(key >> pageShift), Int(key) & (pageSize - 1))
    }

    var entries: [ModelContext.Registered] {
        var result = Array(overflow.values)
        for page in pages {
            guard let page else { continue }
            for i in 0..<Self.pageSize {
                if let pointer = page.slots[i] {
                    result.append(ModelContext.Registered(backing: Unmanaged<_BackingData>.fromOpaque(pointer).takeUnretainedValue()))
                }
            }
        }
        return result
    }
}
