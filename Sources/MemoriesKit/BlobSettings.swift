import BlobStore
import BlobStoreS3
import Foundation

/// Where a library keeps its photos when they are not in its own folder: an S3 bucket, recorded
/// in `blobs.json` in the library folder when the library is made (`memories init --blobs`).
///
/// Credentials are never written there: each start reads them from `AWS_ACCESS_KEY_ID` /
/// `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`), else from `profile` (or `AWS_PROFILE`, else
/// "default") in `~/.aws/credentials`. Thumbnails and originals both go to the bucket; the store
/// (`library.store`) and the lock stay in the folder.
public struct BlobSettings: Codable, Equatable, Sendable {
    /// `s3://bucket/prefix`.
    public var url: String
    /// The service, `scheme://host[:port]` (no keys: those come from the environment or ~/.aws/credentials).
    public var endpoint: String
    /// The region requests are signed for (`us-east-1` unless the service wants another).
    public var region: String
    /// Path-style addressing (`endpoint/bucket/key`); false for virtual-host style (`bucket.host/key`).
    public var pathStyle: Bool
    /// The credentials profile to use, by name (never the keys).
    public var profile: String?

    /// The file in the library folder that holds these settings.
    public static let fileName = "blobs.json"

    /// Checks the location's form (the service is not asked).
    public init(url: String, endpoint: String, region: String = "us-east-1", pathStyle: Bool = true, profile: String? = nil) throws {
        _ = try S3Location(url, endpoint: endpoint, region: region, pathStyle: pathStyle)
        self.url = url
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
        self.profile = profile
    }

    /// The settings of the library in `directory`, nil when its photos are in its folder.
    static func load(from directory: URL) throws -> BlobSettings? {
        let file = directory.appendingPathComponent(fileName)
        // Only a file that is not there means "in the folder": any other failure to read it is an
        // error, never a silent switch to the folder.
        var status = stat()
        guard lstat(file.path, &status) == 0 || errno != ENOENT else { return nil }
        if (status.st_mode & S_IFMT) == S_IFLNK && access(file.path, F_OK) != 0 && errno == ENOENT {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)) ?? "?"
            throw LibraryError.badSettings(file.path, "it is a symbolic link to \(target), which is not there")
        }
        if stat(file.path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
            throw LibraryError.badSettings(file.path, "it is not a file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) }
            throw LibraryError.badSettings(file.path, code.map { String(cString: strerror($0)) } ?? error.localizedDescription)
        }
        do {
            return try JSONDecoder().decode(BlobSettings.self, from: data)
        } catch let error as DecodingError {
            throw LibraryError.badSettings(file.path, Self.words(error))
        }
    }

    /// What is wrong with a settings file, in words (DecodingError's own description names Swift types).
    static func words(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String { path.isEmpty ? "it" : "\"" + path.map(\.stringValue).joined(separator: ".") + "\"" }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "it is not JSON"
        case .dataCorrupted(let context):
            return "\(field(context.codingPath)) is not what it should be"
        case .keyNotFound(let key, let context):
            return "\(field(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let kinds: [ObjectIdentifier: String] = [ObjectIdentifier(String.self): "text", ObjectIdentifier(Bool.self): "true or false"]
            return "\(field(context.codingPath)) should be \(kinds[ObjectIdentifier(type)] ?? "an object")"
        @unknown default:
            return "it is not what it should be"
        }
    }

    /// Writes `blobs.json` durably: a temporary file, synced, renamed over, the folder synced.
    func write(to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let final = directory.appendingPathComponent(Self.fileName).path
        try BlobStore.writeDurably(try encoder.encode(self), to: final, temporary: final + ".\(UUID().uuidString).part")
    }

    /// The S3 store these settings name, with credentials resolved now; locked through `lockDirectory`.
    func backend(lockDirectory: URL) throws -> S3BlobStore {
        let location = try S3Location(url, endpoint: endpoint, region: region, pathStyle: pathStyle)
        let client = S3Client(location: location, credentials: try S3Credentials.resolve(profile: profile))
        // MEMORIES_S3_TIMEOUT=SECONDS: how long to wait for a connection, and for data in a
        // transfer that has stalled (defaults 10 and 30), before a request is retried or given up.
        if let seconds = ProcessInfo.processInfo.environment["MEMORIES_S3_TIMEOUT"].flatMap(Int.init), seconds > 0 {
            client.connectTimeout = seconds
            client.stallTimeout = seconds
        }
        return try S3BlobStore(client: client, lockDirectory: lockDirectory)
    }
}
