import BlobStore
import Foundation

extension ModelContext {
    /// The models matching `descriptor`, filtered, sorted and windowed by SQLite.
    ///
    /// - Throws: `PredicateTranslationError` when the predicate or a sort key has no SQL form.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let entity = try schema.requireEntity(for: T.self)
        let partial = try descriptor.propertiesToFetch.isEmpty ? nil : PartialRead(descriptor.propertiesToFetch, entity: entity)
        let prefetch = try descriptor.relationshipKeyPathsForPrefetching.map { keyPath in
            guard let property = entity.property(for: keyPath), property.isRelationship else {
                throw PredicateTranslationError.unknownKeyPath(model: entity.name, keyPath: "\(keyPath) (relationshipKeyPathsForPrefetching names relationships)")
            }
            return property.index
        }
        let result: [T] = try withPendingChanges(descriptor.includePendingChanges) {
            let query = try SelectQuery(descriptor, entity: entity)
            let statement = try connection.statement(query.sql(columns: partial?.selectList ?? entity.selectList))
            try statement.bind(query.bindings)
            // Reset on every way out: a statement left stepping keeps the connection's read
            // snapshot, and the context would go on reading the store as it was.
            defer { statement.reset() }
            // Collected as [AnyObject]: appending to a [T] in this unspecialized generic code asks
            // the runtime for Array<T>'s metadata on every row (~330 instructions, 3% of a fetch).
            // (PersistentModel is class-bound, so an element is one reference either way.)
            var objects: [AnyObject] = []
            let group = FetchGroup()
            if partial != nil { group.container = container }
            // Rows of one table come once each; if none of them is in memory, skip the lookups.
            let fresh = pendingByKey.isEmpty && !registry.contains(entity: ObjectIdentifier(T.self))
            let rows = registry.rows(of: ObjectIdentifier(T.self))
            while try statement.step() {
                objects.append(try materialize(T.self, entity: entity, from: statement, group: group, rows: rows, fresh: fresh,
                                               plan: partial?.plan ?? entity.readPlan))
            }
            // Every element is a T (materialize returns one): the buffer is reinterpreted, as the
            // standard library's own class-array casts do, instead of copied by an unspecialized map.
            return unsafeBitCast(objects, to: [T].self)
        }
        // Each relationship to prefetch is loaded now: one query for each fetch group among the
        // results (one, unless some of them were in memory already with a group of their own).
        for index in prefetch {
            for model in result where model.persistentBackingData.unloaded.contains(index) {
                load(index, of: model.persistentBackingData)
            }
        }
        return result
    }

    /// A statement, bound, that reads the rows of `entity` with these primary keys (one key as
    /// itself, more as one JSON array: one statement for any number).
    func rowsStatement(_ entity: Schema.Entity, keys: [Int64]) throws -> Statement {
        let t0 = PredicateTranslator.rootAlias
        let statement = try connection.statement(keys.count == 1
            ? "SELECT \(entity.selectList) FROM \(entity.table) AS \(t0) WHERE \(t0).\"_pk\" = ?"
            : "SELECT \(entity.selectList) FROM \(entity.table) AS \(t0) WHERE \(t0).\"_pk\" IN (SELECT value FROM json_each(?))")
        try statement.bind([keys.count == 1 ? .integer(keys[0]) : .text(jsonArray(keys))])
        return statement
    }

    /// Loads the columns a fetch with `propertiesToFetch` left out, for `backing` and the other
    /// models fetched with it that lack them too, in one query.
    func loadColumns(of backing: _BackingData, entity: Schema.Entity, index: Int) throws {
        let owners = [backing] + groupMates(of: backing, entity: entity, unloaded: index).filter { $0.values[index] == nil }
        let byKey = Dictionary(owners.map { ($0.primaryKey, $0) }, uniquingKeysWith: { a, _ in a })
        let statement = try rowsStatement(entity, keys: owners.map(\.primaryKey))
        defer { statement.reset() }
        while try statement.step() {
            guard let owner = byKey[statement.int64(0)] else { continue }
            for (position, property) in entity.columns.enumerated()
            where owner.unloaded.contains(property.index) && owner.values[property.index] == nil {
                let column = Int32(position + 1)
                if property.isExternalStorage {
                    if statement.isText(column), let digest = BlobDigest(hex: statement.text(column)) {
                        owner.values[property.index] = ExternalFault(digest: digest)
                        owner.storedDigests[property.index] = digest
                        owner.external = container.external
                        continue  // stays unloaded: the blob is read on first access
                    }
                    owner.values[property.index] = property.nilValue()
                } else if case .toOne = property.kind {
                    if statement.isNull(column) {
                        owner.values[property.index] = property.nilValue()
                    } else {
                        owner.values[property.index] = ToOneFault(primaryKey: statement.int64(column))
                        continue  // stays unloaded: the related model is loaded on first access
                    }
                } else {
                    guard let value = property.codec!.read(statement, column) else {
                        throw ModelError.corruptValue(model: entity.name, property: property.name, stored: "\(statement.column(column))")
                    }
                    owner.values[property.index] = value
                }
                owner.unloaded.remove(property.index)
            }
        }
    }

    /// The number of models matching `descriptor`, counted by SQLite.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let entity = try schema.requireEntity(for: T.self)
        return try withPendingChanges(descriptor.includePendingChanges) {
            let query = try SelectQuery(descriptor, entity: entity)
            let sql = descriptor.fetchLimit == nil && descriptor.fetchOffset == nil
                ? query.sql(columns: "count(*)", ordered: false)
                : "SELECT count(*) FROM (\(query.sql(columns: "\(PredicateTranslator.rootAlias).\"_pk\"")))"
            let statement = try connection.statement(sql)
            try statement.bind(query.bindings)
            defer { statement.reset() }
            _ = try statement.step()
            return Int(statement.int64(0))
        }
    }

    /// The identifiers of the models matching `descriptor`, in order, without loading the models.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let entity = try schema.requireEntity(for: T.self)
        let keys: [Int64] = try withPendingChanges(false) { try primaryKeys(descriptor, entity: entity) }
        return keys.map { PersistentIdentifier(entityName: entity.name, primaryKey: $0) }
    }

    /// Calls `block` with each matching model, loading `batchSize` rows at a time: only the
    /// primary keys of all matches are held, and models not referenced elsewhere are freed between batches.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let entity = try schema.requireEntity(for: T.self)
        if descriptor.includePendingChanges && hasChanges && autosaveEnabled { try save() }
        let keys = try primaryKeys(descriptor, entity: entity)
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(start + max(1, batchSize), keys.count)])
            let models = try fetchByKeys(T.self, keys: batch)
            for model in models { try block(model) }
            start += batch.count
        }
    }

    func primaryKeys<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [Int64] {
        let query = try SelectQuery(descriptor, entity: entity)
        let statement = try connection.statement(query.sql(columns: "\(PredicateTranslator.rootAlias).\"_pk\""))
        try statement.bind(query.bindings)
        defer { statement.reset() }
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(0)) }
        return keys
    }

    /// The models with these primary keys, in the order of `keys` (missing rows are skipped).
    func fetchByKeys<T: PersistentModel>(_ type: T.Type, keys: [Int64]) throws -> [T] {
        let entity = EntityCache.entity(for: T.self)
        var found: [Int64: T] = [:]
        var missing: [Int64] = []
        for key in keys {
            if let model = registry[RegistryKey(entity: ObjectIdentifier(T.self), primaryKey: key)]?.object as? T {
                found[key] = model
            } else {
                missing.append(key)
            }
        }
        if !missing.isEmpty {
            // One statement for any number of keys: they go in as one JSON array.
            let statement = try rowsStatement(entity, keys: missing)
            defer { statement.reset() }
            let group = FetchGroup()
            let rows = registry.rows(of: ObjectIdentifier(T.self))
            while try statement.step() {
                let model = try materialize(T.self, entity: entity, from: statement, group: group, rows: rows)
                found[model.persistentBackingData.primaryKey] = model
            }
        }
        return keys.compactMap { found[$0] }
    }

    /// The rows of a to-many relationship of several owners, in one query: owner key → its models
    /// (each array holds `T`s only: `unsafeBitCast` to `[T]`; a dictionary of `[T]` would be
    /// unspecialized here, a metadata lookup and a generic hash on every owner).
    /// The owners' keys go in as a key range or as one JSON array parameter, so the statement is
    /// the same for any count.
    func fetchRelated<T: PersistentModel>(_ type: T.Type, link: RelationshipGraph.ToManyLink, owners: [Int64]) throws -> [Int64: [AnyObject]] {
        let entity = EntityCache.entity(for: T.self)
        let t0 = PredicateTranslator.rootAlias
        let ownerColumn: String
        switch link {
        case .foreignKey(let column): ownerColumn = "\(t0).\(column)"
        case .joinTable(_, let column, _): ownerColumn = "\(t0)j.\(quoted(column))"
        }
        let linkRows = link.rows(of: entity, as: t0, ownerKey: "x")
        // Which rows: one owner's by its key; owners whose keys fill most of their range (every
        // parent fetched, or a page of them) by one range scan of the foreign key's index, the rows
        // of owners not asked for skipped (`asked`); others by looking each key up.
        // `asked`: for a range, one flag per key in it (the range is under twice the owners).
        let condition: String, bindings: [SQLiteValue], asked: (low: Int64, flags: [Bool])?
        if owners.count == 1 {
            (condition, bindings, asked) = ("= ?", [.integer(owners[0])], nil)
        } else if link.joinTable == nil, owners.count >= 64, let low = owners.min(), let high = owners.max(),
                  // (keys far apart in a hand-edited store must not overflow the subtraction)
                  case (let span, false) = high.subtractingReportingOverflow(low), span < 2 * Int64(owners.count) {
            var flags = [Bool](repeating: false, count: Int(span) + 1)
            for key in owners { flags[Int(key - low)] = true }
            // No upper bound in SQL: comparing each index entry with it was ~200 instructions a row
            // in SQLite; the rows come in key order, so the loop stops at the first key past it.
            (condition, bindings, asked) = (">= ?", [.integer(low)], (low, flags))
        } else {
            (condition, bindings, asked) = ("IN (SELECT value FROM json_each(?))", [.text(jsonArray(owners))], nil)
        }
        // Each owner's models in the order they were linked; with a foreign key, ordered by owner
        // first, which is the order of the key's index (`_pk` follows in it), so SQLite does not sort.
        let order = link.joinTable == nil ? "\(ownerColumn), \(t0).\"_pk\"" : "\(t0)j.rowid"
        // A foreign key is one of the entity's own columns, read where the select list has it
        // (selecting it a second time cost SQLite ~370 instructions a row).
        var ownColumn: Int?
        if case .foreignKey(let column) = link, let position = entity.columns.firstIndex(where: { $0.column == column }) {
            ownColumn = 1 + position  // after "_pk"
        }
        let statement = try connection.statement(
            "SELECT \(entity.selectList)\(ownColumn == nil ? ", \(ownerColumn)" : "") \(linkRows.from) WHERE \(ownerColumn) \(condition) ORDER BY \(order)")
        try statement.bind(bindings)
        defer { statement.reset() }
        let ownerIndex = Int32(ownColumn ?? Int(statement.columnCount) - 1)
        var result: [Int64: [AnyObject]] = [:]
        let group = FetchGroup()
        let registered = registry.rows(of: ObjectIdentifier(T.self))
        // Rows come grouped by owner with a foreign key (see `order`): each owner's array is built
        // on its own and stored once, not looked up again for every row.
        // Collected and kept as [AnyObject], as in `fetch` (appending to a [T] here would ask the
        // runtime for Array<T>'s metadata on every row); the caller reinterprets each owner's.
        // Owners tend to have alike counts: each array starts with room for as many as the last
        // (not grown 1, 2, 4, 8, 16 by appends).
        var owner: Int64 = 0, models: [AnyObject] = []
        result.reserveCapacity(owners.count)
        func flush() {
            let count = models.count
            if let earlier = result[owner] { result[owner] = earlier + models } else { result[owner] = models }
            models = []
            models.reserveCapacity(count)
        }
        while try statement.step() {
            // A key stored as text (a damaged store) sorts after every number, so a range scan's
            // `>=` lets it through; read as a number it would name some owner: skipped. (The type
            // is asked before the value is read: reading converts it.)
            if asked != nil && !statement.isInteger(ownerIndex) { continue }
            let rowOwner = statement.int64(ownerIndex)
            if let asked {
                // At or above the range's low end by the statement; checked all the same (a
                // damaged store). Past its high end: done, as the rows come in key order.
                let i = rowOwner &- asked.low
                if i >= asked.flags.count { break }
                guard i >= 0 && asked.flags[Int(i)] else { continue }
            }
            let model = try materialize(T.self, entity: entity, from: statement, group: group, rows: registered)
            if rowOwner != owner && !models.isEmpty { flush() }
            owner = rowOwner
            models.append(model)
        }
        if !models.isEmpty { flush() }
        return result
    }

    /// The registered object for the current row, or a new one built from its columns. Every row
    /// joins `group` (models already in memory keep the group they were fetched with).
    /// `rows` is the registry's table of `T`, looked up once per statement. With `fresh`, the
    /// caller knows that no model of this row is in memory (nor pending).
    func materialize<T: PersistentModel>(_ type: T.Type, entity: Schema.Entity, from statement: Statement, group: FetchGroup,
                                         rows: RowTable, fresh: Bool = false, plan: [Schema.Entity.ReadStep]? = nil) throws -> T {
        let key = RegistryKey(entity: ObjectIdentifier(T.self), primaryKey: statement.int64(0))
        // Keys below 1 are the models not saved yet (0, then -1, -2, …): a row with one (SQLite
        // gives them only to rows another program wrote with them) would be taken for such a model,
        // its relationships read as empty and its key shared with a new model's. Refused by name.
        guard key.primaryKey > 0 else {
            throw ModelError.corruptValue(model: entity.name, property: "_pk", stored: "\(key.primaryKey) (a key below 1, written by another program; "
                                          + "OpenSwiftData keeps those for models not saved yet: give the row a positive key)")
        }
        group.keys.append(key.primaryKey)
        if !fresh, !pendingByKey.isEmpty, let pending = pendingByKey[key] {
            if pending.persistentBackingData.fetchGroup == nil { pending.persistentBackingData.fetchGroup = group }
            return pending as! T
        }
        if !fresh, let existing = rows[key.primaryKey], let object = existing.object {
            if existing.backing.fetchGroup == nil { existing.backing.fetchGroup = group }
            return unsafeDowncast(object, to: T.self)
        }
        rows.prefetch(key.primaryKey)
        var unloaded = IndexSetBits()
        var storedDigests: [Int: BlobDigest] = [:]
        let plan = plan ?? entity.readPlan
        var column: Int32 = 1
        // A column that does not hold a value of its property's type stops the row; the slots
        // filled so far are released.
        func corrupt(_ index: Int) -> ModelError {
            .corruptValue(model: entity.name, property: entity.properties[index].name, stored: "\(statement.column(column))")
        }
        let values = try ValueSlots(count: plan.count) { slot, index in
            let step = plan[index]
            switch step.kind {
            case .direct(let direct):
                guard direct.read(statement, column, into: slot) else { throw corrupt(index) }
                column += 1
            case .attribute:
                guard let value = step.codec!.read(statement, column) else { throw corrupt(index) }
                slot.initialize(to: value)
                column += 1
            case .external:
                if statement.isText(column), let digest = BlobDigest(hex: statement.text(column)) {
                    slot.initialize(to: ExternalFault(digest: digest))
                    storedDigests[index] = digest
                    unloaded.insert(index)
                } else {
                    slot.initialize(to: step.nilValue)
                }
                column += 1
            case .toOne:
                if statement.isNull(column) {
                    slot.initialize(to: step.nilValue)
                } else {
                    slot.initialize(to: ToOneFault(primaryKey: statement.int64(column)))
                    unloaded.insert(index)
                }
                column += 1
            case .toMany, .notFetched:
                slot.initialize(to: nil)
                unloaded.insert(index)
            case .none:
                slot.initialize(to: nil)
            }
        }
        let backing = _BackingData(values: values, primaryKey: key.primaryKey, entity: entity, unloaded: unloaded, context: self, fetchGroup: group)
        if !storedDigests.isEmpty {
            backing.storedDigests = storedDigests
            backing.external = container.external
        }
        let model = _BackingData.makeModel(T.self, around: backing)
        // `init(backingData:)` gave each `let` with an initial value a fresh one; the row's goes back.
        for (property, offset) in entity.initializedConstantFields {
            property.metadata.assignConstant!(model, offset, backing.values[property.index]!)
        }
        backing.owner = model
        register(model, backing: backing, in: rows, primaryKey: key.primaryKey)
        return model
    }

    /// Runs a read so that it sees this context's unsaved changes: they are written inside a
    /// savepoint, the read runs, and the savepoint is rolled back. Nothing is filtered in memory.
    func withPendingChanges<R>(_ include: Bool, _ read: () throws -> R) throws -> R {
        guard include && hasChanges else { return try read() }
        try connection.execute("SAVEPOINT osd_pending")
        var assigned: [(backing: _BackingData, temporaryKey: Int64)] = []
        defer {
            try? connection.execute("ROLLBACK TO osd_pending; RELEASE osd_pending")
            for (backing, temporaryKey) in assigned { backing.primaryKey = temporaryKey }
            pendingByKey = [:]
        }
        assigned = try writeChanges()
        for (backing, _) in assigned {
            if let model = backing.owner as? any PersistentModel {
                pendingByKey[RegistryKey(entity: ObjectIdentifier(type(of: model)), primaryKey: backing.primaryKey)] = model
            }
        }
        return try read()
    }
}

/// The rows one fetch returned: touching a lazy relationship of one of them loads it for all of
/// them still in memory, in one query (group faulting, so walking a relationship is not N+1).
final class FetchGroup {
    @exclusivity(unchecked) var keys: [Int64] = []
    /// Set by a fetch with `propertiesToFetch`: the columns it left out can still be read after
    /// the context is gone (see `_BackingData.loadDetachedOrFromContext`).
    @exclusivity(unchecked) var container: ModelContainer?
}

/// A to-one relationship not loaded yet: the related row's primary key.
struct ToOneFault {
    let primaryKey: Int64
}

/// What a fetch with `propertiesToFetch` reads: the primary key and the listed columns; every
/// other column is left unloaded and read for all the fetched models on first access.
struct PartialRead {
    let selectList: String
    let plan: [Schema.Entity.ReadStep]

    init<T: PersistentModel>(_ keyPaths: [PartialKeyPath<T>], entity: Schema.Entity) throws {
        var wanted = IndexSetBits()
        for keyPath in keyPaths {
            guard let property = entity.property(for: keyPath) else {
                throw PredicateTranslationError.unknownKeyPath(model: entity.name, keyPath: "\(keyPath) (propertiesToFetch)")
            }
            wanted.insert(property.index)
        }
        // A `let` is always read: it is set when the model is built, not on first use.
        for property in entity.constants { wanted.insert(property.index) }
        selectList = (["\(PredicateTranslator.rootAlias).\"_pk\""] + entity.columns.filter { wanted.contains($0.index) }.map { "\(PredicateTranslator.rootAlias).\($0.column)" }).joined(separator: ", ")
        plan = entity.properties.map { property in
            property.hasColumn && !wanted.contains(property.index) ? Schema.Entity.ReadStep.notFetched : entity.readPlan[property.index]
        }
    }
}
