import Foundation

/// Why a predicate or sort could not become SQL. Nothing is ever filtered in memory instead.
public enum PredicateTranslationError: Error, Equatable, LocalizedError {
    /// The expression type has no SQL translation.
    case unsupportedExpression(String)
    /// The expression is translatable in general but not in this use.
    case unsupportedUse(expression: String, reason: String)
    /// A key path that does not name a persisted property of the model.
    case unknownKeyPath(model: String, keyPath: String)

    /// What could not be translated, naming it.
    public var errorDescription: String? {
        switch self {
        case .unsupportedExpression(let e):
            return "#Predicate expression \(e) cannot be translated to SQL; rewrite the predicate with comparisons, &&, ||, !, arithmetic, ??, contains or starts(with:)"
        case .unsupportedUse(let e, let reason):
            return "#Predicate expression \(e) cannot be translated to SQL: \(reason)"
        case .unknownKeyPath(let model, let keyPath):
            return "\(keyPath) is not a persisted property of \(model)"
        }
    }
}

/// SQL text with the values bound to its `?` placeholders, in order.
struct SQLFragment {
    var sql: String
    var bindings: [SQLiteValue] = []

    init(_ sql: String, _ bindings: [SQLiteValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    static func + (a: SQLFragment, b: SQLFragment) -> SQLFragment { SQLFragment(a.sql + b.sql, a.bindings + b.bindings) }
    static func + (a: SQLFragment, b: String) -> SQLFragment { SQLFragment(a.sql + b, a.bindings) }
    static func + (a: String, b: SQLFragment) -> SQLFragment { SQLFragment(a + b.sql, b.bindings) }
}

/// What a translated predicate sub-expression stands for.
enum SQLTerm {
    /// A row of an entity under a table alias (the predicate's variable, or a to-one relationship).
    case row(Schema.Entity, alias: String)
    /// The models of a to-many relationship of the row under `ownerAlias`.
    case toMany(Schema.Entity, link: RelationshipGraph.ToManyLink, ownerAlias: String)
    /// A scalar SQL expression.
    case value(SQLFragment)
}

/// Turns a Foundation `Predicate` over a model into an SQL `WHERE` clause.
///
/// Each `PredicateExpressions` type that has a translation conforms to `SQLPredicateExpression`, in
/// the files beside this one; children are translated through `term(_:)`, which casts each. A
/// subexpression that does not depend on the predicate's variables (`itemID.description`,
/// `settings.limit`, a captured value's property) and has no translation of its own is evaluated
/// once, as Foundation evaluates it, and bound as a constant. Any other node without a translation
/// is named in the error.
struct PredicateTranslator {
    private(set) var joins: [String] = []
    private var variables: [PredicateExpressions.VariableID: SQLTerm] = [:]
    private var aliasCount = 0
    private var joinAliases: [String: String] = [:]
    let rootEntity: Schema.Entity

    init(entity: Schema.Entity) { rootEntity = entity }

    static let rootAlias = "t0"

    /// The WHERE condition (without the keyword) and any joins it needs.
    static func translate<T>(_ predicate: Predicate<T>, entity: Schema.Entity) throws -> (condition: SQLFragment, joins: [String]) {
        var translator = PredicateTranslator(entity: entity)
        translator.variables[predicate.variable.key] = .row(entity, alias: rootAlias)
        let condition = try translator.scalar(predicate.expression)
        return (condition, translator.joins)
    }

    static func describe(_ type: Any.Type) -> String {
        let name = String(reflecting: type)
        return ["FoundationEssentials.", "Foundation.", "Swift."].reduce(name) { $0.replacingOccurrences(of: $1, with: "") }
    }

    // MARK: Helpers for the expression conformances

    /// Translates a node: by its own translation, or, when it has none (or its translation refuses
    /// it) and it does not depend on the predicate's variables, as the constant it evaluates to.
    mutating func term(_ expression: any PredicateExpression) throws -> SQLTerm {
        if expression is any FoldsWhenConstant, ConstantFolding.isConstant(expression) {
            return try ConstantFolding.fold(expression, &self)
        }
        if let translatable = expression as? any SQLPredicateExpression {
            do {
                return try translatable.sqlTerm(&self)
            } catch let error as PredicateTranslationError {
                guard ConstantFolding.isConstant(expression) else { throw error }
                return try ConstantFolding.fold(expression, &self)
            }
        }
        guard ConstantFolding.isConstant(expression) else {
            throw PredicateTranslationError.unsupportedExpression(Self.describe(type(of: expression)))
        }
        return try ConstantFolding.fold(expression, &self)
    }

    /// Translates a child that must be a scalar value.
    mutating func scalar(_ expression: any PredicateExpression) throws -> SQLFragment {
        try scalar(try term(expression), of: expression)
    }

    private func scalar(_ term: SQLTerm, of expression: any PredicateExpression) throws -> SQLFragment {
        switch term {
        case .value(let fragment): return fragment
        case .row(let entity, _):
            throw PredicateTranslationError.unsupportedUse(
                expression: Self.describe(type(of: expression)),
                reason: "a whole \(entity.name) model cannot be compared in SQL; compare one of its properties, such as its id")
        case .toMany(let entity, _, _):
            throw PredicateTranslationError.unsupportedUse(
                expression: Self.describe(type(of: expression)),
                reason: "a to-many relationship of \(entity.name) models can be used with .count, .isEmpty or contains(where:)")
        }
    }

    /// Translates an operand of `==` / `!=`: a model (a to-one relationship) compares by its primary key,
    /// so `$0.student == nil` works.
    mutating func comparable(_ expression: any PredicateExpression) throws -> SQLFragment {
        let term = try term(expression)
        if case .row(_, let alias) = term { return SQLFragment("\(alias).\"_pk\"") }
        return try scalar(term, of: expression)
    }

    mutating func bind(_ id: PredicateExpressions.VariableID, to term: SQLTerm) { variables[id] = term }
    func lookup(_ id: PredicateExpressions.VariableID) -> SQLTerm? { variables[id] }

    mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    mutating func addJoin(_ sql: String) { joins.append(sql) }

    /// The alias of the row a to-one relationship leads to, joining it once per path.
    mutating func joinedAlias(from alias: String, column: String, to table: String) -> String {
        let key = "\(alias).\(column)"
        if let existing = joinAliases[key] { return existing }
        let joined = newAlias()
        addJoin("LEFT JOIN \(table) AS \(joined) ON \(joined).\"_pk\" = \(alias).\(column)")
        joinAliases[key] = joined
        return joined
    }
    /// Forgets joins made since `saved` (a subquery keeps its own).
    mutating func restoreJoins(_ saved: [String]) {
        joins = saved
        joinAliases = joinAliases.filter { entry in saved.contains { $0.contains(" AS \(entry.value) ") } }
    }
}

/// A `PredicateExpressions` node that has an SQL translation.
protocol SQLPredicateExpression {
    func sqlTerm(_ translator: inout PredicateTranslator) throws -> SQLTerm
}

/// Escapes `%`, `_` and `\` for `LIKE … ESCAPE '\'`. By Unicode scalar, as SQLite reads the
/// pattern: a `%` followed by a combining mark is one Swift `Character` that is not `%`.
func likeEscaped(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        if scalar == "%" || scalar == "_" || scalar == "\\" { out.append("\\") }
        out.append(scalar)
    }
    return String(out)
}

/// Escapes `*`, `?` and `[` for GLOB, which is case-sensitive like Swift. By Unicode scalar, as
/// `likeEscaped`.
func globEscaped(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "*": out.append(contentsOf: "[*]".unicodeScalars)
        case "?": out.append(contentsOf: "[?]".unicodeScalars)
        case "[": out.append(contentsOf: "[[]".unicodeScalars)
        default: out.append(scalar)
        }
    }
    return String(out)
}
