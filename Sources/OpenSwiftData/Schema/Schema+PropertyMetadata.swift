extension Schema {
    /// One persisted property as `@Model` describes it: generated code, not written by hand.
    public struct PropertyMetadata: @unchecked Sendable {
        /// The property's name.
        public let name: String
        /// Its key path.
        public let keyPath: AnyKeyPath
        let valueType: Any.Type
        let makeCodec: () -> ValueCodec?
        /// Its declared initial value, made anew for each model (nil without one).
        public let defaultValue: (() -> Any)?
        /// Its `@Attribute`, if declared.
        public let attribute: Attribute?
        /// Its `@Relationship`, if declared.
        public let relationship: Relationship?
        /// Set for a `let` property: stores a value into the model's own field at a byte offset.
        let assignConstant: ((AnyObject, Int, Any) -> Void)?
        var isConstant: Bool { assignConstant != nil }

        /// A stored `var` of `Model` (what `@Model` generates for each).
        public init<Model, Value>(
            name: String,
            keyPath: ReferenceWritableKeyPath<Model, Value>,
            defaultValue: (() -> Value)? = nil,
            attribute: Attribute? = nil,
            relationship: Relationship? = nil
        ) {
            self.name = name
            self.keyPath = keyPath
            self.valueType = Value.self
            self.makeCodec = { ValueCodec.make(Value.self) }
            self.defaultValue = defaultValue.map { make in { make() as Any } }
            self.attribute = attribute
            self.relationship = relationship
            self.assignConstant = nil
        }

        /// A `let` property: persisted like a `var`, but kept in the model's own storage.
        public init<Model: AnyObject, Value>(
            name: String,
            constant keyPath: KeyPath<Model, Value>,
            defaultValue: (() -> Value)? = nil,
            attribute: Attribute? = nil,
            relationship: Relationship? = nil
        ) {
            self.name = name
            self.keyPath = keyPath
            self.valueType = Value.self
            self.makeCodec = { ValueCodec.make(Value.self) }
            self.defaultValue = defaultValue.map { make in { make() as Any } }
            self.attribute = attribute
            self.relationship = relationship
            self.assignConstant = { object, offset, value in
                // The field is initialized (the model's init ran), so assignment releases the old value.
                (UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset)
                    .assumingMemoryBound(to: Value.self).pointee = value as! Value
            }
        }
    }
}

extension Schema {
    /// What `@Model` forms of each persisted property on the main actor's terms (see
    /// `_madeOnAnyThread`): its key path, and its `@Attribute` and `@Relationship`, whose arguments
    /// may hold key paths too (`inverse: \Stop.trip`).
    public struct PropertyParts {
        /// The property's key path (`\Trip.name`).
        public let keyPath: AnyKeyPath
        /// Its `@Attribute`, if it has one.
        public let attribute: Attribute?
        /// Its `@Relationship`, if it has one.
        public let relationship: Relationship?

        /// The parts of one property, as `@Model` writes them.
        public init(keyPath: AnyKeyPath, attribute: Attribute? = nil, relationship: Relationship? = nil) {
            self.keyPath = keyPath
            self.attribute = attribute
            self.relationship = relationship
        }
    }
}

/// Used by `@Model` for a property declared without a type: its key path, typed as its initial
/// value is (`like` is never called).
public func _typedReferenceWritableKeyPath<Model, Value>(_ keyPath: AnyKeyPath, of model: Model.Type,
                                                         like value: () -> Value) -> ReferenceWritableKeyPath<Model, Value> {
    keyPath as! ReferenceWritableKeyPath<Model, Value>
}

/// Used by `@Model` for a `let` declared without a type: its key path, typed as its initial value is.
public func _typedKeyPath<Model, Value>(_ keyPath: AnyKeyPath, of model: Model.Type, like value: () -> Value) -> KeyPath<Model, Value> {
    keyPath as! KeyPath<Model, Value>
}
