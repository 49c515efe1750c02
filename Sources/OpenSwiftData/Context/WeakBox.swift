import Foundation

/// A weak reference in a box: the autosave list's contexts, the registry's own-deinit models.
final class WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
