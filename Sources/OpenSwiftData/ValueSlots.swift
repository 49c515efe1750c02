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

    /// `count` unset slots: zeroed, which is `nil` (an `Any?`'s nil is a null metadata word, see
    /// `isUnset`); initializing each through `Any?`'s value witness cost ~80 instructions a slot
    /// for every model made.
    init(count: Int) {
        base = Self.allocate(max(count, 1))
        memset(base, 0, max(count, 1) * MemoryLayout<Any?>.stride)
        self.count = count
        assert((0..<count).allSatisfy { base[$0] == nil }, "OpenSwiftData: a zeroed Any? slot is not nil")
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

    /// The value in slot `index` if it is exactly a `T`, read in place without copying the `Any?`
    /// out and opening it (~250 instructions a column when a save binds a model's values). Only
    /// for types an existential holds in its three-word buffer (no box): the primitives
    /// `DirectColumn` knows, checked in debug builds against the plain cast.
    @inline(__always)
    func inline<T>(_ index: Int, as type: T.Type) -> T? {
        precondition(index >= 0 && index < count, "OpenSwiftData: value slot \(index) of \(count)")
        let raw = UnsafeRawPointer(base + index)
        let metadata = raw.load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer?.self)
        let value = metadata == unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self) ? raw.load(as: T.self) : nil
        assert(MemoryLayout<T>.size <= 3 * MemoryLayout<UnsafeRawPointer>.stride && (value == nil) == !(base[index] is T),
               "OpenSwiftData: an Any? slot is not laid out as expected")
        return value
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
