import Foundation

/// A SELECT over one entity built from a fetch descriptor.
struct SelectQuery {
    var entity: Schema.Entity
    var condition: SQLFragment?
    var joins: [String] = []
    var orderBy: [String] = []
    var limit: Int?
    var offset: Int?

    init<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws {
        self.entity = entity
        if let predicate = descriptor.predicate {
            let translated = try PredicateTranslator.translate(predicate, entity: entity)
            condition = translated.condition
            joins = translated.joins
        }
        for sort in descriptor.sortBy {
            guard let keyPath = sort.keyPath, let property = entity.property(for: keyPath), property.codec != nil else {
                throw PredicateTranslationError.unknownKeyPath(model: entity.name, keyPath: sort.keyPath.map { "\($0)" } ?? "a comparator without key path")
            }
            // Strings sort as SwiftData sorts them: `SortDescriptor(\.name)` means `.localizedStandard`
            // there (Foundation on Linux leaves its comparator nil); `.lexical` is SQLite's byte order.
            let isString = property.metadata.valueType == String.self || property.metadata.valueType == String?.self
            let collation = isString ? (sort.stringComparator?.collation ?? .standard) : .binary
            let value = collation.keyFunction.map { "\($0)(\(PredicateTranslator.rootAlias).\(property.column))" } ?? "\(PredicateTranslator.rootAlias).\(property.column)"
            orderBy.append("\(value) \(sort.order == .forward ? "ASC" : "DESC")")
        }
        limit = descriptor.fetchLimit
        offset = descriptor.fetchOffset
    }

    var bindings: [SQLiteValue] { condition?.bindings ?? [] }

    func sql(columns: String, ordered: Bool = true) -> String {
        var sql = "SELECT \(columns) FROM \(entity.table) AS \(PredicateTranslator.rootAlias)"
        for join in joins { sql += " " + join }
        if let condition { sql += " WHERE " + condition.sql }
        if ordered && !orderBy.isEmpty { sql += " ORDER BY " + (orderBy + ["\(PredicateTranslator.rootAlias).\"_pk\""]).joined(separator: ", ") }
        if ordered, let limit { sql += " LIMIT \(limit)" }
        if ordered, let offset { sql += (limit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)" }
        return sql
    }
}
