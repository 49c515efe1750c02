import BlobStore
import CSQLite
import Foundation

extension ModelContext {
    /// Writes every pending insert, change and delete in one SQLite transaction.
    ///
    /// Delete rules run first (`.deny` throws `ModelError.deleteDenied` and nothing is written).
    /// An inserted model whose `.unique` property matches a stored row updates that row
    /// (SwiftData's upsert), unless the configuration's `uniquenessPolicy` is `.fail`, which throws
    /// `ModelError.uniqueConstraintViolation`. On any error nothing is written and the pending
    /// changes stay pending.
    ///
    /// External-storage values are written to the blob store and made durable before the
    /// transaction that references them commits; blobs whose last reference the save removed are
    /// deleted after it commits (a crash in between leaves only orphans for `collectGarbage`).
    public func save() throws {
        // A save asked for by a `willSave` observer is the one under way: it saves what they change.
        guard hasChanges, !isAnnouncingSave else { return }
        // Observers may still change models: what they do is saved with the rest.
        if !isDeinitializing {
            isAnnouncingSave = true
            NotificationCenter.default.post(name: Self.willSave, object: self)
            isAnnouncingSave = false
        }
        // Digest hints serve this attempt only, failed or not: a buffer an app reuses after a
        // failed save must never be stored under the name noted for its earlier bytes.
        defer { knownDigests.removeAll() }
        if let refusal = container.writeRefusal { throw refusal }
        let cascaded = try applyDeleteRules()
        let writer = try writeExternalValues()
        let released = releasedDigests().union(cascaded.digests)
        var assigned: [(backing: _BackingData, temporaryKey: Int64)] = []
        var saved: [AnyHashable: Any]?
        do {
            // The blob store's shared lock goes once the rows are committed (or not), before
            // released blobs are removed (which takes it exclusively).
            defer { writer?.finish() }
            do {
                let connection = try self.connection
                try connection.makeSaveTables()
                try connection.transaction {
                    try recordingHistory(on: connection) { assigned = try writeChanges(cascaded: cascaded) }
                }
            } catch {
                for (backing, temporaryKey) in assigned { backing.primaryKey = temporaryKey }
                for model in pendingWrites { model.persistentBackingData.pendingDigests = [:] }
                throw error
            }
            saved = isDeinitializing ? nil : SaveNotification.identifiers(inserted: insertedList, updated: changedList, deleted: deletedList)
            finishSave()
        }
        if let external = container.external, !released.isEmpty, !skipsBlobRemovalForTesting {
            external.removeUnreferenced(released, isReferenced: referenceCheck())
        }
        // Posted once the save is over, its locks given back: an observer may save again.
        if let saved { NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: saved) }
    }

    /// Puts every new external-storage value into the blob store and makes them durable.
    func writeExternalValues() throws -> ExternalStorage.Writer? {
        guard let external = container.external else { return nil }
        var writer: ExternalStorage.Writer?
        do {
            for model in pendingWrites {
                let backing = model.persistentBackingData
                guard let entity = backing.entity, !entity.externals.isEmpty else { continue }
                for property in entity.externals where backing.state == .inserted || backing.changed.contains(property.index) {
                    guard let data = backing.values[property.index].flatMap({ $0 as? Data }) else { continue }
                    if writer == nil { writer = try ExternalStorage.Writer(external) }
                    backing.pendingDigests[property.index] = try writer!.put(data, digest: knownDigests.take(data))
                }
            }
            try writer?.commit()
        } catch {
            // A put that failed (a bucket's upload refused, say) leaves the others in flight and
            // the write lock held: both end before the error goes up. (Left running, an upload
            // was still hashing when the program exited, and OpenSSL, already shut down, made
            // it crash; in an app the lock would have stayed taken.)
            writer?.finish()
            throw error
        }
        return writer
    }

    /// Digests whose reference this save removes: changed external values and deleted models'.
    func releasedDigests() -> Set<BlobDigest> {
        var released = Set<BlobDigest>()
        for model in changedList {
            let backing = model.persistentBackingData
            for (index, digest) in backing.storedDigests where backing.changed.contains(index) && backing.pendingDigests[index] != digest {
                released.insert(digest)
            }
        }
        for model in deletedList { released.formUnion(model.persistentBackingData.storedDigests.values) }
        return released
    }

    /// Whether any row of any model references a blob. The store's columns are listed on the
    /// first call (under the blob store's lock), not once per released blob.
    func referenceCheck() -> (BlobDigest) throws -> Bool {
        var references: BlobReferences?
        return { digest in
            if references == nil { references = try BlobReferences(schema: self.schema, connection: self.connection) }
            return try references!.contains(digest)
        }
    }

    /// Issues the SQL for every pending change (and the rows `cascaded` deletes); returns the
    /// primary keys given to inserted models.
    func writeChanges(cascaded: CascadePlan = CascadePlan()) throws -> [(backing: _BackingData, temporaryKey: Int64)] {
        var assigned: [(backing: _BackingData, temporaryKey: Int64)] = []
        do {
            try deleteRows(cascaded)
            var pendingLinks: [(backing: _BackingData, property: Schema.Property, target: _BackingData)] = []
            var lastEntity: Schema.Entity?
            var lastKeyed = false
            var statement: Statement?
            var keys = KeyReservations()
            for model in insertedList {
                let backing = model.persistentBackingData
                let entity = backing.entity!
                // A key to bind when SQLite's choice would reuse a deleted row's (`KeyReservations`).
                let reserved = try keys.key(for: entity, on: connection)
                if entity !== lastEntity || (reserved != nil) != lastKeyed {
                    statement = try connection.statement(reserved != nil ? entity.insertKeyedSQL : entity.insertSQL)
                    (lastEntity, lastKeyed) = (entity, reserved != nil)
                }
                let key: Int64
                var upserted = false
                let keyPosition = Int32(entity.writePlan.count + 1)
                do {
                    // The common case: a plain INSERT, its key from sqlite3_last_insert_rowid.
                    try withColumnsBound(of: backing, entity: entity, to: statement!, deferLink: { pendingLinks.append((backing, $0, $1)) }) {
                        if let reserved { try statement!.bind(.integer(reserved), at: keyPosition) }
                        try statement!.runBound()
                    }
                    key = try reserved ?? connection.lastInsertRowID
                } catch let error as SQLiteError where error.code == SQLiteError.constraintUnique && uniquenessPolicy == .upsert && entity.hasUniqueness {
                    // A unique value matched a stored row: update that row instead (SwiftData's upsert).
                    upserted = true
                    let upsert = try connection.statement(reserved != nil ? entity.upsertKeyedSQL : entity.upsertSQL)
                    key = try withColumnsBound(of: backing, entity: entity, to: upsert, deferLink: { _, _ in }) {
                        defer { upsert.reset() }
                        if let reserved { try upsert.bind(.integer(reserved), at: keyPosition) }
                        guard try upsert.step() else { throw SQLiteError(code: SQLITE_ERROR, message: "upsert returned no row", sql: upsert.sql) }
                        return upsert.int64(0)
                    }
                }
                assigned.append((backing, backing.primaryKey))
                backing.primaryKey = key
                keys.gave(key)
                if upserted {
                    historyLog?.update(entity, key: key, attributes: entity.columns.map(\.name))
                } else {
                    historyLog?.insert(entity, key: key)
                }
            }
            try keys.record(on: connection)
            for link in pendingLinks {
                try connection.statement("UPDATE \(link.backing.entity!.table) SET \(link.property.column) = ? WHERE \"_pk\" = ?")
                    .run([.integer(link.target.primaryKey), .integer(link.backing.primaryKey)])
            }
            for model in changedList {
                let backing = model.persistentBackingData
                guard backing.state == .persisted else { continue }
                let entity = backing.entity!
                let properties = backing.changed.map { entity.properties[$0] }.filter(\.hasColumn)
                guard !properties.isEmpty else { continue }
                let sets = properties.map { "\($0.column) = ?" }.joined(separator: ", ")
                try connection.statement("UPDATE \(entity.table) SET \(sets) WHERE \"_pk\" = ?")
                    .run(properties.map { encode(backing, $0) } + [.integer(backing.primaryKey)])
                historyLog?.update(entity, key: backing.primaryKey, attributes: properties.map(\.name))
            }
            try writeJoinTables()
        } catch let error as SQLiteError where error.code == SQLiteError.constraintUnique {
            for (backing, temporaryKey) in assigned { backing.primaryKey = temporaryKey }
            throw uniqueViolation(error)
        } catch {
            for (backing, temporaryKey) in assigned { backing.primaryKey = temporaryKey }
            throw error
        }
        return assigned
    }

    /// One DELETE per entity, the keys as one JSON array: the deleted models' rows and those
    /// `cascaded` deletes without models. An entity's rows go before the rows they refer to, so
    /// that SQLite's `ON DELETE SET NULL` finds nothing left to update.
    func deleteRows(_ cascaded: CascadePlan) throws {
        var doomed = cascaded
        for model in deletedList {
            let backing = model.persistentBackingData
            doomed.add(backing.entity!, keys: [backing.primaryKey])
        }
        var groups = doomed.rows
        while !groups.isEmpty {
            // First a group that no other remaining group refers to (any, if they refer in a cycle).
            let next = groups.firstIndex { group in
                !groups.contains { other in other.entity !== group.entity && other.entity.refers(to: group.entity) }
            } ?? 0
            let (entity, keys) = groups.remove(at: next)
            let list = SQLiteValue.text(jsonArray(keys))
            if let historyLog { try noteDeletes(of: entity, keys: keys, list: list, in: historyLog) }
            try connection.statement("DELETE FROM \(entity.table) WHERE \"_pk\" IN (SELECT value FROM json_each(?))").run([list])
        }
    }

    /// Inserted then changed models, without copying either list (they can hold 100,000 models).
    var pendingWrites: FlattenSequence<[[any PersistentModel]]> { [insertedList, changedList].joined() }

    /// Rewrites the join-table rows of every many-to-many relationship that was set or is new.
    func writeJoinTables() throws {
        guard schema.entities.contains(where: \.hasToMany) else { return }
        for model in pendingWrites {
            let backing = model.persistentBackingData
            guard let entity = backing.entity, backing.state != .deleted else { continue }
            for property in entity.relationships {
                guard backing.state == .inserted || backing.changed.contains(property.index),
                      !backing.unloaded.contains(property.index),
                      case .joinTable(let table, let ownerColumn, let targetColumn)? = RelationshipGraph.link(of: property, in: entity)
                else { continue }
                try connection.statement("DELETE FROM \(quoted(table)) WHERE \(quoted(ownerColumn)) = ?").run([.integer(backing.primaryKey)])
                if backing.state != .inserted { historyLog?.update(entity, key: backing.primaryKey, attributes: [property.name]) }
                let insert = try connection.statement("INSERT OR IGNORE INTO \(quoted(table)) (\(quoted(ownerColumn)), \(quoted(targetColumn))) VALUES (?, ?)")
                for target in backing.values[property.index].map(Relationships.models(in:)) ?? [] {
                    let key = target.persistentBackingData.primaryKey
                    guard key > 0 else { continue }
                    try insert.run([.integer(backing.primaryKey), .integer(key)])
                }
            }
        }
    }

    /// "UNIQUE constraint failed: Student.id" → `ModelError.uniqueConstraintViolation`.
    func uniqueViolation(_ error: SQLiteError) -> Error {
        guard let range = error.message.range(of: "failed: ") else { return error }
        // A compound constraint names every column: "Photo.album, Photo.sha256".
        let targets = error.message[range.upperBound...].split(separator: ",").map {
            $0.split(separator: ".", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard let first = targets.first, first.count == 2, targets.allSatisfy({ $0.count == 2 }) else { return error }
        return ModelError.uniqueConstraintViolation(model: first[0], property: targets.map { $0[1] }.joined(separator: ", "))
    }
}
