import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros
import SwiftDiagnostics

/// `@Model`: makes a class a persistent model.
///
/// - member: the backing data, `schemaMetadata` (one entry per persisted property, with its key path,
///   default value and `@Attribute` / `@Relationship` arguments) and `init(backingData:)`.
/// - memberAttribute: `@_PersistedProperty(index:)` on every persisted stored property.
/// - extension: the `PersistentModel` conformance.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    // MARK: member

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            diagnoseNotAClass(declaration, node: node, in: context)
            return []
        }
        let scan = ModelScan(classDecl)
        scan.diagnostics.forEach(context.diagnose)
        if !scan.diagnostics.isEmpty { return [] }

        let access = scan.isPublic ? "public " : ""
        let entries = scan.persisted.map { metadataEntry($0, className: scan.className) }
        // A `let` without an initial value is set from the fetched row here; one with an initial
        // value is set back by the context once the model is built (see `Schema.ConstantField`).
        let peerInits = scan.persisted.compactMap { property -> String? in
            if !property.isConstant { return "self._\(property.name) = OpenSwiftData._PersistedNoValue()" }
            if property.defaultValue == nil { return "self.\(property.name) = backingData._constantValue(at: \(property.index))" }
            return nil
        }
        // A generated deinit takes the model out of its context's registry as it dies; a class
        // with a deinit of its own keeps it, and is then registered weakly.
        let hasOwnDeinit = classDecl.memberBlock.members.contains { $0.decl.is(DeinitializerDeclSyntax.self) }
        let deinitHook: [DeclSyntax] = hasOwnDeinit ? [] : [
            "\(raw: access)static var _unregistersOnDeinit: Bool { true }",
            "deinit { _$backingData._modelWillDeinit() }",
        ]
        // `nonisolated(unsafe)`: only initializers assign the backing data. Without it `@Model final
        // class X: Sendable` fails in Swift 6 ("stored property is mutable"); what such a class promises
        // about threads is its author's promise, as with SwiftData.
        return deinitHook + [
            "\(raw: access)nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: \(raw: scan.className).self, count: \(raw: scan.persisted.count))",
            "\(raw: access)var persistentBackingData: OpenSwiftData._BackingData { _$backingData }",
            """
            \(raw: access)static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                [
                    \(raw: entries.joined(separator: ",\n"))
                ]
            }
            """,
            """
            \(raw: access)required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                \(raw: peerInits.joined(separator: "\n"))
            }
            """,
        ]
    }

    static func metadataEntry(_ property: ScannedProperty, className: String) -> String {
        let keyPathLabel = property.isConstant ? "constant" : "keyPath"
        var arguments = ["name: \"\(property.name)\"", "\(keyPathLabel): \\\(className).\(property.name)"]
        if let value = property.defaultValue {
            arguments.append("defaultValue: { \(value.trimmedDescription) }")
        }
        if let attribute = property.attribute {
            arguments.append("attribute: OpenSwiftData.Schema.Attribute(\(attribute.arguments?.trimmedDescription ?? ""))")
        }
        if let relationship = property.relationship {
            arguments.append("relationship: OpenSwiftData.Schema.Relationship(\(relationship.arguments?.trimmedDescription ?? ""))")
        }
        return "OpenSwiftData.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))"
    }

    static func diagnoseNotAClass(_ declaration: some DeclGroupSyntax, node: AttributeSyntax, in context: some MacroExpansionContext) {
        let keyword: TokenSyntax?
        let kind: String
        if let s = declaration.as(StructDeclSyntax.self) { keyword = s.structKeyword; kind = "struct" }
        else if let e = declaration.as(EnumDeclSyntax.self) { keyword = e.enumKeyword; kind = "enum" }
        else if let a = declaration.as(ActorDeclSyntax.self) { keyword = a.actorKeyword; kind = "actor" }
        else if declaration.is(ProtocolDeclSyntax.self) { keyword = nil; kind = "protocol" }
        else { keyword = nil; kind = "extension" }
        var fixIts: [FixIt] = []
        if let keyword {
            let replacement = TokenSyntax.identifier("final class", leadingTrivia: keyword.leadingTrivia, trailingTrivia: keyword.trailingTrivia)
            fixIts.append(FixIt(message: ModelFixIt.useFinalClass,
                                changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(replacement))]))
        }
        context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass(kind), fixIts: fixIts))
    }

    // MARK: memberAttribute

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
              let variable = member.as(VariableDeclSyntax.self) else { return [] }
        let scan = ModelScan(classDecl)
        guard scan.diagnostics.isEmpty,
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
              let property = scan.persisted.first(where: { $0.name == name }),
              property.index >= 0, !property.isConstant else { return [] }
        return ["@OpenSwiftData._PersistedProperty(index: \(raw: property.index))"]
    }

    // MARK: extension

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let ext: DeclSyntax = "extension \(type.trimmed): OpenSwiftData.PersistentModel {}"
        return [ext.cast(ExtensionDeclSyntax.self)]
    }
}
