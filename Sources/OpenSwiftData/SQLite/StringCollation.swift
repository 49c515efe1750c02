import Foundation

/// How a fetch orders strings, as `SortDescriptor`'s string comparator asks.
///
/// `standard` (`.localizedStandard`, which `SortDescriptor(\.name)` means in SwiftData) and
/// `localized` sort by a key that SQLite computes once per row (`osd_standard_key(text)`,
/// `osd_localized_key(text)`) and compares as bytes. A key is a function of the string alone, so
/// the order is total and consistent whatever the text (comparing strings pair by pair through
/// Foundation is not: on Linux it is intransitive for some non-ASCII text, and wraps long digit
/// runs). The key is built in levels, like an ICU sort key:
///
/// 1. primary: the text folded for case, diacritics and width; printable ASCII in ICU's root
///    order (space, punctuation, symbols, digits, letters; other control characters ignored);
///    with `standard`, a run of digits is one number compared by value; other characters after
///    ASCII, by code point;
/// 2. diacritics: the text folded for case and width only, as UTF-8;
/// 3. case: lower case before upper case;
/// 4. the text itself, so that different strings never tie.
enum StringCollation {
    case binary, standard, localized

    /// The SQL function giving a value's sort key, or nil for SQLite's own byte order.
    var keyFunction: String? {
        switch self {
        case .binary: return nil
        case .standard: return "osd_standard_key"
        case .localized: return "osd_localized_key"
        }
    }

    /// Printable ASCII in ICU's root primary order, upper case letters ranking with lower case.
    static let asciiOrder = #" _-,;:!?.'"()[]{}@*/\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"#

    /// Each byte's primary weight: 0 for control characters, which are ignored as in ICU, except
    /// tab, line feed, vertical tab, form feed and carriage return (1); printable ASCII from 2.
    static let rank: [UInt8] = {
        var rank = [UInt8](repeating: 0, count: 128)
        for byte in 0x09...0x0D { rank[byte] = 1 }
        for (index, byte) in asciiOrder.utf8.enumerated() {
            rank[Int(byte)] = UInt8(index + 2)
            if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { rank[Int(byte - 32)] = UInt8(index + 2) }
        }
        return rank
    }()

    func key(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        let isASCII = utf8.allSatisfy { $0 < 0x80 }
        // Width and case folded (level 2), and also diacritics (level 1).
        let caseFolded = isASCII ? utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            : Array(text.folding(options: [.caseInsensitive, .widthInsensitive], locale: nil).utf8)
        let primaryText = isASCII ? caseFolded
            : Array(text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).utf8)
        var key: [UInt8] = []
        key.reserveCapacity(utf8.count * 3 + 4)
        appendPrimary(primaryText, to: &key)
        key.append(0)
        Self.appendEscaped(caseFolded, to: &key)
        key.append(0)
        for scalar in text.unicodeScalars { key.append(scalar.properties.isUppercase ? 2 : 1) }
        key.append(0)
        Self.appendEscaped(utf8, to: &key)
        return key
    }

    private func appendPrimary(_ text: [UInt8], to key: inout [UInt8]) {
        let rank = Self.rank
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        var i = 0
        while i < text.count {
            let byte = text[i]
            if byte < 0x80 {
                if self == .standard && byte >= zero && byte <= nine {
                    // A number: the weight of digits, its length without leading zeros, its digits.
                    var end = i
                    while end < text.count && text[end] >= zero && text[end] <= nine { end += 1 }
                    var start = i
                    while start < end - 1 && text[start] == zero { start += 1 }
                    let length = min(end - start, 0xFFFF)
                    key.append(rank[Int(zero)])
                    key.append(UInt8(length >> 8))
                    key.append(UInt8(length & 0xFF))
                    key.append(contentsOf: text[start..<start + length])
                    i = end
                    continue
                }
                if rank[Int(byte)] != 0 { key.append(rank[Int(byte)]) }
                i += 1
                continue
            }
            // A character beyond ASCII: after every ASCII weight, by code point.
            var length = 1
            if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 } else if byte >= 0xC0 { length = 2 }
            let end = min(i + length, text.count)
            var point: UInt32 = length == 1 ? UInt32(byte) : UInt32(byte) & (0xFF >> (length + 1))
            for j in (i + 1)..<max(i + 1, end) { point = point << 6 | UInt32(text[j] & 0x3F) }
            key.append(0xFF)
            key.append(UInt8(point >> 16 & 0xFF))
            key.append(UInt8(point >> 8 & 0xFF))
            key.append(UInt8(point & 0xFF))
            i = end
        }
    }

    /// Bytes with 0 and 1 escaped, so that 0 can end a level.
    private static func appendEscaped(_ bytes: [UInt8], to key: inout [UInt8]) {
        for byte in bytes {
            if byte <= 1 {
                key.append(1)
                key.append(byte + 1)
            } else {
                key.append(byte)
            }
        }
    }
}
