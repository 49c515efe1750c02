import Foundation

/// The value slots of one backing data: one `Any?` per persisted property, in declaration order.
///
/// A bare allocation of `count` slots rather than a `ContiguousArray`: a fetch makes one per row,
/// and an array's storage costs a 32-byte header and a generic-metadata lookup on every
/// allocation. Noncopyable, so the slots have one owner and nothing aliases them by accident;
/// copies (a snapshot for `rollback()`) are explicit.
struct ValueSlots: ~Copyable {
    private var base: UnsafeMutablePointer<Any?>
    private(set) var count: Int

    /// `count` unset slots.
    init(count: Int) {
        base = Self.allocate(max(count, 1))
        base.initialize(repeating: nil, count: count)
        self.count = count
    }

    /// `count` slots, each initialized by `initialize(slot, index)`.
    @inline(__always)
    init(count: Int, initializingWith initialize: (UnsafeMutablePointer<Any?>, Int) throws -> Void) rethrows {
        base = Self.allocate(max(count, 1))
        var done = 0
        do {
            while done < count {
                try initialize(base + done, done)
                done += 1
            }
        } catch {
            base.deinitialize(count: done)
            free(base)
            throw error
        }
        self.count = count
    }

    /// Room for `count` slots from `malloc`: `UnsafeMutablePointer.allocate` asks the runtime for
    /// an aligned allocation (`posix_memalign`, ~50 instructions more), and a fetch makes one per row.
    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Any?> {
        guard let raw = malloc(count * MemoryLayout<Any?>.stride) else { fatalError("OpenSwiftData: out of memory for \(count) value slots") }
        return raw.bindMemory(to: Any?.self, capacity: count)
    }

    deinit {
        base.deinitialize(count: count)
        free(base)
    }

    subscript(index: Int) -> Any? {
        get {
            precondition(index >= 0 && index < count, "OpenSwiftData: value slot \(index) of \(count)")
            return base[index]
        }
        nonmutating set {
            precondition(index >= 0 && index < count, "OpenSwiftData: value slot \(index) of \(count)")
            base[index] = newValue
        }
    }

    /// Whether slot `index` is unset, read without copying its value (`values[index] == nil`
    /// copies the value out, retaining what it holds, only to compare it: ~250 instructions a slot
    /// when inserting a model). An `Any?` is an existential's three-word buffer and its type's
    /// metadata pointer, and `nil` is a null metadata pointer; debug builds check that reading
    /// against the plain comparison on every call.
    func isUnset(_ index: Int) -> Bool {
        precondition(index >= 0 && index < count, "OpenSwiftData: value slot \(index) of \(count)")
        let unset = UnsafeRawPointer(base + index).load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.stride, as: UInt.self) == 0
        assert(unset == (base[index] == nil), "OpenSwiftData: an unset Any? slot is not laid out as expected")
        return unset
    }

    /// Adds unset slots so that there are at least `count`.
    mutating func grow(to count: Int) {
        guard count > self.count else { return }
        let grown = Self.allocate(count)
        grown.moveInitialize(from: base, count: self.count)
        (grown + self.count).initialize(repeating: nil, count: count - self.count)
        free(base)
        base = grown
        self.count = count
    }

    /// The values, copied.
    var copy: ContiguousArray<Any?> { ContiguousArray(UnsafeBufferPointer(start: base, count: count)) }

    /// Replaces the values with `values` (slots past its end become unset).
    mutating func replace(with values: ContiguousArray<Any?>) {
        grow(to: values.count)
        for index in 0..<count { base[index] = index < values.count ? values[index] : nil }
    }
}
