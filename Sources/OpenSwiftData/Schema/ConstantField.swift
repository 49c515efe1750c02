@_spi(Reflection) import Swift

/// Where a model class keeps its `let` properties.
///
/// An accessor cannot be attached to a `let`, so a persisted constant keeps its own field in the
/// object. A fetched model is built by `init(backingData:)`, which runs the constant's initial
/// value (`let id = UUID()`) like any initializer; the context then stores the row's value into
/// the field, found by name in the class's field layout. A constant without an initial value is
/// set by `init(backingData:)` itself and needs none of this.
enum ConstantField {
    /// Byte offsets of the class's own stored fields by name, or nil when the runtime cannot list them.
    static func offsets(of type: AnyClass) -> [String: Int]? {
        var found: [String: Int] = [:]
        let complete = _forEachField(of: type, options: .classType) { name, offset, _, _ in
            found[String(cString: name)] = offset
            return true
        }
        return complete ? found : nil
    }
}
