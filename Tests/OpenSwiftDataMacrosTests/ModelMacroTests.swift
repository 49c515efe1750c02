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

@Suite struct ModelMacroTests {
    @Test func expansionAddsBackingDataMetadataAndConformance() {
        let (text, diagnostics) = expand("""
        @Model final class Expense {
            var title: String
            var note: String = ""
            @Attribute(.unique) var code: Int
            @Transient var cache: Int = 0
            var total: Int { 3 }
            init(title: String) { self.title = title; self.code = 1 }
        }
        """)
        #expect(diagnostics.isEmpty)
        #expect(text.contains("var _$backingData = OpenSwiftData._BackingData._make(for: Expense.self, count: 3)"))
        #expect(text.contains("static var _unregistersOnDeinit: Bool {\n        true"))
        #expect(text.contains("deinit {\n        _$backingData._modelWillDeinit()"))
        #expect(text.contains(#"OpenSwiftData.Schema.PropertyMetadata(name: "title", keyPath: \Expense.title)"#))
        #expect(text.contains(#"OpenSwiftData.Schema.PropertyMetadata(name: "note", keyPath: \Expense.note, defaultValue: {"#))
        #expect(text.contains(#"attribute: OpenSwiftData.Schema.Attribute(.unique)"#))
        #expect(!text.contains(#"name: "cache""#))
        #expect(!text.contains(#"name: "total""#))
        #expect(text.contains("extension Expense: OpenSwiftData.PersistentModel"))
        #expect(text.contains("required init(backingData: OpenSwiftData._BackingData)"))
        #expect(text.contains("self._code = OpenSwiftData._PersistedNoValue()"))
    }

    @Test func aClassWithItsOwnDeinitKeepsItAndIsRegisteredWeakly() {
        let (text, diagnostics) = expand("""
        @Model final class Cache {
            var key: String = ""
            deinit { print("bye") }
        }
        """)
        #expect(diagnostics.isEmpty)
        #expect(text.contains(#"deinit { print("bye") }"#))
        #expect(!text.contains("_modelWillDeinit"))
        #expect(!text.contains("_unregistersOnDeinit"))
    }

    @Test func persistedPropertyGetsInitAccessorAndPeer() {
        let (text, diagnostics) = expand("""
        final class A {
            @_PersistedProperty(index: 2) var title: String
        }
        """)
        #expect(diagnostics.isEmpty)
        #expect(text.contains("@storageRestrictions(accesses: _$backingData, initializes: _title)"))
        #expect(text.contains("_$backingData._initValue(initialValue, at: 2)"))
        #expect(text.contains("get {\n            _$backingData._getValue(at: 2)") || text.contains("_$backingData._getValue(at: 2)"))
        #expect(text.contains("private var _title: OpenSwiftData._PersistedNoValue"))
    }

    @Test func modelOnAStructIsAnErrorWithFixIt() throws {
        let (_, diagnostics) = expand("@Model struct Point { var x: Int }")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.message == "@Model can only be applied to a class, not to a struct")
        #expect(diagnostic.fixIts.first?.message.message == "Declare it as a 'final class'")
    }

    @Test func letPropertiesArePersistedWithoutAccessors() {
        let (text, diagnostics) = expand("""
        @Model final class Note {
            let id = UUID()
            let created: Date
            var text: String
            init(created: Date, text: String) { self.created = created; self.text = text }
        }
        """)
        #expect(diagnostics.isEmpty)
        #expect(text.contains(#"OpenSwiftData.Schema.PropertyMetadata(name: "id", constant: \Note.id, defaultValue: {"#))
        #expect(text.contains(#"OpenSwiftData.Schema.PropertyMetadata(name: "created", constant: \Note.created)"#))
        // No accessor is attached to a `let`; the one without an initial value is set from the row.
        #expect(!text.contains("_PersistedProperty(index: 0)") && !text.contains("_PersistedProperty(index: 1)"))
        #expect(text.contains("@OpenSwiftData._PersistedProperty(index: 2)"))
        #expect(text.contains("self.created = backingData._constantValue(at: 1)"))
        #expect(!text.contains("self.id ="))
    }

    @Test func aLetWithALiteralInitialValueIsAnErrorWithFixIt() throws {
        let (_, diagnostics) = expand("""
        @Model final class A {
            let version = 1
            let name = "x"
            let scale = -1.5
            let tags = ["a"]
            let id = UUID()
            let created = Date.now
            init() {}
        }
        """)
        #expect(diagnostics.count == 4)
        #expect(diagnostics.allSatisfy { $0.message.contains("is a 'let' with a literal initial value") })
        #expect(diagnostics.allSatisfy { $0.fixIts.first?.message.message == "Replace 'let' with 'var'" })
    }

    @Test func letRelationshipsAndExternalStorageAreErrorsWithFixIt() throws {
        let (_, diagnostics) = expand("""
        @Model final class A {
            @Relationship(deleteRule: .cascade) let items: [Item]
            @Attribute(.externalStorage) let photo: Data
        }
        """)
        #expect(diagnostics.map(\.message) == [
            "@Model relationship 'items' must be declared with 'var': its inverse is kept up to date by assigning it",
            "@Model property 'photo' with external storage must be declared with 'var': its value is loaded on first read",
        ])
        #expect(diagnostics.allSatisfy { $0.fixIts.first?.message.message == "Replace 'let' with 'var'" })
    }

    @Test func unsupportedTypesAreErrors() {
        let (_, diagnostics) = expand("""
        @Model final class A {
            var callback: () -> Void
            var pair: (Int, Int)
            var anything: Any
            var shape: any Equatable
        }
        """)
        let messages = diagnostics.map(\.message)
        #expect(messages.count == 4)
        #expect(messages[0].contains("'callback' has type '() -> Void', which cannot be persisted: functions cannot be stored"))
        #expect(messages[1].contains("tuples cannot be stored"))
        #expect(messages[2].contains("'Any' has no stored representation"))
        #expect(messages[3].contains("existential"))
    }

    @Test func aTypeInferredFromTheInitialValueIsAccepted() throws {
        // As in SwiftData: the metadata takes the type from the key path `\A.count`.
        let (expanded, diagnostics) = expand("@Model final class A { var count = 3\n var stops = [String]() }")
        #expect(diagnostics.isEmpty)
        #expect(expanded.contains("PropertyMetadata(name: \"count\", keyPath: \\A.count, defaultValue: {"))
        #expect(expanded.contains("@OpenSwiftData._PersistedProperty(index: 1)\n var stops = [String]()"))
    }

    @Test func transientWithoutDefaultIsAnError() {
        let (_, diagnostics) = expand("@Model final class A { @Transient var cache: Int }")
        #expect(diagnostics.map(\.message) == ["@Transient property 'cache' needs a default value: models loaded from the store are created without calling your initializer"])
    }

    @Test func lazyAndObservedPropertiesAreErrors() {
        let (_, diagnostics) = expand("""
        @Model final class A {
            lazy var a: Int = 1
            var b: Int = 0 { didSet { } }
        }
        """)
        #expect(diagnostics.count == 2)
        #expect(diagnostics[0].message.contains("cannot be 'lazy'"))
        #expect(diagnostics[1].message.contains("willSet/didSet"))
    }
}
