import Foundation
import Testing
@testable import BlobStore
@testable import BlobStoreS3

/// The endpoint of a real S3 service for the tests (`scripts/s3-test-cluster.sh start`, which
/// `.ci/run` does): S3_TEST_ENDPOINT and the keys in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.
/// Without it the tests that need the service are skipped, and scripts/test.sh says so loudly.
let s3Endpoint = ProcessInfo.processInfo.environment["S3_TEST_ENDPOINT"]

/// A client on a bucket of its own (made here), under a prefix, for one test.
func freshS3(prefix: String = "journal") throws -> S3Client {
    let bucket = "t-" + UUID().uuidString.lowercased().prefix(18)
    let client = S3Client(location: try S3Location("s3://\(bucket)/\(prefix)", endpoint: s3Endpoint!),
                          credentials: try S3Credentials.resolve())
    try client.createBucket()
    return client
}

@Suite(.enabled(if: s3Endpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3ClientTests {
    @Test func bytesGoUpComeBackAreListedAndDeleted() throws {
        let s3 = try freshS3()
        let data = Data("a photo, or near enough".utf8)
        let digest = SHA256.digest(data)
        let key = "sha256/\(digest.prefix)/\(digest.hex)"
        try s3.put(key, data: data, sha256: digest)
        let head = try #require(try s3.head(key))
        #expect(head.size == Int64(data.count))
        #expect(head.etag.count == 32, "a single-part upload's ETag is the MD5: \(head.etag)")
        #expect(try s3.get(key) == data)
        try s3.put("other/x", data: Data("x".utf8))
        #expect(try s3.list(prefix: "sha256/").map(\.key) == [key])
        #expect(Set(try s3.list().map(\.key)) == [key, "other/x"])
        // The prefix is part of the object's real key, and listings give keys below it.
        let bare = S3Client(location: try S3Location("s3://\(s3.location.bucket)", endpoint: s3Endpoint!), credentials: try S3Credentials.resolve())
        #expect(try bare.head("journal/" + key)?.size == Int64(data.count))
        try s3.delete(key)
        #expect(try s3.head(key) == nil)
        try s3.delete(key)  // again: S3 deletes are idempotent
        #expect(try s3.list(prefix: "sha256/").isEmpty)
    }

    @Test func aFileStreamsUpAndDownAndTheServiceChecksItsSHA256() throws {
        let s3 = try freshS3()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = Data(count: 9 << 20)
        bytes.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: UInt64(i) &* 0x9E37_79B9_7F4A_7C15, toByteOffset: i, as: UInt64.self) }
        }
        let source = dir.appendingPathComponent("big.jpg")
        try bytes.write(to: source)
        let digest = SHA256.digest(bytes)
        try s3.put("big", file: source.path, sha256: digest)
        let target = dir.appendingPathComponent("back.jpg")
        _ = FileManager.default.createFile(atPath: target.path, contents: nil)
        let fd = open(target.path, O_WRONLY)
        defer { close(fd) }
        #expect(try s3.get("big", into: fd) == Int64(bytes.count))
        #expect(try Data(contentsOf: target) == bytes)
        // An error's body is read as the error, not written into the file.
        let missing = dir.appendingPathComponent("missing.jpg")
        _ = FileManager.default.createFile(atPath: missing.path, contents: nil)
        let out = open(missing.path, O_WRONLY)
        defer { close(out) }
        let notThere = #expect(throws: S3Error.self) { try s3.get("no-such-key", into: out) }
        #expect(notThere?.code == "NoSuchKey")
        #expect(try Data(contentsOf: missing).isEmpty)
        // Above the threshold the file goes up in parts (here 5 MiB and 4 MiB), each part checked.
        s3.multipartThreshold = 6 << 20
        s3.partSize = 5 << 20
        try s3.put("big-in-parts", file: source.path, sha256: digest)
        let parted = try #require(try s3.head("big-in-parts"))
        #expect(parted.size == Int64(bytes.count) && parted.etag.hasSuffix("-2"), "a two-part upload's ETag: \(parted.etag)")
        #expect(SHA256.digest(try s3.get("big-in-parts")) == digest)
        #expect(try s3.list().map(\.key).sorted() == ["big", "big-in-parts"])
        // Bytes that do not hash to the digest sent with them are refused by the service, and not stored.
        let wrong = SHA256.digest(Data("something else".utf8))
        let refused = #expect(throws: S3Error.self) { try s3.put("bad", data: Data("these bytes".utf8), sha256: wrong) }
        #expect(["XAmzContentSHA256Mismatch", "BadDigest"].contains(refused?.code ?? ""), "\(String(describing: refused))")
        #expect(try s3.head("bad") == nil)
    }

    @Test func listingsFollowContinuationTokens() throws {
        let s3 = try freshS3()
        s3.pageSize = 7
        let keys = (0..<23).map { String(format: "k/%03d", $0) }
        for key in keys { try s3.put(key, data: Data(key.utf8)) }
        #expect(try s3.list(prefix: "k/").map(\.key) == keys)
    }

    /// Virtual-host addressing (`bucket.host/key`, signed for that host) against the real gateway:
    /// the cluster's `rgw dns name` is localhost, and libcurl resolves every `*.localhost` to the
    /// loopback, so no DNS is needed.
    @Test func virtualHostAddressingReachesTheBucketByItsHostName() throws {
        let s3 = try freshS3()
        let port = try #require(URL(string: s3Endpoint!)?.port)
        let virtual = S3Client(location: try S3Location("s3://\(s3.location.bucket)/journal", endpoint: "http://localhost:\(port)", pathStyle: false),
                               credentials: try S3Credentials.resolve())
        #expect(virtual.location.url(for: "k") == "http://\(s3.location.bucket).localhost:\(port)/journal/k")
        let data = Data("by the bucket's host name".utf8)
        try virtual.put("sha256/x", data: data, sha256: SHA256.digest(data))
        #expect(try s3.get("sha256/x") == data, "the path-style client sees what the virtual-host one wrote")
        #expect(try virtual.get("sha256/x") == data)
        #expect(try virtual.head("sha256/x")?.size == Int64(data.count))
        #expect(try virtual.list(prefix: "sha256/").map(\.key) == ["sha256/x"])
        try virtual.delete("sha256/x")
        #expect(try s3.head("sha256/x") == nil)
        // The bucket is named by the host alone: another name is another (missing) bucket.
        let other = S3Client(location: try S3Location("s3://no-such-\(s3.location.bucket)", endpoint: "http://localhost:\(port)", pathStyle: false),
                             credentials: try S3Credentials.resolve())
        let missing = #expect(throws: S3Error.self) { try other.put("x", data: Data("x".utf8)) }
        #expect(missing?.code == "NoSuchBucket")
    }

    @Test func wrongKeysAMissingBucketAndNoServiceSayWhatIsWrong() throws {
        let s3 = try freshS3()
        let good = try S3Credentials.resolve()
        let location = s3.location
        let badSecret = S3Client(location: location, credentials: S3Credentials(accessKey: good.accessKey, secretKey: "not-the-secret"))
        let signature = #expect(throws: S3Error.self) { try badSecret.put("x", data: Data("x".utf8)) }
        #expect(signature?.code == "SignatureDoesNotMatch")
        #expect(signature?.errorDescription?.contains("AWS_SECRET_ACCESS_KEY") == true)
        let unknown = S3Client(location: location, credentials: S3Credentials(accessKey: "nobody", secretKey: "nothing"))
        let key = #expect(throws: S3Error.self) { try unknown.get("x") }
        #expect(key?.code == "InvalidAccessKeyId")
        var missing = location
        missing.bucket = "no-such-bucket-" + UUID().uuidString.lowercased().prefix(8)
        let bucket = #expect(throws: S3Error.self) { try S3Client(location: missing, credentials: good).put("x", data: Data("x".utf8)) }
        #expect(bucket?.code == "NoSuchBucket")
        #expect(bucket?.errorDescription?.contains("bucket does not exist") == true)
        // Nothing listening: a network error after the retries, naming the endpoint, how many tries
        // were made and what to do.
        let nowhere = S3Client(location: try S3Location("s3://any-bucket", endpoint: "http://127.0.0.1:9"), credentials: good)
        nowhere.retries = 1
        let network = #expect(throws: S3Error.self) { try nowhere.get("x") }
        guard case .gaveUp(.network(let message, let request), tries: 2, _)? = network else {
            Issue.record("not a network error after 2 tries: \(String(describing: network))")
            return
        }
        #expect(message.contains("127.0.0.1:9") && request == "GET x")
        #expect(network?.errorDescription?.contains("(2 tries over ") == true && network?.errorDescription?.contains("check that the service is running and reachable") == true,
                "\(network?.errorDescription ?? "")")
    }
}

@Suite struct S3SettingsTests {
    @Test func locationsParseAndRefuseWhatIsNotOne() throws {
        let location = try S3Location("s3://family-photos/journal/2024/", endpoint: "http://127.0.0.1:7480/")
        #expect(location.bucket == "family-photos" && location.prefix == "journal/2024" && location.endpoint == "http://127.0.0.1:7480")
        #expect(location.url(for: "sha256/ab/c d") == "http://127.0.0.1:7480/family-photos/journal/2024/sha256/ab/c%20d")
        var virtual = location
        virtual.pathStyle = false
        #expect(virtual.url(for: "k") == "http://family-photos.127.0.0.1:7480/journal/2024/k")
        #expect(try S3Location("s3://b12", endpoint: "https://s3.example.com").prefix == "")
        #expect(throws: S3Error.self, "virtual-host style on an IP address") { try S3Location("s3://b12", endpoint: "http://127.0.0.1:7480", pathStyle: false) }
        #expect(throws: S3Error.self, "virtual-host style on an IPv6 address") { try S3Location("s3://b12", endpoint: "http://[::1]:7480", pathStyle: false) }
        #expect(try S3Location("s3://b12", endpoint: "http://localhost:7480", pathStyle: false).url(for: "k") == "http://b12.localhost:7480/k")
        for (url, endpoint) in [("photos", "http://x"), ("s3://UPPER", "http://x"), ("s3://ab", "http://x"), ("s3://ok-bucket", "ftp://x"), ("s3://ok-bucket", "nonsense"),
                                ("s3://ok-bucket", "http://AKID:secret@127.0.0.1:7480"), ("s3://ok-bucket", "http://host/path")] {
            #expect(throws: S3Error.self) { try S3Location(url, endpoint: endpoint) }
        }
    }

    @Test func credentialsComeFromTheEnvironmentThenTheProfileAndAreNamedWhenMissing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("credentials")
        try """
        # comment
        [default]
        aws_access_key_id = AKDEFAULT
        aws_secret_access_key = secret/default
        [work]
        aws_access_key_id=AKWORK
        aws_secret_access_key=secretwork
        aws_session_token = token
        """.write(to: file, atomically: true, encoding: .utf8)
        let env = ["AWS_SHARED_CREDENTIALS_FILE": file.path]
        // Readable by others, its keys are refused, as ssh refuses a readable private key.
        chmod(file.path, 0o644)
        #expect(throws: S3Error.credentialsReadableByOthers(path: file.path, mode: S_IFREG | 0o644)) { try S3Credentials.resolve(environment: env) }
        let readable = #expect(throws: S3Error.self) { try S3Credentials.resolve(environment: env) }
        #expect(readable?.errorDescription == "\(file.path) can be read by other users (mode 644), so the keys in it are theirs too; make it yours alone (chmod 600 \(file.path)) and run the command again")
        chmod(file.path, 0o640)
        #expect(throws: S3Error.self) { try S3Credentials.resolve(environment: env) }
        chmod(file.path, 0o600)
        #expect(try S3Credentials.resolve(environment: env) == S3Credentials(accessKey: "AKDEFAULT", secretKey: "secret/default"))
        #expect(try S3Credentials.resolve(environment: env.merging(["AWS_PROFILE": "work"]) { $1 })
            == S3Credentials(accessKey: "AKWORK", secretKey: "secretwork", sessionToken: "token"))
        #expect(try S3Credentials.resolve(environment: env.merging(["AWS_ACCESS_KEY_ID": "AKENV", "AWS_SECRET_ACCESS_KEY": "s"]) { $1 })
            == S3Credentials(accessKey: "AKENV", secretKey: "s"))
        let missing = #expect(throws: S3Error.self) { try S3Credentials.resolve(profile: "absent", environment: env) }
        #expect(missing?.errorDescription?.contains("[absent]") == true)
        let noFile = #expect(throws: S3Error.self) { try S3Credentials.resolve(environment: ["HOME": dir.path + "/nowhere"]) }
        #expect(noFile?.errorDescription?.contains("AWS_ACCESS_KEY_ID") == true)
    }

    /// A PUT's answer confirms the bytes by an ETag that is their MD5, or (a bucket encrypted with
    /// KMS, whose ETags are not MD5s) by the x-amz-checksum-sha256 the request carried; a 200
    /// with neither is no confirmation.
    @Test func aPutIsConfirmedByItsETagOrItsChecksumAndNothingElse() {
        let data = Data("a photo".utf8)
        let md5 = ETagHasher.etags(of: data, partSize: 16 << 20).single
        let digest = SHA256.digest(data)
        let header = S3Client.checksumHeader(digest)
        #expect(header.hasPrefix("x-amz-checksum-sha256: ") && Data(base64Encoded: String(header.dropFirst(23)))?.count == 32)
        func answer(_ headers: [String: String]) -> S3Client.Response { S3Client.Response(status: 200, headers: headers, body: Data(), written: 0) }
        #expect(S3Client.confirmation(answer(["etag": "\"\(md5)\""]), md5: md5, sha256: digest) == nil)
        // The checksum in the answer is the request's: the object's own must say so too.
        let echo = answer(["etag": "\"kms-not-an-md5\"", "x-amz-checksum-sha256": String(header.dropFirst(23))])
        #expect(S3Client.confirmation(echo, md5: md5, sha256: digest, stored: { nil }) == nil)
        #expect(S3Client.confirmation(echo, md5: md5, sha256: digest, stored: { "no object is there (HEAD answered 404)" })
                == "it answered 200 with the checksum it was sent and the ETag kms-not-an-md5, not the MD5 of the bytes (\(md5)), and no object is there (HEAD answered 404)")
        var asked = 0
        _ = S3Client.confirmation(answer(["etag": "\"\(md5)\""]), md5: md5, sha256: digest, stored: { asked += 1; return nil })
        #expect(asked == 0, "an ETag that is the MD5 needs no HEAD")
        #expect(S3Client.confirmation(answer([:]), md5: md5, sha256: digest) == "it answered 200 with no ETag, so nothing says the bytes were stored")
        #expect(S3Client.confirmation(answer(["etag": "\"0123\""]), md5: md5, sha256: digest)?.contains("which is not the MD5 of the bytes sent") == true)
        #expect(S3Client.confirmation(answer(["etag": "\"kms\"", "x-amz-checksum-sha256": "AAAA"]), md5: md5, sha256: digest) != nil)
    }
}
