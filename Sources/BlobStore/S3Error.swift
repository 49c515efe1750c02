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
            default: return "\(request): HTTP \(status) \(code)\(detail)"
            }
        case .network(let text, let request): return "\(request): \(text)"
        }
    }

    /// The S3 error code, or "" for errors that are not the service's answer.
    public var code: String {
        if case .service(_, let code, _, _) = self { return code }
        return ""
    }
}
