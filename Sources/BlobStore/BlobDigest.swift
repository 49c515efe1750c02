/// The SHA-256 of a blob's content: 64 lower-case hex characters, which is also its file name.
public struct BlobDigest: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The 64 lower-case hex characters.
    public let hex: String

    /// Accepts exactly 64 hex characters (upper case is folded to lower case).
    public init?(hex: String) {
        let lower = hex.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.hex = lower
    }

    /// Accepts exactly 64 lower-case hex characters, as file names in the store are.
    package init?<S: StringProtocol>(exactHex text: S) {
        guard text.utf8.count == 64, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        hex = String(text)
    }

    init(bytes: [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        hex = String(decoding: out, as: UTF8.self)
    }

    /// The two-character fan-out folder.
    public var prefix: Substring { hex.prefix(2) }
    /// The hex form.
    public var description: String { hex }
    /// Ordered by their hex form.
    public static func < (a: Self, b: Self) -> Bool { a.hex < b.hex }

    /// Decodes the hex form; anything else is a data-corrupted error.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let digest = BlobDigest(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a SHA-256 hex digest: \(text)"))
        }
        self = digest
    }

    /// Encodes the hex form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

extension BlobStore {
    /// The SHA-256 of no bytes: the one blob that may rightly be empty.
    public static let emptyDigest = BlobDigest(hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")!
}
