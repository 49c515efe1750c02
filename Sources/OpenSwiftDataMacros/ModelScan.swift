import SwiftSyntax
import SwiftDiagnostics

/// One stored property of a `@Model` class as the macros see it.
struct ScannedProperty {
    var decl: VariableDeclSyntax
    var name: String
    var type: TypeSyntax?
    var defaultValue: ExprSyntax?
    var attribute: AttributeSyntax?
    var relationship: AttributeSyntax?
    var isTransient: Bool
    /// Declared with `let`: a stored constant, written once when inserted and set back from the row
    /// when fetched; it keeps its own storage (no accessors can be attached to a `let`).
    var isConstant: Bool = false
    /// Position among persisted properties, the index into the backing data.
    var index: Int = -1
}

/// The result of reading a class body: persisted properties in order and the problems found.
struct ModelScan {
    var className: String
    var isPublic: Bool
    var properties: [ScannedProperty] = []
    var diagnostics: [Diagnostic] = []

    var persisted: [ScannedProperty] { properties.filter { !$0.isTransient } }

    init(_ classDecl: ClassDeclSyntax) {
        className = classDecl.name.trimmedDescription
        isPublic = classDecl.modifiers.contains { ["public", "open"].contains($0.name.text) }
        var next = 0
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            guard var property = scan(variable) else { continue }
            if !property.isTransient && problems(in: property).isEmpty {
                property.index = next
                next += 1
            }
            properties.append(property)
            diagnostics += problems(in: property)
        }
    }

    /// The persisted property declared by `decl`, if it is one (not static, not computed).
    func scan(_ decl: VariableDeclSyntax) -> ScannedProperty? {
        if decl.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return nil }
        guard let binding = decl.bindings.first,
              let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return nil }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return nil
            case .accessors(let list):
                let kinds = list.map { $0.accessorSpecifier.text }
                if kinds.contains(where: { ["get", "set", "_read", "_modify", "init"].contains($0) }) { return nil }
            @unknown default: return nil
            }
        }
        func attribute(_ named: String) -> AttributeSyntax? {
            decl.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }
                .first { $0.attributeName.trimmedDescription == named || $0.attributeName.trimmedDescription == "OpenSwiftData.\(named)" }
        }
        return ScannedProperty(
            decl: decl, name: name,
            type: binding.typeAnnotation?.type,
            defaultValue: binding.initializer?.value,
            attribute: attribute("Attribute"),
            relationship: attribute("Relationship"),
            isTransient: attribute("Transient") != nil,
            isConstant: decl.bindingSpecifier.tokenKind == .keyword(.let)
        )
    }

    func problems(in property: ScannedProperty) -> [Diagnostic] {
        var found: [Diagnostic] = []
        let decl = property.decl
        if property.isTransient {
            if property.defaultValue == nil && property.type.map({ !$0.isOptional }) ?? true {
                found.append(Diagnostic(node: decl, message: ModelDiagnostic.transientNeedsDefault(property.name)))
            }
            return found
        }
        if property.isConstant, let value = property.defaultValue, value.isConstantLiteral {
            // The optimizer may replace reads of such a `let` by its literal, so the row's value
            // (set back after the model is built) would not be seen.
            found.append(Diagnostic(node: value, message: ModelDiagnostic.constantLiteral(property.name),
                                    fixIts: [replaceLetWithVar(decl)]))
        }
        if property.isConstant, let relationship = property.relationship {
            found.append(Diagnostic(node: relationship, message: ModelDiagnostic.constantRelationship(property.name),
                                    fixIts: [replaceLetWithVar(decl)]))
        }
        if property.isConstant, let attribute = property.attribute,
           attribute.arguments?.trimmedDescription.contains("externalStorage") == true {
            found.append(Diagnostic(node: attribute, message: ModelDiagnostic.constantExternalStorage(property.name),
                                    fixIts: [replaceLetWithVar(decl)]))
        }
        if decl.bindings.count > 1 {
            found.append(Diagnostic(node: decl, message: ModelDiagnostic.multipleBindings))
        }
        if decl.modifiers.contains(where: { $0.name.text == "lazy" }) {
            found.append(Diagnostic(node: decl, message: ModelDiagnostic.lazyProperty(property.name)))
        }
        if let accessors = decl.bindings.first?.accessorBlock, case .accessors = accessors.accessors {
            found.append(Diagnostic(node: accessors, message: ModelDiagnostic.observers(property.name)))
        }
        if let type = property.type {
            if let reason = unsupportedReason(type) {
                found.append(Diagnostic(node: type, message: ModelDiagnostic.unsupportedType(property.name, type.trimmedDescription, reason)))
            }
        } else if property.defaultValue == nil {
            // Without a type or an initial value there is nothing to take the type from.
            found.append(Diagnostic(node: decl.bindings.first!.pattern, message: ModelDiagnostic.missingType(property.name)))
        }
        // `var name = ""`: the type is the initial value's; the metadata takes it from the key path.
        return found
    }

    func replaceLetWithVar(_ decl: VariableDeclSyntax) -> FixIt {
        FixIt(message: ModelFixIt.replaceLetWithVar,
              changes: [.replace(oldNode: Syntax(decl.bindingSpecifier), newNode: Syntax(TokenSyntax.keyword(.var, trailingTrivia: .space)))])
    }

    /// Why a written type can never be persisted, or nil when it may be (the runtime checks the rest).
    func unsupportedReason(_ type: TypeSyntax) -> String? {
        if type.is(FunctionTypeSyntax.self) { return "functions cannot be stored" }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unsupportedReason(attributed.baseType) }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first { return unsupportedReason(only.type) }
            return "tuples cannot be stored; use a Codable struct"
        }
        if type.is(SomeOrAnyTypeSyntax.self) { return "existential and opaque types cannot be stored; use a concrete Codable type" }
        if let optional = type.as(OptionalTypeSyntax.self) { return unsupportedReason(optional.wrappedType) }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unsupportedReason(iuo.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return unsupportedReason(array.element) }
        if let identifier = type.as(IdentifierTypeSyntax.self),
           ["Any", "AnyObject", "AnyHashable", "Void", "Never", "NSObject"].contains(identifier.name.text) {
            return "'\(identifier.name.text)' has no stored representation"
        }
        return nil
    }
}

extension ExprSyntax {
    /// A literal, or an array, dictionary, tuple or negation of literals.
    var isConstantLiteral: Bool {
        if self.is(IntegerLiteralExprSyntax.self) || self.is(FloatLiteralExprSyntax.self) || self.is(BooleanLiteralExprSyntax.self)
            || self.is(StringLiteralExprSyntax.self) || self.is(NilLiteralExprSyntax.self) {
            return true
        }
        if let prefix = self.as(PrefixOperatorExprSyntax.self) { return prefix.expression.isConstantLiteral }
        if let array = self.as(ArrayExprSyntax.self) { return array.elements.allSatisfy { $0.expression.isConstantLiteral } }
        if let tuple = self.as(TupleExprSyntax.self) { return tuple.elements.allSatisfy { $0.expression.isConstantLiteral } }
        if let dictionary = self.as(DictionaryExprSyntax.self) {
            guard case .elements(let elements) = dictionary.content else { return true }
            return elements.allSatisfy { $0.key.isConstantLiteral && $0.value.isConstantLiteral }
        }
        return false
    }
}

extension TypeSyntax {
    var isOptional: Bool {
        if self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let id = self.as(IdentifierTypeSyntax.self), id.name.text == "Optional" { return true }
        return false
    }
}
