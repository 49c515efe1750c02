import Foundation

/// An HTTP/1.1 stand-in between a client and a real service (Ceph's gateway, in the tests) that
/// forwards each request and breaks those its rule picks, as a failing network or a lying gateway
/// would: an answer delayed, a body cut short under its Content-Length, a byte of a body flipped, a
/// 500 or 503 in the service's place, or a PUT answered 200 without being forwarded (nothing
/// stored: no ETag, or the request's own checksum echoed).
///
/// Each request is forwarded on a connection of its own, asking the service to close it after
/// answering, and the answer is relayed as it came but for the fault.
public final class FaultProxy: @unchecked Sendable {
    /// What to do to one request.
    public enum Fault: Equatable, Sendable {
        /// Forward it and relay the answer.
        case none
        /// Forward it and relay the answer after this many seconds.
        case delay(TimeInterval)
        /// Relay the answer's head and half of its body, then close the connection.
        case cutBody
        /// Relay the answer with one byte in the middle of its body flipped.
        case flipByte
        /// Answer with this status and an S3 error body, without forwarding.
        case status(Int)
        /// Answer `200 OK` with no ETag, without forwarding (nothing is stored).
        case fakePut
        /// Answer `200 OK` with an ETag that is no MD5 (as AWS gives under SSE-KMS) and the
        /// request's own `x-amz-checksum-sha256` echoed, without forwarding (nothing is stored).
        case echoChecksum
    }

    /// One request as the rule sees it.
    public struct Request: Sendable {
        /// GET, PUT, HEAD, DELETE, POST.
        public let method: String
        /// The path and query, as sent.
        public let target: String
        /// How many times this method and target were asked before (0 the first time).
        public let repeats: Int
    }

    public let port: Int
    /// The address to give the client instead of the service's.
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    private let listener: LoopbackListener
    private let upstream: (host: String, port: Int)
    private let rule: @Sendable (Request) -> Fault
    private let lock = NSLock()
    private var seen: [String: Int] = [:]
    private var applied: [(Request, Fault)] = []

    /// Forwards to `upstream` ("http://127.0.0.1:7480"), breaking what `rule` says.
    public init(upstream endpoint: String, rule: @escaping @Sendable (Request) -> Fault) throws {
        let url = URL(string: endpoint)!
        upstream = (url.host ?? "127.0.0.1", url.port ?? 80)
        self.rule = rule
        listener = try LoopbackListener()
        port = listener.port
        listener.serve { [weak self] client in
            guard let self else {
                close(client)
                return false
            }
            Thread.detachNewThread { self.serveConnection(client) }
            return true
        }
    }

    /// The faults applied so far (not `.none`), with their requests.
    public var faults: [(method: String, target: String, fault: Fault)] {
        lock.lock()
        defer { lock.unlock() }
        return applied.filter { $0.1 != .none }.map { ($0.0.method, $0.0.target, $0.1) }
    }

    public func stop() { listener.stop() }

    deinit { stop() }

    private func serveConnection(_ client: Int32) {
        defer { close(client) }
        var reader = Reader(fd: client)
        while let (head, body) = reader.readRequest(continueTo: client) {
            let requestLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
            let parts = requestLine.split(separator: " ")
            guard parts.count >= 2 else { return }
            let method = String(parts[0]), target = String(parts[1])
            lock.lock()
            let request = Request(method: method, target: target, repeats: seen[method + " " + target, default: 0])
            seen[method + " " + target, default: 0] += 1
            lock.unlock()
            let fault = rule(request)
            lock.lock()
            applied.append((request, fault))
            lock.unlock()
            switch fault {
            case .status(let code):
                let xml = "<?xml version=\"1.0\"?><Error><Code>\(code == 503 ? "ServiceUnavailable" : "InternalError")</Code><Message>injected by the test's proxy</Message></Error>"
                let bytes = method == "HEAD" ? "" : xml
                Self.send(client, "HTTP/1.1 \(code) Injected\r\nContent-Type: application/xml\r\nContent-Length: \(bytes.utf8.count)\r\n\r\n" + bytes)
                continue
            case .fakePut:
                Self.send(client, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                continue
            case .echoChecksum:
                let echoed = head.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("x-amz-checksum-sha256:") }
                Self.send(client, (["HTTP/1.1 200 OK", "ETag: \"kms-0123456789abcdef\""] + echoed + ["Content-Length: 0", "", ""]).joined(separator: "\r\n"))
                continue
            default:
                break
            }
            guard var answer = forward(head: head, body: body) else { return }
            let split = answer.range(of: Data("\r\n\r\n".utf8)).map { $0.upperBound } ?? answer.count
            let sized = String(decoding: answer[..<split], as: UTF8.self).lowercased().contains("content-length:")
            switch fault {
            case .delay(let seconds):
                Thread.sleep(forTimeInterval: seconds)
            case .flipByte where sized && answer.count > split:
                answer[split + (answer.count - split) / 2] ^= 0x20
            case .cutBody where sized && answer.count > split + 1:
                Self.send(client, answer[..<(split + (answer.count - split) / 2)])
                shutdown(client, Int32(SHUT_RDWR))
                return
            default:
                break
            }
            Self.send(client, answer)
            // The service was asked to close: so is the client, once its answer is relayed.
            return
        }
    }

    /// Sends the request to the service on a connection of its own and reads the answer to its end.
    private func forward(head: String, body: Data) -> Data? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_addr.s_addr = inet_addr(upstream.host == "localhost" ? "127.0.0.1" : upstream.host)
        to.sin_port = UInt16(upstream.port).bigEndian
        let connected = withUnsafePointer(to: &to) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        // The same head, but the service closes after answering and nothing waits for a 100.
        let lines = head.components(separatedBy: "\r\n").filter {
            let name = $0.lowercased()
            return !name.hasPrefix("connection:") && !name.hasPrefix("expect:") && !$0.isEmpty
        }
        Self.send(fd, (lines + ["Connection: close", "", ""]).joined(separator: "\r\n"))
        Self.send(fd, body)
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            answer.append(contentsOf: buffer[..<n])
        }
        return answer
    }

    private static func send(_ fd: Int32, _ text: String) { send(fd, Data(text.utf8)) }

    private static func send(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                // MSG_NOSIGNAL: a peer gone is EPIPE here, not a SIGPIPE that kills the test process.
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                sent += n
            }
        }
    }

    /// Reads requests off a client connection: the head, then a body of its Content-Length.
    private struct Reader {
        let fd: Int32
        var pending = Data()

        mutating func fill() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                pending.append(contentsOf: buffer[..<n])
                return true
            }
        }

        /// The next request's head (without its blank line) and body, or nil at the end. A
        /// request that waits for `100 Continue` is told to go on.
        mutating func readRequest(continueTo client: Int32) -> (String, Data)? {
            var end = pending.range(of: Data("\r\n\r\n".utf8))
            while end == nil {
                guard fill() else { return nil }
                end = pending.range(of: Data("\r\n\r\n".utf8))
            }
            let head = String(decoding: pending[pending.startIndex..<end!.lowerBound], as: UTF8.self)
            pending.removeSubrange(pending.startIndex..<end!.upperBound)
            var length = 0
            var expects = false
            for line in head.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-length:") { length = Int(lower.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0 }
                if lower.hasPrefix("expect:") && lower.contains("100-continue") { expects = true }
            }
            if expects { FaultProxy.send(client, "HTTP/1.1 100 Continue\r\n\r\n") }
            while pending.count < length {
                guard fill() else { return nil }
            }
            let body = Data(pending.prefix(length))
            pending.removeFirst(length)
            return (head, body)
        }
    }
}
