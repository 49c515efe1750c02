import Foundation

// `String.StandardComparator.localizedStandard` and `.localized`, which SwiftData code passes to
// `SortDescriptor`. Foundation on Linux declares only `.lexical` (swift-foundation issue #284)
// and has no public way to make the other two, so they are built here with the same stored
// fields Apple's have; a fetch sorts by them in SQLite by the matching sort key (see
// `StringCollation`). In memory, Foundation on Linux compares them without a locale.
extension String.StandardComparator {
    /// Compares strings as the Finder does: case-insensitive, numbers by value, in the current locale.
    public static let localizedStandard = make(options: [.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering], localized: true)
    /// Compares strings in the current locale.
    public static let localized = make(options: [], localized: true)

    /// The collation a fetch sorts by for this comparator (its order aside).
    var collation: StringCollation {
        let forward = String.StandardComparator(self, order: .forward)
        if forward == .localizedStandard { return .standard }
        if forward == .localized { return .localized }
        return .binary
    }

    private static func make(options: String.CompareOptions, localized: Bool) -> String.StandardComparator {
        // The stored fields of swift-foundation's `StandardComparator`, in its order.
        struct Fields {
            var options: String.CompareOptions
            var isLocalized: Bool
            var order: SortOrder
        }
        precondition(MemoryLayout<Fields>.size == MemoryLayout<String.StandardComparator>.size,
                     "OpenSwiftData: Foundation's String.StandardComparator changed its layout")
        let made = unsafeBitCast(Fields(options: options, isLocalized: localized, order: .forward), to: String.StandardComparator.self)
        let fields = Dictionary(uniqueKeysWithValues: Mirror(reflecting: made).children.map { ($0.label ?? "", "\($0.value)") })
        precondition(fields["isLocalized"] == "\(localized)" && fields["options"] == "\(options)",
                     "OpenSwiftData: Foundation's String.StandardComparator changed its fields")
        return made
    }
}
