extension Schema {
    /// One persisted property as `@Model` describes it: generated code, not written by hand.
    public struct PropertyMetadata: @unchecked Sendable {
        public let name: String
        public let keyPath: AnyKeyPath
        let valueType: Any.Type
        let makeCodec: () -> ValueCodec?
        public let defaultValue: (() -> Any)?
        public let attribute: Attribute?
        public let relationship: Relationship?

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
        }
    }
}
