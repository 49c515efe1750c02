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
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: nil, count: count)
        self.count = count
    }

    /// `count` slots, each initialized by `initialize(slot, index)`.
    @inline(__always)
    init(count: Int, initializingWith initialize: (UnsafeMutablePointer<Any?>, Int) throws -> Void) rethrows {
        base = .allocate(capacity: max(count, 1))
        var done = 0
        do {
            while done < count {
                try initialize(base + done, done)
                done += 1
            }
        } catch {
            base.deinitialize(count: done)
            base.deallocate()
            throw error
        }
        self.count = count
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
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

    /// Adds unset slots so that there are at least `count`.
    mutating func grow(to count: Int) {
        guard count > self.count else { return }
        let grown = UnsafeMutablePointer<Any?>.allocate(capacity: count)
        grown.moveInitialize(from: base, count: self.count)
        (grown + self.count).initialize(repeating: nil, count: count - self.count)
        base.deallocate()
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
