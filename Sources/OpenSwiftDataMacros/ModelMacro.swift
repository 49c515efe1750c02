import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros
import SwiftDiagnostics

/// `@Model`: makes a class a persistent model.
///
/// - member: the backing data, `schemaMetadata` (one entry per persisted property, with its key path,
///   default value and `@Attribute` / `@Relationship` arguments), `init(backingData:)`, and
///   Observation's `access(keyPath:)` and `withMutation(keyPath:_:)`; all nonisolated.
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
            "\(raw: access)nonisolated static var _unregistersOnDeinit: Bool { true }",
            "deinit { _$backingData._modelWillDeinit() }",
        ]
        // `nonisolated(unsafe)`: only initializers assign the backing data. Without it `@Model final
        // class X: Sendable` fails in Swift 6 ("stored property is mutable"); what such a class promises
        // about threads is its author's promise, as with SwiftData.
        return deinitHook + [
            "\(raw: access)nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: \(raw: scan.className).self, count: \(raw: scan.persisted.count))",
            "\(raw: access)nonisolated var persistentBackingData: OpenSwiftData._BackingData { _$backingData }",
            // The key paths (and the `@Attribute` / `@Relationship` arguments, which may hold some) are
            // formed on the main actor's terms: in a module isolated to the main actor by default, the
            // properties are, and Swift forms key paths to them only there (a nonisolated
            // `schemaMetadata` that formed them warned in the Swift 5 mode and failed in Swift 6's).
            // Forming them reads no state, so it is run from any thread. The default values' closures
            // are made here, nonisolated: Swift 6 checks that a main-actor closure runs there.
            """
            \(raw: access)nonisolated static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                let parts = OpenSwiftData._madeOnAnyThread(_$schemaParts)
                return [
                    \(raw: entries.joined(separator: ",\n"))
                ]
            }
            """,
            """
            @MainActor private static func _$schemaParts() -> [OpenSwiftData.Schema.PropertyParts] {
                [
                    \(raw: scan.persisted.map { partsEntry($0, className: scan.className) }.joined(separator: ",\n"))
                ]
            }
            """,
            // As `@Observable` generates them (and SwiftData's `@Model`): code of the class's own
            // reports reads and writes with them, say of a `@Transient` property it makes observable.
            """
            internal nonisolated func access<_M>(keyPath: KeyPath<\(raw: scan.className), _M>) {
                _$backingData._access(self, keyPath: keyPath)
            }
            """,
            """
            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<\(raw: scan.className), _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$backingData._withMutation(of: self, keyPath: keyPath, mutation)
            }
            """,
            """
            \(raw: access)nonisolated required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                \(raw: peerInits.joined(separator: "\n"))
            }
            """,
        ]
    }

    /// One entry of `schemaMetadata`, its key path taken from `parts` and given its type back (the
    /// declared one, or the initial value's).
    static func metadataEntry(_ property: ScannedProperty, className: String) -> String {
        let part = "parts[\(property.index)]"
        let kind = property.isConstant ? "KeyPath" : "ReferenceWritableKeyPath"
        let typed: String
        if let type = property.type {
            // `String!` is `String?` to a key path (and not a type a generic argument may spell).
            let spelled = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self).map { "\($0.wrappedType.trimmedDescription)?" } ?? type.trimmedDescription
            typed = "\(part).keyPath as! \(kind)<\(className), \(spelled)>"
        } else {
            typed = "OpenSwiftData._typed\(kind)(\(part).keyPath, of: \(className).self, like: { \(property.defaultValue?.trimmedDescription ?? "") })"
        }
        let keyPathLabel = property.isConstant ? "constant" : "keyPath"
        var arguments = ["name: \"\(property.name)\"", "\(keyPathLabel): \(typed)"]
        if let value = property.defaultValue {
            arguments.append("defaultValue: { \(value.trimmedDescription) }")
        }
        arguments.append("attribute: \(part).attribute")
        arguments.append("relationship: \(part).relationship")
        return "OpenSwiftData.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))"
    }

    /// One entry of `_$schemaParts`: the property's key path and its `@Attribute` / `@Relationship`.
    static func partsEntry(_ property: ScannedProperty, className: String) -> String {
        var arguments = ["keyPath: \\\(className).\(property.name)"]
        if let attribute = property.attribute {
            arguments.append("attribute: OpenSwiftData.Schema.Attribute(\(attribute.arguments?.trimmedDescription ?? ""))")
        }
        if let relationship = property.relationship {
            arguments.append("relationship: OpenSwiftData.Schema.Relationship(\(relationship.arguments?.trimmedDescription ?? ""))")
        }
        return "OpenSwiftData.Schema.PropertyParts(\(arguments.joined(separator: ", ")))"
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
        // `nonisolated`, as SwiftData's `@Model` writes it: in a module isolated to the main actor by
        // default, the conformance is still usable from any context (the generated witnesses are
        // nonisolated), so `insert`, `fetch` and `ModelContainer(for:)` accept the model.
        let ext: DeclSyntax = "nonisolated extension \(type.trimmed): nonisolated OpenSwiftData.PersistentModel {}"
        return [ext.cast(ExtensionDeclSyntax.self)]
    }
}
