import Foundation

// +, -, *, /, %, unary minus. Integer division truncates toward zero in SQLite as in Swift.

extension PredicateExpressions.Arithmetic: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let symbol: String
        switch op {
        case .add: symbol = "+"
        case .subtract: symbol = "-"
        case .multiply: symbol = "*"
        @unknown default:
            throw PredicateTranslationError.unsupportedUse(expression: "Arithmetic", reason: "unknown operator \(op)")
        }
        return .value("(" + (try translator.scalar(lhs)) + " \(symbol) " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.UnaryMinus: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(-" + (try translator.scalar(wrapped)) + ")")
    }
}

extension PredicateExpressions.IntDivision: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.scalar(lhs)) + " / " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.IntRemainder: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(" + (try translator.scalar(lhs)) + " % " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.FloatDivision: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(CAST(" + (try translator.scalar(lhs)) + " AS REAL) / " + (try translator.scalar(rhs)) + ")")
    }
}
