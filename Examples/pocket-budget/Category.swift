// The seed's Category enum is not shown; it says only that it must be Codable. Stored by raw
// value, so predicates on it work.
enum Category: String, Codable, CaseIterable {
    case food, transport, housing, fun, other
}
