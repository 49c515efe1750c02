import Foundation
import Testing
import LoopbackListener
@testable import BlobStore
@testable import BlobStoreS3

/// A local HTTP service that answers each request with the next of `answers` (status, and an S3
/// error code, a body of its own starting with "<", or "" for none), one connection per request,
/// and records the request heads. A PUT answered 2xx carries the ETag a service gives it (the
/// body's MD5), as the client requires.
final class ScriptedS3: @unchecked Sendable {
    private let listener: LoopbackListener
    var port: Int { listener.port }
    /// What the serving thread records; the thread holds this, not the service, so the service's
    /// deinit runs at the test's end and stops the listener.
    private final class Heads: @unchecked Sendable {
        let lock = NSLock()
        var list: [String] = []
        var answered = 0
    }
    private let heads = Heads()

    init(_ answers: [(Int, String)]) throws {
        listener = try LoopbackListener(backlog: 8)
        let heads = self.heads
        listener.serve { client in
            let (head, received) = Self.readRequest(client)
            heads.lock.lock()
            heads.list.append(head)
            let (status, code) = answers[heads.answered]
            heads.answered += 1
            let more = heads.answered < answers.count
            heads.lock.unlock()
            let body = code.isEmpty || code.hasPrefix("<") ? code
                : "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>scripted</Message></Error>"
            let etag = head.hasPrefix("PUT ") && (200..<300).contains(status) ? "ETag: \"\(ETagHasher.etags(of: received, partSize: 16 << 20).single)\"\r\n" : ""
            let reply = "HTTP/1.1 \(status) Scripted\r\n\(etag)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            _ = reply.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(client)
            return more
        }
    }

    /// The request heads received so far.
    var requests: [String] { heads.lock.lock(); defer { heads.lock.unlock() }; return heads.list }

    /// Reads one request: its head, then as many body bytes as its Content-Length says.
    private static func readRequest(_ fd: Int32) -> (String, Data) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
            guard let end = Data(bytes).range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if bytes.count - end.upperBound >= length { return (head, Data(bytes[end.upperBound..<(end.upperBound + length)])) }
        }
        return (String(decoding: bytes, as: UTF8.self), Data())
    }
}

@Suite struct S3ConflictTests {
    func client(_ service: ScriptedS3) throws -> S3Client {
        S3Client(location: try S3Location("s3://bucket/journal", endpoint: "http://127.0.0.1:\(service.port)"),
                 credentials: S3Credentials(accessKey: "key", secretKey: "secret"))
    }

    /// AWS answers a conditional write that meets another one in progress on the same key with
    /// 409 ConditionalRequestConflict, "retry the request": the retry then sees the other's object.
    @Test(arguments: [(412, "PreconditionFailed", false), (200, "", true)])
    func aConditionalWriteThatMeetsAnotherIsRetried(then status: Int, code: String, created: Bool) throws {
        let service = try ScriptedS3([(409, "ConditionalRequestConflict"), (status, code)])
        #expect(try client(service).create("owner", data: Data("me\n".utf8)) == created)
        #expect(service.requests.count == 2)
        #expect(service.requests.allSatisfy { $0.hasPrefix("PUT /bucket/journal/owner ") && $0.lowercased().contains("if-none-match: *") })
    }

    /// Unfinished multipart uploads are listed page by page (ListMultipartUploads' two markers),
    /// keys below the location's prefix; a page that says it is truncated but gives no markers
    /// ends the listing.
    @Test func unfinishedUploadsAreListedPageByPage() throws {
        func page(_ uploads: [(String, String)], truncated: Bool, next: (String, String)?) -> String {
            "<?xml version=\"1.0\"?><ListMultipartUploadsResult><Bucket>bucket</Bucket>"
                + uploads.map { "<Upload><Key>journal/\($0.0)</Key><UploadId>\($0.1)</UploadId><Initiated>2026-12-01T10:00:00.000Z</Initiated></Upload>" }.joined()
                + "<IsTruncated>\(truncated)</IsTruncated>"
                + (next.map { "<NextKeyMarker>\($0.0)</NextKeyMarker><NextUploadIdMarker>\($0.1)</NextUploadIdMarker>" } ?? "")
                + "</ListMultipartUploadsResult>"
        }
        let service = try ScriptedS3([
            (200, page([("sha256/aa/x", "u1"), ("sha256/bb/y", "u2")], truncated: true, next: ("journal/sha256/bb/y", "u2"))),
            (200, page([("trash/z", "u3")], truncated: true, next: nil)),
        ])
        let uploads = try client(service).unfinishedUploads()
        #expect(uploads.map(\.key) == ["sha256/aa/x", "sha256/bb/y", "trash/z"])
        #expect(uploads.map(\.uploadId) == ["u1", "u2", "u3"])
        #expect(uploads[0].initiated == Date(timeIntervalSince1970: 1_796_119_200))
        #expect(service.requests.count == 2)
        #expect(service.requests[0].hasPrefix("GET /bucket/?max-uploads=1000&prefix=journal%2F&uploads= "))
        #expect(service.requests[1].contains("key-marker=journal%2Fsha256%2Fbb%2Fy&max-uploads=1000&prefix=journal%2F&upload-id-marker=u2&uploads= "))
    }

    /// A service that does not list uploads (a policy without s3:ListBucketMultipartUploads) leaves
    /// a warning: the sweep's other steps are done and reported, the sweep does not fail.
    @Test func aSweepWhereUploadsCannotBeListedWarnsAndFinishes() throws {
        let empty = "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"
        let service = try ScriptedS3([(200, empty), (200, empty), (403, "AccessDenied"), (200, empty)])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try S3BlobStore(client: client(service), lockDirectory: folder)
        let report = try store.sweep(gracePeriod: -1, uploadGracePeriod: -1) { [] }
        #expect(report.warnings.count == 1 && report.warnings[0].contains("unfinished uploads were not cleaned up"), "\(report.warnings)")
        #expect(report.warnings[0].contains("AccessDenied"), "\(report.warnings)")
        #expect(service.requests.count == 4)
        #expect(service.requests[2].contains("uploads="))
    }

    /// Any other conflict is the service's answer, not retried.
    @Test func anotherConflictIsNotRetried() throws {
        let service = try ScriptedS3([(409, "BucketAlreadyExists"), (200, "")])
        #expect(throws: S3Error.self) { try client(service).create("owner", data: Data("me\n".utf8)) }
        #expect(service.requests.count == 1)
    }
}
