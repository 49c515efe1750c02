// The macros a model file uses, as in SwiftData. Implementations live in OpenSwiftDataMacros.

/// Makes a class a persistent model: its stored properties are persisted in the store.
///
/// ```swift
/// @Model final class Expense {
///     var title: String
///     var note: String = ""
///     init(title: String) { self.title = title }
/// }
/// ```
@attached(member, names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(_$schemaParts), named(init(backingData:)), named(_unregistersOnDeinit), named(deinit), named(access(keyPath:)), named(withMutation(keyPath:_:)))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// Added by `@Model` to each persisted property; not written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(index: Int) = #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Customizes how a property is stored: `.unique`, `.externalStorage`, `originalName:`.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Declares a relationship's delete rule and inverse.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Keeps a property out of the store. It must have a default value.
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "MarkerMacro")

/// Makes the combination of these properties' values unique among the model's rows, as in
/// SwiftData (iOS 18): one array per constraint, on a single property or several.
///
/// ```swift
/// @Model final class Person {
///     #Unique<Person>([\.id], [\.givenName, \.familyName])
///     var id: UUID
///     var givenName: String
///     var familyName: String
/// }
/// ```
/// Each constraint is a unique index. Inserting a model whose values match a stored row updates
/// that row (an upsert, as with `@Attribute(.unique)`), or throws with `uniquenessPolicy: .fail`.
@freestanding(declaration, names: named(_uniquenessConstraints), named(_$_uniquenessConstraints))
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "UniqueMacro")

/// Indexes these properties' columns, as in SwiftData (2024): one array per index, on a single
/// property or several (`#Index<Trip>([\.name], [\.start, \.name])`). Indexes added or removed are
/// created or dropped by automatic migration.
@freestanding(declaration, names: named(_indexes), named(_$_indexes))
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Makes an actor a model actor, as in SwiftData: it gets `modelContainer`, `modelExecutor`,
/// `init(modelContainer:)`, and through `ModelActor` its own `modelContext`, used only on the
/// actor's serial executor. Pass `PersistentIdentifier`s between actors, not models.
///
/// ```swift
/// @ModelActor actor Importer {
///     func add(_ title: String) throws -> PersistentIdentifier {
///         let expense = Expense(title: title, amount: 1)
///         modelContext.insert(expense)
///         try modelContext.save()
///         return expense.persistentModelID
///     }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")
