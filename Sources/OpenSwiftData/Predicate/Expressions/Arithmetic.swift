import Foundation

// +, -, *, /, %, unary minus. Integer division truncates toward zero in SQLite as in Swift.

extension PredicateExpressions.Arithmetic: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        let symbol: String
        switch op {
        case .add: symbol = "+"
        case .subtract: symbol = "-"
        case .multiply: symbol = "*"
        @unknown default:
            throw PredicateTranslationError.unsupportedUse(expression: "Arithmetic", reason: "unknown operator \(op)")
        }
        return .value("(" + (try t.scalar(lhs)) + " \(symbol) " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.UnaryMinus: SQLPredicateExpression where Wrapped: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(-" + (try t.scalar(wrapped)) + ")")
    }
}

extension PredicateExpressions.IntDivision: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.scalar(lhs)) + " / " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.IntRemainder: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try t.scalar(lhs)) + " % " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.FloatDivision: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("(CAST(" + (try t.scalar(lhs)) + " AS REAL) / " + (try t.scalar(rhs)) + ")")
    }
}
