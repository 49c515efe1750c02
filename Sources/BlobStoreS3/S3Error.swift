import BlobStore
import Foundation

/// What went wrong talking to an S3-compatible service, in words that say what to do.
public enum S3Error: Error, Equatable, LocalizedError {
    case invalidLocation(String)
    /// No access key: neither AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY nor the profile in ~/.aws/credentials.
    case noCredentials(String)
    /// The credentials file others can read (its path and mode): refused, as ssh refuses a readable key.
    case credentialsReadableByOthers(path: String, mode: mode_t)
    /// The service answered with an error: HTTP status, S3 error code (`NoSuchBucket`…), its message, what was asked.
    case service(status: Int, code: String, message: String, request: String)
    /// No answer: connection refused, timed out, reset (after the retries), with curl's words.
    case network(String, request: String)
    /// A write answered 2xx without confirming the bytes (no ETag that is their MD5): why, and what was asked.
    case unconfirmed(String, request: String)
    /// The service refused the request's signature because the clocks differ: this machine's
    /// clock minus the service's (from its `Date`), in seconds, and that `Date`.
    case clockSkew(seconds: Int, serviceDate: String, request: String)
    /// The last failure of a request tried `tries` times over `seconds` (retryable failures only).
    indirect case gaveUp(S3Error, tries: Int, seconds: Double)

    /// What went wrong, naming the key or bucket, and for keys what to check.
    public var errorDescription: String? {
        switch self {
        case .invalidLocation(let text): return text
        case .noCredentials(let text): return text
        case .credentialsReadableByOthers(let path, let mode):
            return "\(path) can be read by other users (mode \(String(mode & 0o777, radix: 8))), so the keys in it are theirs too; "
                + "make it yours alone (chmod 600 \(path)) and run the command again"
        case .service(let status, let code, let message, let request):
            let detail = message.isEmpty ? "" : ": \(message)"
            switch code {
            case "InvalidAccessKeyId": return "\(request): the access key is not known to the service (HTTP \(status) \(code)); check AWS_ACCESS_KEY_ID or the profile"
            case "SignatureDoesNotMatch": return "\(request): the secret key does not match the access key (HTTP \(status) \(code)); check AWS_SECRET_ACCESS_KEY or the profile"
            case "NoSuchBucket": return "\(request): the bucket does not exist (HTTP \(status) \(code)); create it or fix the s3:// location"
            case "AccessDenied": return "\(request): access denied (HTTP \(status)); the key lacks permission for this bucket"
            case "NoSuchKey": return "\(request): no such object (HTTP \(status))"
            default:
                // A HEAD's error has no body: its code is only the status again.
                let named = code.isEmpty || code == "HTTP\(status)" ? "" : " \(code)"
                let meaning = [429: " (too many requests)", 500: " (internal error)", 502: " (bad gateway)", 503: " (unavailable)",
                               504: " (gateway timeout)"][status] ?? ""
                return "\(request): the service answered HTTP \(status)\(named.isEmpty ? meaning : named)\(detail)"
            }
        case .network(let text, let request): return "\(request): \(text)"
        case .unconfirmed(let reason, let request):
            return "\(request): the service did not confirm the write: \(reason)"
        case .clockSkew(let seconds, let date, let request):
            let ahead = seconds >= 0
            return "\(request): refused because this machine's clock is \(Self.duration(abs(seconds))) \(ahead ? "ahead of" : "behind") the service's "
                + "(its answer was dated \(date)); S3 refuses requests signed more than 15 minutes off. Set this machine's clock right "
                + "(`timedatectl set-ntp true`, or `date -s`) and run the same command again"
        case .gaveUp(let last, let tries, let seconds):
            let advice: String
            switch last {
            case .network: advice = "check that the service is running and reachable, then run the same command again"
            case .unconfirmed: advice = "something between here and the service (a proxy or gateway) answers for it; nothing was taken as stored"
            default: advice = "the service is failing or overloaded; run the same command again later"
            }
            return (last.errorDescription ?? "\(last)") + " (\(tries) tries over \(String(format: "%.1f", seconds)) s; \(advice))"
        }
    }

    /// "2 h 3 min", "14 min", "40 s".
    static func duration(_ seconds: Int) -> String {
        if seconds >= 3600 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        if seconds >= 60 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    /// The S3 error code, or "" for errors that are not the service's answer (through the retries).
    public var code: String {
        if case .service(_, let code, _, _) = self { return code }
        if case .gaveUp(let last, _, _) = self { return last.code }
        return ""
    }
}
