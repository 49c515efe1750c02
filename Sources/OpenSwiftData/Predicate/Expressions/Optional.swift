import Foundation

// `?.`, `??`, `!` and nil. SQL NULL propagates through expressions as nil does through `?.`.

extension PredicateExpressions.OptionalFlatMap: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        t.bind(variable.key, to: try t.term(wrapped))
        return try t.term(transform)
    }
}

extension PredicateExpressions.NilCoalesce: SQLPredicateExpression where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm {
        .value("coalesce(" + (try t.scalar(lhs)) + ", " + (try t.scalar(rhs)) + ")")
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLPredicateExpression where Inner: SQLPredicateExpression {
    func sqlTerm(_ t: inout PredicateTranslator) throws -> SQLTerm { try t.term(inner) }
}
