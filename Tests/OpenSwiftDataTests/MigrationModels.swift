import Foundation
import OpenSwiftData

// Earlier versions of models, each in its own namespace; the entity (table) name is the class name.

enum BudgetV1 {
    @Model final class Expense {
        var title: String
        var amount: Decimal
        var category: Category
        var date: Date
        init(title: String, amount: Decimal, category: Category, date: Date) {
            self.title = title
            self.amount = amount
            self.category = category
            self.date = date
        }
    }
}

enum ShapeV1 {
    @Model final class Card {
        var name: String
        var extra: String
        var code: String
        init(name: String, extra: String, code: String) {
            self.name = name
            self.extra = extra
            self.code = code
        }
    }
}

enum ShapeV2 {
    /// `name` renamed to `title`, `extra` removed, `code` now unique.
    @Model final class Card {
        @Attribute(originalName: "name") var title: String
        @Attribute(.unique) var code: String
        init(title: String, code: String) {
            self.title = title
            self.code = code
        }
    }
}

enum ShapeV3 {
    /// `.unique` removed again.
    @Model final class Card {
        @Attribute(originalName: "name") var title: String
        var code: String
        init(title: String, code: String) {
            self.title = title
            self.code = code
        }
    }
}

enum ShapeTyped {
    /// `code` changed type.
    @Model final class Card {
        var name: String
        var extra: String
        var code: Int
        init(name: String, extra: String, code: Int) {
            self.name = name
            self.extra = extra
            self.code = code
        }
    }
}

enum ShapeRequired {
    /// A new required property with no default.
    @Model final class Card {
        var name: String
        var extra: String
        var code: String
        var owner: String
        init(name: String, extra: String, code: String, owner: String) {
            self.name = name
            self.extra = extra
            self.code = code
            self.owner = owner
        }
    }
}

enum PriceV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Price.self] }
    @Model final class Price {
        var label: String
        var amount: Double
        init(label: String, amount: Double) {
            self.label = label
            self.amount = amount
        }
    }
}

enum PriceV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Price.self] }
    @Model final class Price {
        var label: String
        var amount: Decimal
        init(label: String, amount: Decimal) {
            self.label = label
            self.amount = amount
        }
    }
}

/// Doubles become Decimals: read before the store changes, written after.
enum PricePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PriceV1.self, PriceV2.self] }
    nonisolated(unsafe) static var carried: [String: Double] = [:]
    static var stages: [MigrationStage] {
        [.custom(fromVersion: PriceV1.self, toVersion: PriceV2.self,
                 willMigrate: { context in
                     carried = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<PriceV1.Price>()).map { ($0.label, $0.amount) })
                 },
                 didMigrate: { context in
                     for price in try context.fetch(FetchDescriptor<PriceV2.Price>()) {
                         price.amount = Decimal(string: String(carried[price.label] ?? 0))!
                     }
                 })]
    }
}

/// A document model and the next version of it, which adds an external-storage property: an
/// older app opening a store the newer one wrote must not drop or overwrite `edited`.
enum DocV1 {
    @Model final class Doc {
        var title: String
        @Attribute(.externalStorage) var body: Data?
        init(title: String, body: Data?) {
            self.title = title
            self.body = body
        }
    }
}

enum DocV2 {
    @Model final class Doc {
        var title: String
        @Attribute(.externalStorage) var body: Data?
        @Attribute(.externalStorage) var edited: Data?
        init(title: String, body: Data?, edited: Data?) {
            self.title = title
            self.body = body
            self.edited = edited
        }
    }
}

/// Two pairs of models with the same names and different layouts, as two versions of a
/// `VersionedSchema` have: their relationships must not be confused with each other.
enum TwinA {
    @Model final class Owner {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Item.owner) var items: [Item] = []
        init(name: String) { self.name = name }
    }
    @Model final class Item {
        var label: String
        var owner: Owner?
        init(label: String) { self.label = label }
    }
}

enum TwinB {
    @Model final class Owner {
        @Relationship(deleteRule: .cascade, inverse: \Item.owner) var items: [Item] = []
        var name: String
        var rank: Int = 0
        init(name: String) { self.name = name }
    }
    @Model final class Item {
        var weight: Double = 0
        var extra: String = ""
        var owner: Owner?
        var label: String
        init(label: String) { self.label = label }
    }
}

/// Apple's sample shape: two to-many relationships with one inverse.
enum SharedInverse {
    @Model final class Yard {
        var name: String
        @Relationship(inverse: \Plant.yard) var leading: [Plant] = []
        @Relationship(inverse: \Plant.yard) var trailing: [Plant] = []
        init(name: String) { self.name = name }
    }
    @Model final class Plant {
        var species: String
        var yard: Yard?
        init(species: String) { self.species = species }
    }
}

/// A property removed between two versions of a migration plan: the stage may drop its column.
enum NoteV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        var title: String
        var draft: String = ""
        init(title: String) { self.title = title }
    }
}

enum NoteV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        var title: String
        init(title: String) { self.title = title }
    }
}

enum NotePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NoteV1.self, NoteV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: NoteV1.self, toVersion: NoteV2.self)] }
}

enum IndexV1 {
    /// Before `#Unique` and `#Index` were declared.
    @Model final class Visit {
        var place: String
        var day: Date
        var note: String = ""
        init(place: String, day: Date) {
            self.place = place
            self.day = day
        }
    }
}

enum IndexV2 {
    /// Two unique lists and two indexes added, nothing else changed.
    @Model final class Visit {
        #Unique<Visit>([\.place, \.day], [\.note])
        #Index<Visit>([\.day], [\.place, \.day])
        var place: String
        var day: Date
        var note: String = ""
        init(place: String, day: Date) {
            self.place = place
            self.day = day
        }
    }
}

/// Two versions that share an identifier (the second's author forgot to change it), as a public
/// app's plan has them: told apart by their shape.
enum TagV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Tag.self] }
    @Model final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum TagV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Tag.self] }
    @Model final class Tag {
        var name: String
        var weight: Int = 0
        init(name: String) { self.name = name }
    }
}

enum TagPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TagV1.self, TagV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TagV1.self, toVersion: TagV2.self, willMigrate: nil, didMigrate: { context in
            for tag in try context.fetch(FetchDescriptor<TagV2.Tag>()) { tag.weight = tag.name.count }
        })]
    }
}
