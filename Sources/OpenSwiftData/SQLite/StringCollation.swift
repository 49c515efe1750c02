import Foundation

/// How a fetch orders strings, as `SortDescriptor`'s string comparator asks.
///
/// `standard` (`.localizedStandard`, and what `SortDescriptor(\.name)` means in SwiftData) and
/// `localized` are SQLite collations registered on every connection. They give the order of
/// Foundation's `compare(_:options:locale:)` in the current locale (ICU). Most comparisons are
/// decided by the fast path below without Foundation: for two printable-ASCII strings, the
/// first difference in ICU's primary order (case ignored; with `standard`, digit runs compared
/// by value) decides, after the bytes both begin with. Strings equal at that level, and any
/// other text, go to Foundation.
enum StringCollation {
    case binary, standard, localized

    /// The collation's SQLite name, or nil for SQLite's own byte order.
    var name: String? {
        switch self {
        case .binary: return nil
        case .standard: return "osd_standard"
        case .localized: return "osd_localized"
        }
    }

    var options: String.CompareOptions {
        self == .standard ? [.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering] : []
    }

    func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int32 {
        // Bytes both strings begin with weigh the same at every level, so they can be set aside,
        // up to a point where no character or digit run is cut: after an ASCII non-digit, before
        // ASCII in both (anything else might combine with what precedes it).
        var start = 0
        var i = 0
        while i < a.count && i < b.count && a[i] == b[i] {
            i += 1
            let before = a[i - 1]
            if before < 0x80 && !Self.isDigit(before) && (i == a.count || a[i] < 0x80) && (i == b.count || b[i] < 0x80) { start = i }
        }
        let a = UnsafeBufferPointer(rebasing: a[start...]), b = UnsafeBufferPointer(rebasing: b[start...])
        if let quick = primaryASCII(a, b, numeric: self == .standard) { return quick }
        let left = String(decoding: a, as: UTF8.self), right = String(decoding: b, as: UTF8.self)
        switch left.compare(right, options: options, range: nil, locale: Locale.current) {
        case .orderedAscending: return -1
        case .orderedDescending: return 1
        case .orderedSame: return 0
        }
    }

    /// -1 or 1 when both strings are printable ASCII and differ in primary order; nil otherwise.
    private func primaryASCII(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, numeric: Bool) -> Int32? {
        let rank = Self.primaryRank
        var i = 0, j = 0
        while i < a.count && j < b.count {
            let x = a[i], y = b[j]
            guard rank[Int(x)] != 0 && rank[Int(y)] != 0 else { return nil }
            if numeric && Self.isDigit(x) && Self.isDigit(y) {
                // Digit runs compare by value: skip leading zeros, then the longer run is larger.
                var ei = i, ej = j
                while ei < a.count && Self.isDigit(a[ei]) { ei += 1 }
                while ej < b.count && Self.isDigit(b[ej]) { ej += 1 }
                var si = i, sj = j
                while si < ei - 1 && a[si] == UInt8(ascii: "0") { si += 1 }
                while sj < ej - 1 && b[sj] == UInt8(ascii: "0") { sj += 1 }
                if ei - si != ej - sj { return ei - si < ej - sj ? -1 : 1 }
                while si < ei {
                    if a[si] != b[sj] { return a[si] < b[sj] ? -1 : 1 }
                    si += 1; sj += 1
                }
                i = ei; j = ej
                continue
            }
            // With `numeric`, every digit run ranks as a number, below all letters.
            let rx = numeric && Self.isDigit(x) ? rank[Int(UInt8(ascii: "0"))] : rank[Int(x)]
            let ry = numeric && Self.isDigit(y) ? rank[Int(UInt8(ascii: "0"))] : rank[Int(y)]
            if rx != ry { return rx < ry ? -1 : 1 }
            i += 1; j += 1
        }
        if i < a.count || j < b.count {
            // One is a prefix of the other at the primary level: the shorter sorts first, if the
            // rest is printable ASCII (anything else might be ignorable).
            let rest = i < a.count ? a[i...] : b[j...]
            guard rest.allSatisfy({ rank[Int($0)] != 0 }) else { return nil }
            return i < a.count ? 1 : -1
        }
        return nil
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// Each printable ASCII byte's place in ICU's primary order (1-based; 0 for other bytes),
    /// measured once from Foundation itself: upper and lower case letters share a place.
    static let primaryRank: [UInt8] = {
        var rank = [UInt8](repeating: 0, count: 256)
        let characters = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }
        let sorted = characters.sorted {
            $0.compare($1, options: [.caseInsensitive], range: nil, locale: Locale.current) == .orderedAscending
        }
        var place: UInt8 = 1
        for (index, character) in sorted.enumerated() {
            if index > 0 && sorted[index - 1].compare(character, options: [.caseInsensitive], range: nil, locale: Locale.current) != .orderedSame {
                place += 1
            }
            rank[Int(character.utf8.first!)] = place
        }
        return rank
    }()
}
