import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `#Unique<Person>([\.id], [\.givenName, \.familyName])`: each array of key paths is one
/// uniqueness constraint (a single property, or a compound one). Expands, inside the model
/// class, to the static list that `Schema.Entity` reads:
///
/// ```swift
/// public nonisolated static var _uniquenessConstraints: [[AnyKeyPath]] {
///     OpenSwiftData._madeOnAnyThread(_$_uniquenessConstraints)
/// }
/// @MainActor private static func _$_uniquenessConstraints() -> [[AnyKeyPath]] {
///     let lists: [[PartialKeyPath<Person>]] = [[\.id], [\.givenName, \.familyName]]
///     var erased: [[AnyKeyPath]] = []
///     for list in lists { erased.append(list) }
///     return erased
/// }
/// ```
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [keyPathLists(node, named: "_uniquenessConstraints")]
    }

    /// `public static var NAME: [[AnyKeyPath]]` holding the macro's arrays of key paths.
    static func keyPathLists(_ node: some FreestandingMacroExpansionSyntax, named name: String) -> DeclSyntax {
        let model = node.genericArgumentClause?.arguments.first.map { "\($0.argument.trimmed)" } ?? "Self"
        let lists = node.arguments.map { "\($0.expression.trimmed)" }.joined(separator: ", ")
        // Nonisolated, its key paths formed on the main actor's terms, as `schemaMetadata` is (see
        // `ModelMacro`): in a function with no closure, as Swift 6 checks that a main-actor closure runs there.
        return """
            public nonisolated static var \(raw: name): [[AnyKeyPath]] {
                OpenSwiftData._madeOnAnyThread(_$\(raw: name))
            }
            @MainActor private static func _$\(raw: name)() -> [[AnyKeyPath]] {
                let lists: [[PartialKeyPath<\(raw: model)>]] = [\(raw: lists)]
                var erased: [[AnyKeyPath]] = []
                for list in lists { erased.append(list) }
                return erased
            }
            """
    }
}

/// `#Index<Trip>([\.name], [\.start, \.name])`: each array of key paths is one index (SwiftData,
/// 2024). Expands to `_indexes`, read like `_uniquenessConstraints`.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [UniqueMacro.keyPathLists(node, named: "_indexes")]
    }
}
