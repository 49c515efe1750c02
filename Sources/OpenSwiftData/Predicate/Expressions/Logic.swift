import Foundation

// Boolean connectives, equality and ordering.

extension PredicateExpressions.Conjunction: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.scalar(lhs)) + " AND " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Disjunction: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.scalar(lhs)) + " OR " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Negation: SQLPredicateExpression where Wrapped: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(NOT " + (try t.scalar(wrapped)) + ")")
    }
}

// `IS` and `IS NOT` compare NULL the way Swift compares nil.
extension PredicateExpressions.Equal: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.comparable(lhs)) + " IS " + (try t.comparable(rhs)) + ")")
    }
}

extension PredicateExpressions.NotEqual: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.comparable(lhs)) + " IS NOT " + (try t.comparable(rhs)) + ")")
    }
}

extension PredicateExpressions.Comparison: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default:
            throw PredicateTranslationError.unsupportedUse(expression: "Comparison", reason: "unknown operator \(op)")
        }
        return .value("(" + (try t.scalar(lhs)) + " \(symbol) " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Conditional: SQLPredicateExpression
where Test: SQLPredicateExpression, If: SQLPredicateExpression, Else: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(CASE WHEN " + (try t.scalar(test)) + " THEN " + (try t.scalar(trueBranch)) + " ELSE " + (try t.scalar(falseBranch)) + " END)")
    }
}
