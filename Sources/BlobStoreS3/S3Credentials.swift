import BlobStore
import Foundation

/// An access key for S3 request signing. Never written into a library: read at each start from the
/// environment or from `~/.aws/credentials`, as the AWS tools read it.
public struct S3Credentials: Sendable, Equatable {
    /// AWS_ACCESS_KEY_ID.
    public var accessKey: String
    /// AWS_SECRET_ACCESS_KEY (never written anywhere).
    public var secretKey: String
    /// A temporary credential's token (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials given directly (tests, other tools).
    public init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` if set; else the profile
    /// (`profile`, else `AWS_PROFILE`, else "default") of `AWS_SHARED_CREDENTIALS_FILE` or
    /// `~/.aws/credentials`. Throws `S3Error.noCredentials` saying where it looked, and
    /// `S3Error.credentialsReadableByOthers` for a file whose keys others can read.
    public static func resolve(profile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> S3Credentials {
        if profile == nil, let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty {
            return S3Credentials(accessKey: key, secretKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        }
        let name = profile ?? environment["AWS_PROFILE"] ?? "default"
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"]
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.aws/credentials")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw S3Error.noCredentials("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add a [\(name)] profile to \(path)")
        }
        let values = parseProfile(name, in: text)
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw S3Error.noCredentials("no S3 credentials: \(path) has no [\(name)] profile with aws_access_key_id and aws_secret_access_key")
        }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & Privacy.othersBits != 0 {
            throw S3Error.credentialsReadableByOthers(path: path, mode: status.st_mode)
        }
        return S3Credentials(accessKey: key, secretKey: secret, sessionToken: values["aws_session_token"])
    }

    /// The `key = value` lines of `[name]` in an INI-style credentials file.
    static func parseProfile(_ name: String, in text: String) -> [String: String] {
        var current: String?
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard current == name, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}
