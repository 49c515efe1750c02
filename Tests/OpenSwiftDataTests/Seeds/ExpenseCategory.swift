// The seed names a Category enum but does not show it; it says it must be Codable.
enum Category: String, Codable, CaseIterable {
    case food, transport, housing, fun
}
