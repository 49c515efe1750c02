import Foundation

/// Export file names: from the original names, made safe (one path component, no control
/// characters, not hidden, not too long) and unique within the folder (case ignored).
struct FileNames {
    private var used = Set<String>()

    /// A safe, unused name for `original`, with `ext` as its extension when given.
    mutating func claim(_ original: String, extension ext: String? = nil) -> String {
        var base = Self.sanitize(original)
        var suffix = (base as NSString).pathExtension
        if suffix.utf8.count > 10 { suffix = "" }
        base = suffix.isEmpty ? base : String(base.dropLast(suffix.count + 1))
        // At most 180 bytes of UTF-8 before the extension, cut on a character boundary.
        while base.utf8.count > 180 { base.removeLast() }
        if let ext, suffix.lowercased() != ext.lowercased() && !(ext == "jpg" && suffix.lowercased() == "jpeg") { suffix = ext }
        if base.isEmpty { base = "image" }
        var candidate = suffix.isEmpty ? base : "\(base).\(suffix)"
        var n = 2
        while used.contains(candidate.lowercased()) || Self.reserved.contains(candidate.lowercased()) {
            candidate = suffix.isEmpty ? "\(base) (\(n))" : "\(base) (\(n)).\(suffix)"
            n += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }

    /// Names the export writes itself.
    static let reserved: Set<String> = ["manifest.json", "index.html", "thumbs", "previews"]

    static func sanitize(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: out.append("_")         // control characters, newlines
            case 0x2F, 0x5C: out.append("_")                           // "/" and "\": no path components
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
