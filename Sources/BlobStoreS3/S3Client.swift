import BlobStore
import CCurl
import Foundation

/// An object as an S3 listing or HEAD describes it.
public struct S3Object: Sendable, Equatable {
    /// The key below the location's prefix.
    public var key: String
    /// Its size in bytes.
    public var size: Int64
    /// The ETag without quotes (for a single-part upload, the MD5 of the bytes).
    public var etag: String
    /// When it was last written (the trash uses it as the time of removal).
    public var lastModified: Date?
}

/// Requests to an S3-compatible service (AWS S3, Ceph's RADOS Gateway, MinIO, Garage) over libcurl,
/// signed with AWS Signature V4 by libcurl itself (`CURLOPT_AWS_SIGV4`, libcurl 7.75 and later).
///
/// Uploads and downloads stream (a file is never held in memory whole); a PUT of bytes whose
/// SHA-256 is known sends it as `x-amz-content-sha256`, so the service refuses the upload if the
/// bytes it received hash otherwise. Connections are reused (one libcurl handle per concurrent
/// request, kept); 5xx answers, 429, and network errors are retried with exponential backoff; a
/// transfer slower than 1 KB/s for `stallTimeout` seconds is abandoned.
///
/// ```swift
/// let s3 = S3Client(location: try S3Location("s3://photos/journal", endpoint: "http://127.0.0.1:7480"),
///                   credentials: try S3Credentials.resolve())
/// try s3.put("a.txt", data: Data("hi".utf8))
/// let back = try s3.get("a.txt")
/// ```
public final class S3Client: @unchecked Sendable {
    /// The endpoint, bucket and prefix every key is under.
    public let location: S3Location
    let credentials: S3Credentials
    /// Seconds to wait for a connection.
    public var connectTimeout = 10
    /// Seconds a transfer may stall (under 1 KB/s) before it is abandoned.
    public var stallTimeout = 30
    /// Attempts after the first, for 5xx, 429 and network errors (backoff 0.2 s, doubling).
    public var retries = 4
    /// Files larger than this are uploaded in parts (multipart upload), each of `partSize` bytes.
    public var multipartThreshold: Int64 = 64 << 20
    /// The size of each part of a multipart upload but the last (S3's minimum: 5 MiB).
    public var partSize: Int64 = 16 << 20
    /// Objects a listing asks for per page (S3's maximum and default: 1,000).
    public var pageSize = 1000
    private var idle: [UnsafeMutableRawPointer] = []
    private let lock = NSLock()

    private static let setUp: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    /// A client for `location`, signing with `credentials`; connections are opened on first use and reused.
    public init(location: S3Location, credentials: S3Credentials) {
        _ = S3Client.setUp
        self.location = location
        self.credentials = credentials
    }

    deinit { for handle in idle { curl_easy_cleanup(handle) } }

    // MARK: Operations

    /// Stores `data` under `key`. With `sha256`, the service checks the bytes against it. The
    /// answer must confirm the bytes (`confirmation`): a 200 that does not is retried, then an error.
    public func put(_ key: String, data: Data, sha256: BlobDigest? = nil) throws {
        let md5 = ETagHasher.etags(of: data, partSize: partSize).single
        let digest = sha256 ?? SHA256.digest(data)
        _ = try request("PUT", location.url(for: key), body: .data(data), payloadHash: digest.hex, headers: [Self.checksumHeader(digest)],
                        confirm: { Self.confirmation($0, md5: md5, sha256: digest, stored: { self.storedChecksum(key, size: Int64(data.count), sha256: digest) }) },
                        what: "PUT \(location.objectKey(key))")
    }

    /// Stores `data` under `key` unless an object is there already (`If-None-Match: *`, checked by
    /// the service, so two writers racing for one key cannot both win); false when one was.
    public func create(_ key: String, data: Data) throws -> Bool {
        let md5 = ETagHasher.etags(of: data, partSize: partSize).single
        let digest = SHA256.digest(data)
        do {
            // With its checksum, as `put`: a bucket whose ETags are not MD5s (SSE-KMS) confirms it so.
            _ = try request("PUT", location.url(for: key), body: .data(data), payloadHash: digest.hex,
                            headers: ["If-None-Match: *", Self.checksumHeader(digest)],
                            confirm: { Self.confirmation($0, md5: md5, sha256: digest, stored: { self.storedChecksum(key, size: Int64(data.count), sha256: digest) }) },
                            what: "PUT \(location.objectKey(key))")
            return true
        } catch let error as S3Error where error.status == 412 {
            return false
        }
    }

    /// `x-amz-checksum-sha256` for `digest`: a service that checks it refuses other bytes, and
    /// answers with it, which confirms an upload whose ETag is not an MD5 (AWS with SSE-KMS).
    static func checksumHeader(_ digest: BlobDigest) -> String {
        var bytes: [UInt8] = []
        var hex = digest.hex.utf8.makeIterator()
        while let high = hex.next(), let low = hex.next() {
            func value(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
            bytes.append(value(high) << 4 | value(low))
        }
        return "x-amz-checksum-sha256: " + Data(bytes).base64EncodedString()
    }

    /// Whether a PUT's 2xx answer confirms the bytes sent: its ETag is their MD5 (what S3, Ceph,
    /// MinIO and Garage give an object stored in one part), or it gives their SHA-256 as
    /// `x-amz-checksum-sha256` and so does the object itself (`stored`, a HEAD: nil when it
    /// does, else why not). nil when it does; else why not. A 200 without either is what a gateway
    /// or proxy that answers for a service it did not reach gives: nothing may be taken as stored
    /// on it. The answer's checksum alone is not enough: the request carried it, and a proxy that
    /// echoes a request's headers gives it back (the second outside attack's did); a HEAD carries none.
    static func confirmation(_ response: Response, md5: String, sha256: BlobDigest?, stored: () -> String? = { nil }) -> String? {
        let etag = (response.headers["etag"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        if etag == md5 { return nil }
        if let sha256, let checksum = response.headers["x-amz-checksum-sha256"], hex(base64: checksum) == sha256.hex {
            guard let why = stored() else { return nil }
            return "it answered \(response.status) with the checksum it was sent and the ETag \(etag), not the MD5 of the bytes (\(md5)), and \(why)"
        }
        return etag.isEmpty ? "it answered \(response.status) with no ETag, so nothing says the bytes were stored"
            : "it answered \(response.status) with the ETag \(etag), which is not the MD5 of the bytes sent (\(md5))"
    }

    /// A base64 checksum as hex, nil when it is not base64.
    static func hex(base64: String) -> String? {
        Data(base64Encoded: base64).map { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// Whether the object under `key` is `size` bytes whose SHA-256 is `sha256`, by its own word
    /// (a HEAD with `x-amz-checksum-mode: ENABLED`): nil when it is, else why not.
    func storedChecksum(_ key: String, size: Int64, sha256: BlobDigest) -> String? {
        let response: Response
        do {
            response = try request("HEAD", location.url(for: key), headers: ["x-amz-checksum-mode: ENABLED"], what: "HEAD \(location.objectKey(key))")
        } catch let error as S3Error where error.status == 404 {
            return "no object is there (HEAD answered 404)"
        } catch let error as S3Error where error.status == 403 {
            // AWS answers a HEAD for the checksum of an object encrypted with KMS only to a key
            // that may decrypt with it (kms:Decrypt).
            return "the object could not be asked for its own checksum (\(error.localizedDescription)); "
                + "under SSE-KMS the key needs kms:Decrypt to read it, as it does to read the photos back"
        } catch {
            return "the object could not be asked for its own checksum (\(error.localizedDescription))"
        }
        let stored = Int64(response.headers["content-length"] ?? "") ?? -1
        guard stored == size else { return "the object there holds \(stored) bytes, not the \(size) sent (HEAD)" }
        guard let checksum = response.headers["x-amz-checksum-sha256"] else { return "the object there gives no checksum of its own (HEAD)" }
        return Self.hex(base64: checksum) == sha256.hex ? nil : "the object there has another checksum (HEAD)"
    }

    /// Stores the file at `path` under `key`, streamed from disk. `md5`, its bytes' MD5 in hex,
    /// is what the answer must confirm (see `confirmation`); a file over `multipartThreshold` goes
    /// up in parts, each part's answer confirming it, and its caller checks the whole.
    public func put(_ key: String, file path: String, sha256: BlobDigest?, md5: String? = nil) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw S3Error.network("cannot read \(path): \(String(cString: strerror(errno)))", request: "PUT \(key)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw S3Error.network("cannot stat \(path)", request: "PUT \(key)") }
        let size = Int64(info.st_size)
        if size > multipartThreshold {
            try putMultipart(key, fd: fd, size: size)
            return
        }
        let expected = try md5 ?? Self.md5(fd: fd, size: size)
        _ = try request("PUT", location.url(for: key), body: .file(fd, offset: 0, length: size), payloadHash: sha256?.hex ?? "UNSIGNED-PAYLOAD",
                        headers: sha256.map { [Self.checksumHeader($0)] } ?? [],
                        confirm: { answer in
                            Self.confirmation(answer, md5: expected, sha256: sha256, stored: { sha256.flatMap { self.storedChecksum(key, size: size, sha256: $0) } })
                        },
                        what: "PUT \(location.objectKey(key))")
    }

    /// The MD5 of the first `size` bytes of `fd`, in hex.
    static func md5(fd: Int32, size: Int64) throws -> String {
        let hasher = MD5()
        try forEachChunk(of: fd, length: size, "the file being uploaded") { hasher.update($0) }
        return hasher.finish()
    }

    /// The object's bytes.
    public func get(_ key: String) throws -> Data {
        try request("GET", location.url(for: key), what: "GET \(location.objectKey(key))").body
    }

    /// Streams the object into the open file `fd` (from its current offset). Returns the bytes written.
    @discardableResult
    public func get(_ key: String, into fd: Int32) throws -> Int64 {
        try request("GET", location.url(for: key), output: fd, what: "GET \(location.objectKey(key))").written
    }

    /// Streams the object's bytes to `chunk` as they arrive. An error thrown by `chunk` stops the
    /// transfer and is rethrown; a transfer that fails after `chunk` saw bytes is not retried.
    public func get(_ key: String, chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        try withoutActuallyEscaping(chunk) { sink in
            _ = try request("GET", location.url(for: key), sink: sink, what: "GET \(location.objectKey(key))")
        }
    }

    /// The object's size, ETag and time, or nil if there is none.
    public func head(_ key: String) throws -> S3Object? {
        do {
            let response = try request("HEAD", location.url(for: key), what: "HEAD \(location.objectKey(key))")
            return S3Object(key: key, size: Int64(response.headers["content-length"] ?? "") ?? 0,
                            etag: (response.headers["etag"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
                            lastModified: response.headers["last-modified"].flatMap(S3Client.httpDate))
        } catch let error as S3Error where error.status == 404 {
            // HEAD has no body, so a missing bucket cannot be told from a missing key here.
            return nil
        }
    }

    /// Deletes the object (deleting one that is not there succeeds, as S3 does).
    public func delete(_ key: String) throws {
        _ = try request("DELETE", location.url(for: key), what: "DELETE \(location.objectKey(key))")
    }

    /// Every object under `prefix` (below the location's prefix), in key order, page by page
    /// (ListObjectsV2, 1,000 a page); with `limit`, the first that many.
    public func list(prefix: String = "", limit: Int? = nil) throws -> [S3Object] {
        var objects: [S3Object] = []
        var token: String?
        let fullPrefix = location.objectKey(prefix)
        repeat {
            var query = [("list-type", "2"), ("max-keys", String(min(pageSize, limit ?? pageSize)))]
            if !fullPrefix.isEmpty { query.append(("prefix", fullPrefix)) }
            if let token { query.append(("continuation-token", token)) }
            let page = try listingPage(query, what: "LIST \(fullPrefix)")
            objects += page.objects.map { object in
                var object = object
                object.key = keyBelowPrefix(object.key)
                return object
            }
            token = page.truncated ? page.nextToken : nil
            if let limit, objects.count >= limit { return Array(objects.prefix(limit)) }
        } while token != nil
        return objects
    }

    /// One page of a bucket listing, its parameters sorted by name and each encoded: the form
    /// SigV4 signs.
    func listingPage(_ query: [(String, String)], what: String) throws -> S3ListingParser.Page {
        let encoded = query.sorted { $0.0 < $1.0 }.map { "\($0.0)=\(S3Location.encode($0.1))" }.joined(separator: "&")
        return S3ListingParser.parse(try request("GET", location.bucketURL(query: encoded), what: what).body)
    }

    /// A listed key as callers name it: below the location's prefix.
    func keyBelowPrefix(_ key: String) -> String {
        String(key.dropFirst(location.prefix.isEmpty ? 0 : location.prefix.count + 1))
    }

    /// Copies an object inside the bucket, server side (the new object's time is now). Copying an
    /// object onto itself refreshes its time.
    public func copy(from source: String, to target: String) throws {
        let path = "/" + location.bucket + "/" + location.objectKey(source).split(separator: "/", omittingEmptySubsequences: false)
            .map { S3Location.encode(String($0)) }.joined(separator: "/")
        var extra = ["x-amz-copy-source: \(path)"]
        if source == target { extra.append("x-amz-metadata-directive: REPLACE") }
        let response = try request("PUT", location.url(for: target), headers: extra, what: "COPY \(location.objectKey(source)) to \(location.objectKey(target))")
        // A copy can fail after its 200 has been sent: the error is then in the body.
        let error = S3ListingParser.error(response.body)
        if !error.code.isEmpty {
            throw S3Error.service(status: 200, code: error.code, message: error.message, request: "COPY \(location.objectKey(source))")
        }
    }

    /// Deletes the bucket, which must be empty (`BucketNotEmpty` otherwise).
    public func deleteBucket() throws {
        _ = try request("DELETE", location.bucketURL(), what: "DELETE BUCKET \(location.bucket)")
    }

    /// Creates the bucket (succeeds if this account already owns it).
    public func createBucket() throws {
        do {
            _ = try request("PUT", location.bucketURL(), what: "CREATE BUCKET \(location.bucket)")
        } catch let error as S3Error where error.code == "BucketAlreadyOwnedByYou" {
            return
        }
    }

    // MARK: Requests

    enum Body {
        case none
        case data(Data)
        /// `length` bytes of the open file, from `offset` (read with pread: the file's position is not used).
        case file(Int32, offset: Int64, length: Int64)
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
        var written: Int64
    }

    /// One request, retried on 5xx, 429, AWS's retryable 409s, network errors and a 2xx that
    /// `confirm` finds wanting (it returns why). Throws `S3Error`: after the retries, wrapped in
    /// `.gaveUp` with how many tries were made over how long; a refused signature whose answer
    /// says the clocks differ, as `.clockSkew`.
    func request(_ method: String, _ url: String, body: Body = .none, payloadHash: String? = nil, output: Int32 = -1,
                 sink: ((UnsafeRawBufferPointer) throws -> Void)? = nil, headers extra: [String] = [],
                 confirm: ((Response) -> String?)? = nil, what: String) throws -> Response {
        let handle = takeHandle()
        defer { giveBack(handle) }
        var attempt = 0
        let began = Date()
        let start: off_t = output >= 0 ? lseek(output, 0, SEEK_CUR) : 0
        while true {
            let transfer = Transfer(body: body, output: output)
            transfer.sink = sink
            if output >= 0 { _ = lseek(output, start, SEEK_SET); _ = ftruncate(output, start) }
            let hash: String
            switch body {
            case .none: hash = payloadHash ?? SHA256.digest(Data()).hex
            default: hash = payloadHash ?? "UNSIGNED-PAYLOAD"
            }
            let outcome = perform(handle, method: method, url: url, body: body, payloadHash: hash, headers: extra, transfer: transfer)
            let retryable: Bool
            let failure: S3Error
            switch outcome {
            case .sinkFailed(let error):
                throw error
            case .failure(let message, let transient):
                retryable = transient
                failure = .network(message, request: what)
            case .success(let status) where (200..<300).contains(status):
                let response = Response(status: status, headers: transfer.headers, body: transfer.data, written: transfer.written)
                guard let reason = confirm?(response) else { return response }
                retryable = true
                failure = .unconfirmed(reason, request: what)
            case .success(let status):
                let error = S3ListingParser.error(transfer.data)
                let code = error.code.isEmpty ? S3Client.defaultCode(status) : error.code
                if code == "RequestTimeTooSkewed", let date = transfer.headers["date"], let theirs = S3Client.httpDate(date) {
                    throw S3Error.clockSkew(seconds: Int(Date().timeIntervalSince(theirs).rounded()), serviceDate: date, request: what)
                }
                // 409 ConditionalRequestConflict (a conditional write met another one in progress on
                // the key) and OperationAborted are AWS's "try again".
                retryable = status >= 500 || status == 429 || (status == 409 && (code == "ConditionalRequestConflict" || code == "OperationAborted"))
                failure = .service(status: status, code: code, message: error.message, request: what)
            }
            // Bytes already handed to a sink cannot be taken back: such a transfer is not retried.
            guard retryable && attempt < retries && !transfer.delivered else {
                throw attempt > 0 ? S3Error.gaveUp(failure, tries: attempt + 1, seconds: Date().timeIntervalSince(began)) : failure
            }
            usleep(useconds_t(200_000 << attempt))
            attempt += 1
        }
    }

    enum Outcome {
        case success(Int)
        case failure(String, transient: Bool)
        /// The caller's chunk handler threw: its error, not retried.
        case sinkFailed(Error)
    }

    private func perform(_ handle: UnsafeMutableRawPointer, method: String, url: String, body: Body, payloadHash: String,
                         headers extra: [String], transfer: Transfer) -> Outcome {
        curl_easy_reset(handle)
        var headers: UnsafeMutablePointer<curl_slist>?
        var lines = ["x-amz-content-sha256: \(payloadHash)"] + extra
        if let token = credentials.sessionToken { lines.append("x-amz-security-token: \(token)") }
        for line in lines { headers = curl_slist_append(headers, line) }
        defer { curl_slist_free_all(headers) }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = ccurl_setopt_string(handle, CURLOPT_URL, url)
        // Keys are sent as they are ("." and ".." segments are names, not directions).
        _ = ccurl_setopt_long(handle, CURLOPT_PATH_AS_IS, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, connectTimeout)
        _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1024)
        _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, stallTimeout)
        _ = ccurl_setopt_string(handle, CURLOPT_AWS_SIGV4, "aws:amz:\(location.region):s3")
        _ = ccurl_setopt_string(handle, CURLOPT_USERNAME, credentials.accessKey)
        _ = ccurl_setopt_string(handle, CURLOPT_PASSWORD, credentials.secretKey)
        _ = ccurl_setopt_list(handle, CURLOPT_HTTPHEADER, headers)
        _ = ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, transferWrite)
        _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, transferHeader)
        _ = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        switch method {
        case "HEAD": _ = ccurl_setopt_long(handle, CURLOPT_NOBODY, 1)
        case "GET": break
        default: _ = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
        }
        switch body {
        case .none:
            if method == "PUT" {
                _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
                _ = ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, 0)
                _ = ccurl_setopt_callback(handle, CURLOPT_READFUNCTION, transferRead)
                _ = ccurl_setopt_pointer(handle, CURLOPT_READDATA, context)
            }
        case .data(let data):
            _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            _ = ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(data.count))
            _ = ccurl_setopt_callback(handle, CURLOPT_READFUNCTION, transferRead)
            _ = ccurl_setopt_pointer(handle, CURLOPT_READDATA, context)
        case .file(_, _, let size):
            _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            _ = ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(size))
            _ = ccurl_setopt_callback(handle, CURLOPT_READFUNCTION, transferRead)
            _ = ccurl_setopt_pointer(handle, CURLOPT_READDATA, context)
        }
        if case .none = body {} else {
            // libcurl rewinds an upload itself when it must send it again (a kept connection found
            // closed, a 100-continue refused).
            _ = ccurl_setopt_seek(handle, CURLOPT_SEEKFUNCTION, transferSeek)
            _ = ccurl_setopt_pointer(handle, CURLOPT_SEEKDATA, context)
        }
        let code = curl_easy_perform(handle)
        if let error = transfer.sinkError { return .sinkFailed(error) }
        if let failure = transfer.failure { return .failure(failure, transient: false) }
        guard code == CURLE_OK else {
            let transient: Set<CURLcode> = [CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
                                            CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_FAIL_REWIND]
            let reason = String(cString: curl_easy_strerror(code))
            let message = code == CURLE_OPERATION_TIMEDOUT
                ? "the service stopped answering (\(reason); no data for \(stallTimeout) s or no connection in \(connectTimeout) s)"
                : "no answer from \(location.endpoint) (\(reason))"
            return .failure(message, transient: transient.contains(code))
        }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(status)
    }

    private func takeHandle() -> UnsafeMutableRawPointer {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast() ?? curl_easy_init()!
    }

    private func giveBack(_ handle: UnsafeMutableRawPointer) {
        lock.lock()
        idle.append(handle)
        lock.unlock()
    }

    static func defaultCode(_ status: Int) -> String {
        switch status {
        case 403: return "AccessDenied"
        case 404: return "NotFound"
        default: return "HTTP\(status)"
        }
    }

    /// "Wed, 02 Dec 2026 04:53:17 GMT" (RFC 7231).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}

extension S3Error {
    /// A 404 for the object, not for its bucket.
    var isMissingObject: Bool { status == 404 && code != "NoSuchBucket" }

    /// The HTTP status of a service error (0 for others), through the retries.
    var status: Int {
        if case .service(let status, _, _, _) = self { return status }
        if case .gaveUp(let last, _, _) = self { return last.status }
        return 0
    }
}

/// One transfer's state, reached from libcurl's callbacks through their context pointer.
final class Transfer {
    let body: S3Client.Body
    let output: Int32
    var offset = 0
    var data = Data()
    var written: Int64 = 0
    var headers: [String: String] = [:]
    /// The status of the response being received (from its status line), 0 before it.
    var status = 0
    /// Set when a callback failed locally (reading the upload, writing the download).
    var failure: String?
    /// Receives a success's body instead of `data` or `output`, when set.
    var sink: ((UnsafeRawBufferPointer) throws -> Void)?
    var sinkError: Error?
    /// Whether a sink has been given any bytes.
    var delivered = false

    init(body: S3Client.Body, output: Int32) {
        self.body = body
        self.output = output
    }
}

private let transferWrite: ccurl_data_callback = { buffer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    guard let buffer, length > 0 else { return length }
    if let sink = transfer.sink, (200..<300).contains(transfer.status) {
        transfer.delivered = true
        do {
            try sink(UnsafeRawBufferPointer(start: buffer, count: length))
        } catch {
            transfer.sinkError = error
            return 0
        }
        return length
    }
    // Only a success's body goes to the output file; an error's (S3's XML) is kept to be read.
    if transfer.output < 0 || !(200..<300).contains(transfer.status) {
        transfer.data.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }
    var done = 0
    while done < length {
        let n = write(transfer.output, buffer + done, length - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
            transfer.failure = "cannot write the download: \(String(cString: strerror(errno)))"
            return 0
        }
        done += n
    }
    transfer.written += Int64(length)
    return length
}

private let transferRead: ccurl_data_callback = { buffer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let room = size * count
    guard let buffer else { return 0 }
    switch transfer.body {
    case .none:
        return 0
    case .data(let data):
        let n = min(room, data.count - transfer.offset)
        guard n > 0 else { return 0 }
        data.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + transfer.offset, byteCount: n)
        }
        transfer.offset += n
        return n
    case .file(let fd, let start, let length):
        let left = Int(length) - transfer.offset
        guard left > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer, min(room, left), off_t(start) + off_t(transfer.offset))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                transfer.failure = n == 0 ? "the file being uploaded got shorter" : "cannot read the upload: \(String(cString: strerror(errno)))"
                return Int(CURL_READFUNC_ABORT)
            }
            transfer.offset += n
            return n
        }
    }
}

private let transferHeader: ccurl_data_callback = { buffer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    guard let buffer else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        transfer.headers = [:]  // a new response (after 100 Continue, or a redirect)
        let fields = line.split(separator: " ")
        transfer.status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
    } else if let colon = line.firstIndex(of: ":") {
        transfer.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return length
}

private let transferSeek: ccurl_seek_callback = { context, offset, origin in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    guard origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    switch transfer.body {
    case .none:
        return Int32(CURL_SEEKFUNC_OK)
    case .data(let data):
        guard offset >= 0 && Int(offset) <= data.count else { return Int32(CURL_SEEKFUNC_FAIL) }
        transfer.offset = Int(offset)
        return Int32(CURL_SEEKFUNC_OK)
    case .file(_, _, let length):
        guard offset >= 0 && offset <= length else { return Int32(CURL_SEEKFUNC_FAIL) }
        transfer.offset = Int(offset)
        return Int32(CURL_SEEKFUNC_OK)
    }
}
