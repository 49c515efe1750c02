import Foundation

/// Subexpressions of a `#Predicate` that do not depend on its variables: evaluated once, as
/// Foundation evaluates them, and bound as constants (`$0.key.contains(itemID.description)`,
/// `$0.limit < settings.maximum`), as SwiftData does.
///
/// Only a node that has no SQL translation of its own, or whose translation refuses it, is folded:
/// arithmetic and comparisons of constants stay SQL (SQLite's division by zero is NULL, where
/// evaluating `IntDivision` would trap).
enum ConstantFolding {
    /// Whether `expression` reads none of the predicate's variables (no `Variable` below it; a
    /// captured `Value` is not looked into).
    /// A variable an expression binds itself (`holder.inner?.value`: `OptionalFlatMap`'s, whose field
    /// is named `variable`, as `contains(where:)`'s is) does not make it depend on the row.
    static func isConstant(_ expression: any PredicateExpression, bound: Set<PredicateExpressions.VariableID> = []) -> Bool {
        if let variable = expression as? any PredicateVariableNode { return bound.contains(variable.variableKey) }
        if expression is any PredicateConstantLeaf { return true }
        let children = Mirror(reflecting: expression).children
        var bound = bound
        for child in children where child.label == "variable" {
            if let variable = child.value as? any PredicateVariableNode { bound.insert(variable.variableKey) }
        }
        for child in children where child.label != "variable" {
            guard let node = child.value as? any PredicateExpression else { continue }
            if !isConstant(node, bound: bound) { return false }
        }
        return true
    }

    /// `expression` evaluated, as a captured value (`PredicateExpressions.Value`), when it is constant.
    static func constantValue(of expression: any PredicateExpression) throws -> (any PredicateExpression)? {
        guard isConstant(expression) else { return nil }
        func evaluate<E: PredicateExpression>(_ node: E) throws -> any PredicateExpression {
            do {
                return PredicateExpressions.Value(try node.evaluate(PredicateBindings()))
            } catch {
                throw PredicateTranslationError.unsupportedUse(
                    expression: PredicateTranslator.describe(E.self), reason: "evaluating it as a constant failed: \(error)")
            }
        }
        return try evaluate(expression)
    }

    /// The constant `expression` evaluates to, as a translated value.
    static func fold(_ expression: any PredicateExpression, _ translator: inout PredicateTranslator) throws -> SQLTerm {
        guard let value = try constantValue(of: expression) as? any SQLPredicateExpression else {
            throw PredicateTranslationError.unsupportedExpression(PredicateTranslator.describe(type(of: expression)))
        }
        return try value.sqlTerm(&translator)
    }

    /// The values a constant sequence holds (`ids.contains($0.id)`, `group.members.contains($0.name)`),
    /// or nil when `expression` is not constant or its elements have no stored form.
    static func values(of expression: any PredicateExpression) -> [SQLiteValue]? {
        if let captured = expression as? any ConstantSequence { return captured.sqlValues() }
        guard isConstant(expression) else { return nil }
        func evaluate<E: PredicateExpression>(_ node: E) -> [SQLiteValue]? {
            guard let value = try? node.evaluate(PredicateBindings()) else { return nil }
            return (PredicateExpressions.Value(value) as any PredicateExpression as? any ConstantSequence)?.sqlValues()
        }
        return evaluate(expression)
    }
}

/// A predicate's variable: what makes an expression depend on the row.
protocol PredicateVariableNode {
    var variableKey: PredicateExpressions.VariableID { get }
}
extension PredicateExpressions.Variable: PredicateVariableNode {
    var variableKey: PredicateExpressions.VariableID { key }
}

/// Nodes evaluated as Swift evaluates them whenever they are constant, even though they have an
/// SQL translation: a key path of a captured value (`word.count` is Swift's grapheme count, not
/// SQLite's `length`) and a force unwrap (of a captured nil Foundation throws, SQL would compare
/// with NULL).
protocol FoldsWhenConstant {}
extension PredicateExpressions.KeyPath: FoldsWhenConstant {}
extension PredicateExpressions.ForcedUnwrap: FoldsWhenConstant {}

/// A leaf that holds a captured value or a literal, not looked into.
protocol PredicateConstantLeaf {}
extension PredicateExpressions.Value: PredicateConstantLeaf {}
extension PredicateExpressions.NilLiteral: PredicateConstantLeaf {}
