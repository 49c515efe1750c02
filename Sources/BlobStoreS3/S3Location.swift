import BlobStore
import Foundation

/// Where a store's objects live in an S3-compatible service: endpoint, region, bucket and key prefix.
///
/// ```swift
/// let location = try S3Location("s3://family-photos/journal", endpoint: "http://127.0.0.1:7480")
/// location.url(for: "sha256/ab/ab12…")   // http://127.0.0.1:7480/family-photos/journal/sha256/ab/ab12…
/// ```
public struct S3Location: Sendable, Equatable, Codable {
    /// `http://host:port` or `https://host`, without a path.
    public var endpoint: String
    /// The region requests are signed for.
    public var region: String
    /// The bucket's name.
    public var bucket: String
    /// Prepended to every key, without leading or trailing slashes ("" for none).
    public var prefix: String
    /// Path-style addressing (`endpoint/bucket/key`, what Ceph, MinIO and Garage serve by default);
    /// false for virtual-host style (`bucket.endpoint/key`, what AWS prefers).
    public var pathStyle: Bool

    /// Parses `s3://bucket[/prefix]`. Throws `S3Error.invalidLocation` naming what is wrong.
    public init(_ url: String, endpoint: String, region: String = "us-east-1", pathStyle: Bool = true) throws {
        guard url.hasPrefix("s3://") else { throw S3Error.invalidLocation("\(url): an S3 location starts with s3://") }
        let rest = url.dropFirst(5)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts.first ?? "")
        guard S3Location.isValidBucket(bucket) else {
            throw S3Error.invalidLocation("\(url): '\(bucket)' is not a bucket name (3–63 lowercase letters, digits, dots and hyphens)")
        }
        guard let parsed = URL(string: endpoint), let scheme = parsed.scheme, ["http", "https"].contains(scheme), parsed.host != nil else {
            throw S3Error.invalidLocation("\(endpoint): the endpoint is a URL such as https://s3.example.com or http://127.0.0.1:7480")
        }
        // Keys never go in the endpoint (it is written into the library and shown in messages).
        guard parsed.user == nil, parsed.password == nil, parsed.query == nil, parsed.path.isEmpty || parsed.path == "/" else {
            throw S3Error.invalidLocation("the endpoint is scheme://host[:port] only, without a user, password, path or query "
                                          + "(keys come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws/credentials)")
        }
        // A bucket cannot be a label in front of an IP address.
        guard pathStyle || !(parsed.host!.allSatisfy { $0.isNumber || $0 == "." } || parsed.host!.contains(":")) else {
            throw S3Error.invalidLocation("\(endpoint): virtual-host addressing puts the bucket in the host name, which an IP address cannot carry; use a host name or path style")
        }
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = parts.count > 1 ? parts[1].split(separator: "/").joined(separator: "/") : ""
        self.pathStyle = pathStyle
    }

    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." }
            && name.first!.isLetterOrDigit && name.last!.isLetterOrDigit
    }

    /// The full object key for `key` (the prefix in front).
    public func objectKey(_ key: String) -> String { prefix.isEmpty ? key : prefix + "/" + key }

    /// `endpoint/bucket` (path style) or `scheme://bucket.host` (virtual-host style).
    var base: String {
        guard !pathStyle else { return endpoint + "/" + bucket }
        let scheme = endpoint.hasPrefix("https://") ? "https://" : "http://"
        return scheme + bucket + "." + endpoint.dropFirst(scheme.count)
    }

    /// The bucket's URL with `query` (already encoded, its parameters sorted by name, as SigV4 signs them).
    func bucketURL(query: String = "") -> String { base + "/" + (query.isEmpty ? "" : "?" + query) }

    /// The URL of the object `key` (the prefix added, each segment percent-encoded).
    public func url(for key: String) -> String {
        base + "/" + objectKey(key).split(separator: "/", omittingEmptySubsequences: false).map { S3Location.encode(String($0)) }.joined(separator: "/")
    }

    /// RFC 3986 unreserved characters stay; everything else is %XX (what SigV4's canonical form wants).
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

private extension Character {
    var isLetterOrDigit: Bool { isLetter || isNumber }
}
