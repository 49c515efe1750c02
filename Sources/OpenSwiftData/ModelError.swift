import Foundation

/// Errors of the model layer, each naming what it is about.
public enum ModelError: Error, Equatable, LocalizedError {
    /// The model type is not part of the container's schema.
    case unknownModel(String)
    /// A property's type has no stored representation.
    case unsupportedType(model: String, property: String, type: String)
    /// A save would store a second row with the same value of a `.unique` property
    /// (only with `UniquenessPolicy.fail`; the default policy updates the existing row).
    case uniqueConstraintViolation(model: String, property: String)
    /// A model was used with a context it does not belong to.
    case foreignModel(String)
    /// A stored value could not be read back as the property's type.
    case corruptValue(model: String, property: String, stored: String)
    /// A relationship's delete rule is `.deny` and related models exist.
    case deleteDenied(model: String, relationship: String)

    public var errorDescription: String? {
        switch self {
        case .unknownModel(let name):
            return "\(name) is not in this container's schema; add it to ModelContainer(for:)"
        case .unsupportedType(let model, let property, let type):
            return "\(model).\(property) has type \(type), which cannot be stored; make it Codable or mark it @Transient"
        case .uniqueConstraintViolation(let model, let property):
            return "another \(model) already has this \(property) (the property is @Attribute(.unique))"
        case .foreignModel(let name):
            return "this \(name) belongs to another ModelContext"
        case .corruptValue(let model, let property, let stored):
            return "the stored value of \(model).\(property) cannot be read: \(stored)"
        case .deleteDenied(let model, let relationship):
            return "cannot delete this \(model): its relationship '\(relationship)' has delete rule .deny and is not empty"
        }
    }
}
