import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedProperty(index:)`, added by `@Model` to each persisted stored property.
///
/// Turns the property into accessors over the model's backing data. The init accessor
/// (SE-0400) keeps the user's initializers and default values working: assigning the
/// property in `init` stores into the backing data and initializes the `_name` peer.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, index) = target(node, declaration) else { return [] }
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: name))
            init(initialValue) {
                _$backingData._initValue(initialValue, at: \(raw: index))
                _\(raw: name) = OpenSwiftData._PersistedNoValue()
            }
            """,
            """
            get {
                _$backingData._access(self, keyPath: \\.\(raw: name))
                return _$backingData._getValue(at: \(raw: index))
            }
            """,
            "set { _$backingData._setValue(newValue, at: \(raw: index), of: self, keyPath: \\.\(raw: name)) }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (name, _) = target(node, declaration) else { return [] }
        // An empty marker the init accessor initializes; `nonisolated(unsafe)` so that a Sendable model builds.
        return ["@OpenSwiftData.Transient nonisolated(unsafe) private var _\(raw: name): OpenSwiftData._PersistedNoValue"]
    }

    static func target(_ node: AttributeSyntax, _ declaration: some DeclSyntaxProtocol) -> (String, Int)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
              let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first,
              let index = Int(argument.expression.trimmedDescription) else { return nil }
        return (name, index)
    }
}

/// `@Attribute`, `@Relationship` and `@Transient` expand to nothing: `@Model` reads them.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
