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
    static func isConstant(_ expression: any PredicateExpression) -> Bool {
        if expression is any PredicateVariableNode { return false }
        if expression is any PredicateConstantLeaf { return true }
        for child in Mirror(reflecting: expression).children {
            guard let node = child.value as? any PredicateExpression else { continue }
            if !isConstant(node) { return false }
        }
        return true
    }

    /// The constant `expression` evaluates to, as a translated value.
    static func fold(_ expression: any PredicateExpression, _ translator: inout PredicateTranslator) throws -> SQLTerm {
        func evaluate<E: PredicateExpression>(_ node: E) throws -> any SQLPredicateExpression {
            do {
                return PredicateExpressions.Value(try node.evaluate(PredicateBindings()))
            } catch {
                throw PredicateTranslationError.unsupportedUse(
                    expression: PredicateTranslator.describe(E.self), reason: "evaluating it as a constant failed: \(error)")
            }
        }
        return try evaluate(expression).sqlTerm(&translator)
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
protocol PredicateVariableNode {}
extension PredicateExpressions.Variable: PredicateVariableNode {}

/// A leaf that holds a captured value or a literal, not looked into.
protocol PredicateConstantLeaf {}
extension PredicateExpressions.Value: PredicateConstantLeaf {}
extension PredicateExpressions.NilLiteral: PredicateConstantLeaf {}
