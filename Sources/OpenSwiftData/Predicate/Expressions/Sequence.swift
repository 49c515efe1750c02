import Foundation

// contains, contains(where:), starts(with:) and ranges.

extension PredicateExpressions.SequenceContains: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let element = try translator.scalar(self.element)
        if let values = ConstantFolding.values(of: sequence) {
            // Swift's `contains` finds a nil; SQL's `IN (NULL, …)` does not: an `IS NULL` beside it.
            let present = values.filter { $0 != .null }
            let isNull = present.count < values.count ? "(" + element + " IS NULL)" : nil
            guard !present.isEmpty else { return .value(isNull ?? SQLFragment("0")) }
            let marks = Array(repeating: "?", count: present.count).joined(separator: ", ")
            let inList = "(" + element + SQLFragment(" IN (\(marks)))", present)
            return .value(isNull.map { "(" + inList + " OR " + $0 + ")" } ?? inList)
        }
        // A stored array (JSON text) containing a value.
        let array = try translator.scalar(sequence)
        return .value("EXISTS (SELECT 1 FROM json_each(" + array + ") WHERE value = " + element + ")")
    }
}

extension PredicateExpressions.SequenceContainsWhere: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        guard case .toMany(let target, let link, let ownerAlias) = try translator.term(sequence) else {
            throw PredicateTranslationError.unsupportedUse(
                expression: "SequenceContainsWhere", reason: "contains(where:) is translated over to-many relationships only")
        }
        let alias = translator.newAlias()
        translator.bind(variable.key, to: .row(target, alias: alias))
        let saved = translator.joins
        let condition = try translator.scalar(test)
        let innerJoins = translator.joins.dropFirst(saved.count).joined(separator: " ")
        translator.restoreJoins(saved)
        let rows = link.rows(of: target, as: alias, ownerKey: "\(ownerAlias).\"_pk\"")
        return .value("EXISTS (SELECT 1 \(rows.from) \(innerJoins) WHERE \(rows.condition) AND " + condition + ")")
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        let base = try translator.scalar(self.base)
        if let value = prefix as? PredicateExpressions.Value<String> {
            return .value("(" + base + SQLFragment(" GLOB ?)", [.text(globEscaped(value.value) + "*")]))
        }
        let prefix = try translator.scalar(self.prefix)
        return .value("(substr(" + base + ", 1, length(" + prefix + ")) = " + prefix + ")")
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        .value("(instr(" + (try translator.scalar(base)) + ", " + (try translator.scalar(other)) + ") > 0)")
    }
}

/// A range's bounds, for `(a...b).contains(x)` and `range.contains(x)`.
protocol SQLRangeExpression {
    func bounds(_ t: inout PredicateTranslator) throws -> (lower: SQLFragment, upper: SQLFragment, closed: Bool)
}

extension PredicateExpressions.Range: SQLRangeExpression {
    func bounds(_ t: inout PredicateTranslator) throws -> (lower: SQLFragment, upper: SQLFragment, closed: Bool) {
        (try t.scalar(lower), try t.scalar(upper), false)
    }
}

extension PredicateExpressions.ClosedRange: SQLRangeExpression {
    func bounds(_ t: inout PredicateTranslator) throws -> (lower: SQLFragment, upper: SQLFragment, closed: Bool) {
        (try t.scalar(lower), try t.scalar(upper), true)
    }
}

/// A captured `Range` or `ClosedRange`.
protocol CapturedRange {
    var lowerAny: Any { get }
    var upperAny: Any { get }
    var boundType: Any.Type { get }
    var isClosed: Bool { get }
}
extension Range: CapturedRange {
    var lowerAny: Any { lowerBound }
    var upperAny: Any { upperBound }
    var boundType: Any.Type { Bound.self }
    var isClosed: Bool { false }
}
extension ClosedRange: CapturedRange {
    var lowerAny: Any { lowerBound }
    var upperAny: Any { upperBound }
    var boundType: Any.Type { Bound.self }
    var isClosed: Bool { true }
}

extension PredicateExpressions.Value: SQLRangeExpression {
    func bounds(_ t: inout PredicateTranslator) throws -> (lower: SQLFragment, upper: SQLFragment, closed: Bool) {
        guard let range = value as? any CapturedRange, let codec = ValueCodec.make(anyType: range.boundType) else {
            throw PredicateTranslationError.unsupportedUse(expression: "Value<\(Output.self)>", reason: "not a range of stored values")
        }
        return (SQLFragment("?", [codec.encode(range.lowerAny)]), SQLFragment("?", [codec.encode(range.upperAny)]), range.isClosed)
    }
}

extension PredicateExpressions.RangeExpressionContains: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        // A captured value's range (`holder.ranks.contains($0.rank)`) is evaluated first.
        guard let range = try (self.range as? any SQLRangeExpression) ?? (ConstantFolding.constantValue(of: self.range) as? any SQLRangeExpression) else {
            throw PredicateTranslationError.unsupportedUse(expression: "RangeExpressionContains", reason: "the range is not a literal or captured range")
        }
        let element = try translator.scalar(self.element)
        let (lower, upper, closed) = try range.bounds(&translator)
        return .value("(" + element + " >= " + lower + " AND " + element + (closed ? " <= " : " < ") + upper + ")")
    }
}

extension PredicateExpressions.Range: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        throw PredicateTranslationError.unsupportedUse(expression: "Range", reason: "a range is only translated inside contains")
    }
}

extension PredicateExpressions.ClosedRange: SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm {
        throw PredicateTranslationError.unsupportedUse(expression: "ClosedRange", reason: "a range is only translated inside contains")
    }
}
