import SwiftDiagnostics

/// Every compile-time error the model macros report.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass(String)
    case constantRelationship(String)
    case constantLiteral(String)
    case constantExternalStorage(String)
    case multipleBindings
    case lazyProperty(String)
    case observers(String)
    case missingType(String)
    case unsupportedType(String, String, String)
    case transientNeedsDefault(String)

    var message: String {
        switch self {
        case .notAClass(let kind):
            return "@Model can only be applied to a class, not to a \(kind)"
        case .constantLiteral(let name):
            return "@Model property '\(name)' is a 'let' with a literal initial value, which the compiler may read in its place, so a stored value would not be seen; declare it with 'var', or give it its value in init"
        case .constantRelationship(let name):
            return "@Model relationship '\(name)' must be declared with 'var': its inverse is kept up to date by assigning it"
        case .constantExternalStorage(let name):
            return "@Model property '\(name)' with external storage must be declared with 'var': its value is loaded on first read"
        case .multipleBindings:
            return "@Model needs one property per 'var' declaration"
        case .lazyProperty(let name):
            return "@Model property '\(name)' cannot be 'lazy'; mark it @Transient or remove 'lazy'"
        case .observers(let name):
            return "@Model property '\(name)' cannot have willSet/didSet observers"
        case .missingType(let name):
            return "@Model property '\(name)' needs a type annotation or an initial value"
        case .unsupportedType(let name, let type, let reason):
            return "@Model property '\(name)' has type '\(type)', which cannot be persisted: \(reason); mark it @Transient to keep it in memory only"
        case .transientNeedsDefault(let name):
            return "@Transient property '\(name)' needs a default value: models loaded from the store are created without calling your initializer"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .constantRelationship: id = "constantRelationship"
        case .constantLiteral: id = "constantLiteral"
        case .constantExternalStorage: id = "constantExternalStorage"
        case .multipleBindings: id = "multipleBindings"
        case .lazyProperty: id = "lazyProperty"
        case .observers: id = "observers"
        case .missingType: id = "missingType"
        case .unsupportedType: id = "unsupportedType"
        case .transientNeedsDefault: id = "transientNeedsDefault"
        }
        return MessageID(domain: "OpenSwiftDataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

enum ModelFixIt: FixItMessage {
    case replaceLetWithVar
    case useFinalClass

    var message: String {
        switch self {
        case .replaceLetWithVar: return "Replace 'let' with 'var'"
        case .useFinalClass: return "Declare it as a 'final class'"
        }
    }

    var fixItID: MessageID {
        switch self {
        case .replaceLetWithVar: return MessageID(domain: "OpenSwiftDataMacros", id: "replaceLetWithVar")
        case .useFinalClass: return MessageID(domain: "OpenSwiftDataMacros", id: "useFinalClass")
        }
    }
}
