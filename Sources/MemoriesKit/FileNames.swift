import Foundation

/// Export file names: from the original names, made safe for any destination (one path
/// component; no control character, nor any character Windows, exFAT or FAT forbid: `< > : " | ?
/// *`; not a Windows device name such as `CON` or `LPT1`; not hidden; no trailing dot or space; not
/// too long) and unique within the folder as a case-insensitive, normalization-insensitive file
/// system (exFAT, FAT, APFS) compares them. An export is made for USB sticks and other people's
/// machines: the rules are the strictest, whatever the folder's own file system.
struct FileNames {
    private var used = Set<String>()
    private var usedSimple = Set<String>()

    /// How a file system that ignores case and Unicode normalization (APFS) sees a name: composed,
    /// upper-cased (σ and final ς are both Σ; lower-casing kept them apart), composed again (an
    /// "i" and a combining dot above upper-case to "İ").
    static func key(_ name: String) -> String { name.precomposedStringWithCanonicalMapping.uppercased().precomposedStringWithCanonicalMapping }

    /// How exFAT and FAT see a name: each character upper-cased on its own, to one character (the
    /// medium's upcase table), nothing normalized. The two differ: exFAT takes "ᾳ" and "ᾼ", or
    /// "i̇" and "İ" spelled with a combining dot, for one name, where `key` saw two (the second
    /// outside attack's); a name is taken when either says so.
    static func simpleKey(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            let upper = scalar.properties.uppercaseMapping.unicodeScalars
            if upper.count == 1 { return upper.first! }
            let title = scalar.properties.titlecaseMapping.unicodeScalars
            return title.count == 1 ? title.first! : scalar
        }))
    }

    /// Whether `name` is taken, or reserved, on a medium of either kind.
    func isTaken(_ name: String) -> Bool {
        used.contains(Self.key(name)) || usedSimple.contains(Self.simpleKey(name))
            || Self.reservedKeys.contains(Self.key(name)) || Self.reservedKeys.contains(Self.simpleKey(name))
    }

    /// A safe, unused name for `original`, with `ext` as its extension when given.
    mutating func claim(_ original: String, extension ext: String? = nil) -> String {
        var base = Self.sanitize(original)
        var suffix = (base as NSString).pathExtension
        if suffix.utf8.count > 10 { suffix = "" }
        base = suffix.isEmpty ? base : String(base.dropLast(suffix.count + 1))
        // At most 180 bytes of UTF-8 before the extension, cut on a character boundary, and
        // ending neither in a dot nor a space (Windows drops them; the cut may leave one).
        while base.utf8.count > 180 { base.removeLast() }
        while let last = base.last, last == "." || last == " " { base.removeLast() }
        if let ext, suffix.lowercased() != ext.lowercased() && !(ext == "jpg" && suffix.lowercased() == "jpeg") { suffix = ext }
        if base.isEmpty { base = "image" }
        // A Windows device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9, CONIN$, CONOUT$), with any
        // extension and whatever spaces or dots follow it, is not a file where Windows reads the medium.
        if let stem = base.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first,
           Self.deviceNames.contains(stem.trimmingCharacters(in: CharacterSet(charactersIn: " .")).uppercased()) {
            base = stem + "_" + base.dropFirst(stem.count)
        }
        var candidate = suffix.isEmpty ? base : "\(base).\(suffix)"
        var n = 2
        while isTaken(candidate) {
            candidate = suffix.isEmpty ? "\(base) (\(n))" : "\(base) (\(n)).\(suffix)"
            n += 1
        }
        used.insert(Self.key(candidate))
        usedSimple.insert(Self.simpleKey(candidate))
        return candidate
    }

    /// The name `claim` gives `original` in an empty folder.
    static func first(_ original: String, extension ext: String? = nil) -> String {
        var names = FileNames()
        return names.claim(original, extension: ext)
    }

    /// Takes `name` as it is (a file already in the folder), so that no claim gives it.
    mutating func reserve(_ name: String) {
        used.insert(Self.key(name))
        usedSimple.insert(Self.simpleKey(name))
    }

    /// A plain-ASCII name for `name` (transliterated: "été" → "ete", "東京" → "dong jing"; what
    /// has no Latin form becomes "_"), claimed like any other, for a medium that refused `name`
    /// (Debian's fusefat refuses every name that is not ASCII); nil when `name` is ASCII already.
    mutating func plain(for name: String) -> String? {
        guard !name.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        let latin = name.applyingTransform(StringTransform(rawValue: "Any-Latin; Latin-ASCII"), reverse: false) ?? name
        let ascii = String(String.UnicodeScalarView(latin.unicodeScalars.map { $0.isASCII ? $0 : "_" }))
        return claim(ascii)
    }

    /// Windows' device names.
    static let deviceNames: Set<String> = Set(["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
        + ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u{B9}", "\u{B2}", "\u{B3}"].flatMap { ["COM\($0)", "LPT\($0)"] })

    /// Names the export writes itself.
    static let reserved: Set<String> = ["manifest.json", "index.html", "thumbs", "previews"]
    static let reservedKeys = Set(reserved.map(key))

    static func sanitize(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: out.append("_")         // control characters, newlines
            case 0x2F, 0x5C: out.append("_")                           // "/" and "\": no path components
            case 0x3C, 0x3E, 0x3A, 0x22, 0x7C, 0x3F, 0x2A: out.append("_") // < > : " | ? *: Windows, exFAT, FAT
            case 0xFFFD: out.append("_")                               // invalid UTF-8 in the original
            default: out.unicodeScalars.append(scalar)
            }
        }
        // Not hidden, not "." or "..", no leading or trailing spaces.
        while let first = out.first, first == "." || first == " " || first == "-" { out.removeFirst() }
        while let last = out.last, last == " " || last == "." { out.removeLast() }
        return out
    }
}
