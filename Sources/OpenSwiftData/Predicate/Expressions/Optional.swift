import Foundation

// `?.`, `??`, `!` and nil. SQL NULL propagates through expressions as nil does through `?.`.

extension PredicateExpressions.OptionalFlatMap: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        translator.bind(variable.key, to: try translator.term(wrapped))
        return try translator.term(transform)
    }
}

extension PredicateExpressions.NilCoalesce: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("coalesce(" + (try translator.scalar(lhs)) + ", " + (try translator.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm { try translator.term(inner) }
}
