import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `#Unique<Person>([\.id], [\.givenName, \.familyName])`: each array of key paths is one
/// uniqueness constraint (a single property, or a compound one). Expands, inside the model
/// class, to the static list that `Schema.Entity` reads:
///
/// ```swift
/// public static var _uniquenessConstraints: [[AnyKeyPath]] {
///     let constraints: [[PartialKeyPath<Person>]] = [[\.id], [\.givenName, \.familyName]]
///     return constraints.map { $0.map { $0 as AnyKeyPath } }
/// }
/// ```
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let model = node.genericArgumentClause?.arguments.first.map { "\($0.argument.trimmed)" } ?? "Self"
        let constraints = node.arguments.map { "\($0.expression.trimmed)" }.joined(separator: ", ")
        return [
            """
            public static var _uniquenessConstraints: [[AnyKeyPath]] {
                let constraints: [[PartialKeyPath<\(raw: model)>]] = [\(raw: constraints)]
                return constraints.map { $0.map { $0 as AnyKeyPath } }
            }
            """,
        ]
    }
}
