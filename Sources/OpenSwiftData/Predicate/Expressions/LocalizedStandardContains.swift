import Foundation

// `localizedStandardContains` inside #Predicate. Foundation on Linux has no `build_` function
// for it, so #Predicate's expansion would not compile; this supplies one (only where Foundation
// lacks it) with an expression that evaluates in Swift and translates to SQL: both sides are
// folded (case, diacritics and width ignored) and compared with LIKE, the searched text escaped.

#if !canImport(Darwin)
extension PredicateExpressions {
    /// `text.localizedStandardContains(search)` in a predicate: case, diacritics and width ignored.
    public struct LocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// Whether `root` contains `other`.
        public typealias Output = Bool
        /// The text searched.
        public let root: Root
        /// The text searched for.
        public let other: Other

        /// The expression for `root.localizedStandardContains(other)`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Folds both sides and compares, as the SQL does.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            let text = SQLFunctions.fold(String(try root.evaluate(bindings)))
            let search = SQLFunctions.fold(String(try other.evaluate(bindings)))
            return search.isEmpty || text.contains(search)
        }
    }

    /// What `#Predicate` calls for `localizedStandardContains` (Foundation on Linux has none).
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> LocalizedStandardContains<Root, Other> {
        LocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.LocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.LocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    /// Encodes both sides, as Foundation's expressions do.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes both sides.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.LocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.LocalizedStandardContains: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let text = try translator.scalar(root)
        if let value = other as? PredicateExpressions.Value<String> {
            let pattern = "%" + likeEscaped(SQLFunctions.fold(value.value)) + "%"
            return .value("(osd_fold(" + text + SQLFragment(") LIKE ? ESCAPE '\\')", [.text(pattern)]))
        }
        return .value("(instr(osd_fold(" + text + "), osd_fold(" + (try translator.scalar(other)) + ")) > 0)")
    }
}
#endif
