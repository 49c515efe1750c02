import Testing
import SwiftSyntax
import SwiftParser
import SwiftDiagnostics
import SwiftSyntaxMacros
import SwiftSyntaxMacroExpansion
@testable import OpenSwiftDataMacros

/// Expands `source` with the model macros and returns the expanded text and the diagnostics.
func expand(_ source: String) -> (text: String, diagnostics: [Diagnostic]) {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext()
    let macros: [String: Macro.Type] = [
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": MarkerMacro.self, "Relationship": MarkerMacro.self, "Transient": MarkerMacro.self,
    ]
    let expanded = file.expand(macros: macros, contextGenerator: { _ in context })
    return (expanded.description, context.diagnostics)
}

/// The whole expansion of `source` (each line's trailing spaces removed) and its diagnostics, each
/// as "line:column: severity: message", followed by its fix-its as "fix-it: message: replace `old`
/// with `new`" for every change.
func expansion(_ source: String) -> (text: String, diagnostics: [String]) {
    let file = Parser.parse(source: source)
    let (text, diagnostics) = expand(source)
    let converter = SourceLocationConverter(fileName: "test.swift", tree: file)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        String(line.reversed().drop(while: { $0 == " " }).reversed())
    }
    let rendered = diagnostics.flatMap { diagnostic -> [String] in
        let location = diagnostic.location(converter: converter)
        let head = "\(location.line):\(location.column): \(diagnostic.diagMessage.severity): \(diagnostic.message)"
        let fixIts = diagnostic.fixIts.map { fixIt in
            "fix-it: \(fixIt.message.message): " + fixIt.changes.map { change -> String in
                switch change {
                case .replace(let old, let new): return "replace `\(old.trimmedDescription)` with `\(new.trimmedDescription)`"
                default: return "\(change)"
                }
            }.joined(separator: "; ")
        }
        return [head] + fixIts
    }
    return (lines.joined(separator: "\n"), rendered)
}

/// Each test compares the whole expansion (or, for code the macros refuse, every diagnostic with its
/// position and fix-its), so that anything the macros add, drop or move is seen.
@Suite struct ModelMacroTests {
    /// The backing data, the schema metadata of every stored property but the transient and the computed one, the accessor attributes, `init(backingData:)`, the deinit that leaves the registry, and the conformance.
    @Test func expansionAddsBackingDataMetadataAndConformance() {
        let result = expansion(#"""
            @Model final class Expense {
                var title: String
                var note: String = ""
                @Attribute(.unique) var code: Int
                @Transient var cache: Int = 0
                var total: Int { 3 }
                init(title: String) { self.title = title; self.code = 1 }
            }
            """#)
        #expect(result.text == #"""
        final class Expense {
            @OpenSwiftData._PersistedProperty(index: 0)
            var title: String
            @OpenSwiftData._PersistedProperty(index: 1)
            var note: String = ""
            @OpenSwiftData._PersistedProperty(index: 2) var code: Int
            var cache: Int = 0
            var total: Int { 3 }
            init(title: String) { self.title = title; self.code = 1 }

            nonisolated static var _unregistersOnDeinit: Bool {
                true
            }

            deinit {
                _$backingData._modelWillDeinit()
            }

            nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: Expense.self, count: 3)

            nonisolated var persistentBackingData: OpenSwiftData._BackingData {
                _$backingData
            }

            nonisolated static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                let parts = OpenSwiftData._madeOnAnyThread(_$schemaParts)
                return [
                    OpenSwiftData.Schema.PropertyMetadata(name: "title", keyPath: parts[0].keyPath as! ReferenceWritableKeyPath<Expense, String>, attribute: parts[0].attribute, relationship: parts[0].relationship),
                    OpenSwiftData.Schema.PropertyMetadata(name: "note", keyPath: parts[1].keyPath as! ReferenceWritableKeyPath<Expense, String>, defaultValue: {
                            ""
                        }, attribute: parts[1].attribute, relationship: parts[1].relationship),
                    OpenSwiftData.Schema.PropertyMetadata(name: "code", keyPath: parts[2].keyPath as! ReferenceWritableKeyPath<Expense, Int>, attribute: parts[2].attribute, relationship: parts[2].relationship)
                ]
            }

            @MainActor private static func _$schemaParts() -> [OpenSwiftData.Schema.PropertyParts] {
                [
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Expense.title),
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Expense.note),
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Expense.code, attribute: OpenSwiftData.Schema.Attribute(.unique))
                ]
            }

            internal nonisolated func access<_M>(keyPath: KeyPath<Expense, _M>) {
                _$backingData._access(self, keyPath: keyPath)
            }

            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Expense, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$backingData._withMutation(of: self, keyPath: keyPath, mutation)
            }

            nonisolated required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                self._title = OpenSwiftData._PersistedNoValue()
                self._note = OpenSwiftData._PersistedNoValue()
                self._code = OpenSwiftData._PersistedNoValue()
            }
        }

        nonisolated extension Expense: nonisolated OpenSwiftData.PersistentModel {
        }
        """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// A class with a deinit of its own keeps it: no generated deinit, and the registry watches it weakly.
    @Test func aClassWithItsOwnDeinitKeepsItAndIsRegisteredWeakly() {
        let result = expansion(#"""
            @Model final class Cache {
                var key: String = ""
                deinit { print("bye") }
            }
            """#)
        #expect(result.text == #"""
        final class Cache {
            @OpenSwiftData._PersistedProperty(index: 0)
            var key: String = ""
            deinit { print("bye") }

            nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: Cache.self, count: 1)

            nonisolated var persistentBackingData: OpenSwiftData._BackingData {
                _$backingData
            }

            nonisolated static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                let parts = OpenSwiftData._madeOnAnyThread(_$schemaParts)
                return [
                    OpenSwiftData.Schema.PropertyMetadata(name: "key", keyPath: parts[0].keyPath as! ReferenceWritableKeyPath<Cache, String>, defaultValue: {
                            ""
                        }, attribute: parts[0].attribute, relationship: parts[0].relationship)
                ]
            }

            @MainActor private static func _$schemaParts() -> [OpenSwiftData.Schema.PropertyParts] {
                [
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Cache.key)
                ]
            }

            internal nonisolated func access<_M>(keyPath: KeyPath<Cache, _M>) {
                _$backingData._access(self, keyPath: keyPath)
            }

            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Cache, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$backingData._withMutation(of: self, keyPath: keyPath, mutation)
            }

            nonisolated required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                self._key = OpenSwiftData._PersistedNoValue()
            }
        }

        nonisolated extension Cache: nonisolated OpenSwiftData.PersistentModel {
        }
        """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// A persisted property gets init/get/set accessors over the backing data (reporting reads and
    /// writes to the model's observation registrar) and a peer that marks its storage.
    @Test func persistedPropertyGetsInitAccessorAndPeer() {
        let result = expansion(#"""
            final class A {
                @_PersistedProperty(index: 2) var title: String
            }
            """#)
        #expect(result.text == #"""
        final class A {
            var title: String {
                @storageRestrictions(accesses: _$backingData, initializes: _title)
                init(initialValue) {
                    _$backingData._initValue(initialValue, at: 2)
                    _title = OpenSwiftData._PersistedNoValue()
                }
                get {
                    _$backingData._access(self, keyPath: \.title)
                    return _$backingData._getValue(at: 2)
                }
                set {
                    _$backingData._setValue(newValue, at: 2, of: self, keyPath: \.title)
                }
            }

            @OpenSwiftData.Transient nonisolated(unsafe) private var _title: OpenSwiftData._PersistedNoValue
        }
        """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// @Model on a struct: an error at the declaration, with a fix-it that makes it a final class.
    @Test func modelOnAStructIsAnErrorWithFixIt() {
        let result = expansion(#"""
            @Model struct Point { var x: Int }
            """#)
        #expect(result.text == #"""
        struct Point { var x: Int
        }
        """#)
        #expect(result.diagnostics == [
            #"1:1: error: @Model can only be applied to a class, not to a struct"#,
            #"fix-it: Declare it as a 'final class': replace `struct` with `final class`"#,
        ], "\(result.diagnostics)")
    }

    /// `let` properties get metadata but no accessors; the one without an initial value is set from the row in `init(backingData:)`.
    @Test func letPropertiesArePersistedWithoutAccessors() {
        let result = expansion(#"""
            @Model final class Note {
                let id = UUID()
                let created: Date
                var text: String
                init(created: Date, text: String) { self.created = created; self.text = text }
            }
            """#)
        #expect(result.text == #"""
        final class Note {
            let id = UUID()
            let created: Date
            @OpenSwiftData._PersistedProperty(index: 2)
            var text: String
            init(created: Date, text: String) { self.created = created; self.text = text }

            nonisolated static var _unregistersOnDeinit: Bool {
                true
            }

            deinit {
                _$backingData._modelWillDeinit()
            }

            nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: Note.self, count: 3)

            nonisolated var persistentBackingData: OpenSwiftData._BackingData {
                _$backingData
            }

            nonisolated static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                let parts = OpenSwiftData._madeOnAnyThread(_$schemaParts)
                return [
                    OpenSwiftData.Schema.PropertyMetadata(name: "id", constant: OpenSwiftData._typedKeyPath(parts[0].keyPath, of: Note.self, like: {
                                UUID()
                            }), defaultValue: {
                            UUID()
                        }, attribute: parts[0].attribute, relationship: parts[0].relationship),
                    OpenSwiftData.Schema.PropertyMetadata(name: "created", constant: parts[1].keyPath as! KeyPath<Note, Date>, attribute: parts[1].attribute, relationship: parts[1].relationship),
                    OpenSwiftData.Schema.PropertyMetadata(name: "text", keyPath: parts[2].keyPath as! ReferenceWritableKeyPath<Note, String>, attribute: parts[2].attribute, relationship: parts[2].relationship)
                ]
            }

            @MainActor private static func _$schemaParts() -> [OpenSwiftData.Schema.PropertyParts] {
                [
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Note.id),
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Note.created),
                    OpenSwiftData.Schema.PropertyParts(keyPath: \Note.text)
                ]
            }

            internal nonisolated func access<_M>(keyPath: KeyPath<Note, _M>) {
                _$backingData._access(self, keyPath: keyPath)
            }

            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Note, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$backingData._withMutation(of: self, keyPath: keyPath, mutation)
            }

            nonisolated required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                self.created = backingData._constantValue(at: 1)
                self._text = OpenSwiftData._PersistedNoValue()
            }
        }

        nonisolated extension Note: nonisolated OpenSwiftData.PersistentModel {
        }
        """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// A `let` whose initial value is a literal is an error (the optimizer may fold its reads), with a fix-it to `var`; `UUID()` and `Date.now` are not literals.
    @Test func aLetWithALiteralInitialValueIsAnErrorWithFixIt() {
        let result = expansion(#"""
            @Model final class A {
                let version = 1
                let name = "x"
                let scale = -1.5
                let tags = ["a"]
                let id = UUID()
                let created = Date.now
                init() {}
            }
            """#)
        #expect(result.diagnostics == [
            #"2:19: error: @Model property 'version' is a 'let' with a literal initial value, which the compiler may read in its place, so a stored value would not be seen; declare it with 'var', or give it its value in init"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
            #"3:16: error: @Model property 'name' is a 'let' with a literal initial value, which the compiler may read in its place, so a stored value would not be seen; declare it with 'var', or give it its value in init"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
            #"4:17: error: @Model property 'scale' is a 'let' with a literal initial value, which the compiler may read in its place, so a stored value would not be seen; declare it with 'var', or give it its value in init"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
            #"5:16: error: @Model property 'tags' is a 'let' with a literal initial value, which the compiler may read in its place, so a stored value would not be seen; declare it with 'var', or give it its value in init"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
        ], "\(result.diagnostics)")
    }

    /// A `let` relationship or external-storage property is an error, with a fix-it to `var`.
    @Test func letRelationshipsAndExternalStorageAreErrorsWithFixIt() {
        let result = expansion(#"""
            @Model final class A {
                @Relationship(deleteRule: .cascade) let items: [Item]
                @Attribute(.externalStorage) let photo: Data
            }
            """#)
        #expect(result.diagnostics == [
            #"2:5: error: @Model relationship 'items' must be declared with 'var': its inverse is kept up to date by assigning it"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
            #"3:5: error: @Model property 'photo' with external storage must be declared with 'var': its value is loaded on first read"#,
            #"fix-it: Replace 'let' with 'var': replace `let` with `var`"#,
        ], "\(result.diagnostics)")
    }

    /// Types that cannot be stored are errors naming the property and why.
    @Test func unsupportedTypesAreErrors() {
        let result = expansion(#"""
            @Model final class A {
                var callback: () -> Void
                var pair: (Int, Int)
                var anything: Any
                var shape: any Equatable
            }
            """#)
        #expect(result.diagnostics == [
            #"2:19: error: @Model property 'callback' has type '() -> Void', which cannot be persisted: functions cannot be stored; mark it @Transient to keep it in memory only"#,
            #"3:15: error: @Model property 'pair' has type '(Int, Int)', which cannot be persisted: tuples cannot be stored; use a Codable struct; mark it @Transient to keep it in memory only"#,
            #"4:19: error: @Model property 'anything' has type 'Any', which cannot be persisted: 'Any' has no stored representation; mark it @Transient to keep it in memory only"#,
            #"5:16: error: @Model property 'shape' has type 'any Equatable', which cannot be persisted: existential and opaque types cannot be stored; use a concrete Codable type; mark it @Transient to keep it in memory only"#,
        ], "\(result.diagnostics)")
    }

    /// As in SwiftData: a property without a declared type takes it from its key path in the metadata.
    @Test func aTypeInferredFromTheInitialValueIsAccepted() {
        let result = expansion(#"""
            @Model final class A { var count = 3
             var stops = [String]() }
            """#)
        #expect(result.text == #"""
        final class A {
        @OpenSwiftData._PersistedProperty(index: 0)var count = 3
         @OpenSwiftData._PersistedProperty(index: 1)
         var stops = [String]()

            nonisolated static var _unregistersOnDeinit: Bool {
                true
            }

            deinit {
                _$backingData._modelWillDeinit()
            }

            nonisolated(unsafe) var _$backingData = OpenSwiftData._BackingData._make(for: A.self, count: 2)

            nonisolated var persistentBackingData: OpenSwiftData._BackingData {
                _$backingData
            }

            nonisolated static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                let parts = OpenSwiftData._madeOnAnyThread(_$schemaParts)
                return [
                    OpenSwiftData.Schema.PropertyMetadata(name: "count", keyPath: OpenSwiftData._typedReferenceWritableKeyPath(parts[0].keyPath, of: A.self, like: {
                                3
                            }), defaultValue: {
                            3
                        }, attribute: parts[0].attribute, relationship: parts[0].relationship),
                    OpenSwiftData.Schema.PropertyMetadata(name: "stops", keyPath: OpenSwiftData._typedReferenceWritableKeyPath(parts[1].keyPath, of: A.self, like: {
                                [String]()
                            }), defaultValue: {
                            [String]()
                        }, attribute: parts[1].attribute, relationship: parts[1].relationship)
                ]
            }

            @MainActor private static func _$schemaParts() -> [OpenSwiftData.Schema.PropertyParts] {
                [
                    OpenSwiftData.Schema.PropertyParts(keyPath: \A.count),
                    OpenSwiftData.Schema.PropertyParts(keyPath: \A.stops)
                ]
            }

            internal nonisolated func access<_M>(keyPath: KeyPath<A, _M>) {
                _$backingData._access(self, keyPath: keyPath)
            }

            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<A, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$backingData._withMutation(of: self, keyPath: keyPath, mutation)
            }

            nonisolated required init(backingData: OpenSwiftData._BackingData) {
                self._$backingData = backingData
                self._count = OpenSwiftData._PersistedNoValue()
                self._stops = OpenSwiftData._PersistedNoValue()
            }
        }

        nonisolated extension A: nonisolated OpenSwiftData.PersistentModel {
        }
        """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// A @Transient property needs a default value.
    @Test func transientWithoutDefaultIsAnError() {
        let result = expansion(#"""
            @Model final class A { @Transient var cache: Int }
            """#)
        #expect(result.diagnostics == [
            #"1:24: error: @Transient property 'cache' needs a default value: models loaded from the store are created without calling your initializer"#,
        ], "\(result.diagnostics)")
    }

    /// `lazy` and observed properties are errors.
    @Test func lazyAndObservedPropertiesAreErrors() {
        let result = expansion(#"""
            @Model final class A {
                lazy var a: Int = 1
                var b: Int = 0 { didSet { } }
            }
            """#)
        #expect(result.diagnostics == [
            #"2:5: error: @Model property 'a' cannot be 'lazy'; mark it @Transient or remove 'lazy'"#,
            #"3:20: error: @Model property 'b' cannot have willSet/didSet observers"#,
        ], "\(result.diagnostics)")
    }
}
