import Foundation

// Boolean connectives, equality and ordering.

extension PredicateExpressions.Conjunction: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.scalar(lhs)) + " AND " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Disjunction: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.scalar(lhs)) + " OR " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Negation: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(NOT " + (try translator.scalar(wrapped)) + ")")
    }
}

// `IS` and `IS NOT` compare NULL the way Swift compares nil.
extension PredicateExpressions.Equal: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.comparable(lhs)) + " IS " + (try translator.comparable(rhs)) + ")")
    }
}

extension PredicateExpressions.NotEqual: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.comparable(lhs)) + " IS NOT " + (try translator.comparable(rhs)) + ")")
    }
}

extension PredicateExpressions.Comparison: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default:
            throw PredicateTranslationError.unsupportedUse(expression: "Comparison", reason: "unknown operator \(op)")
        }
        return .value("(" + (try translator.scalar(lhs)) + " \(symbol) " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.Conditional: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(CASE WHEN " + (try translator.scalar(test)) + " THEN " + (try translator.scalar(trueBranch)) + " ELSE " + (try translator.scalar(falseBranch)) + " END)")
    }
}
