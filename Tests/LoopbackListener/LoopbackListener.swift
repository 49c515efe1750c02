import Foundation

/// A TCP listener on 127.0.0.1 at a port the kernel picks, for tests that stand in for a service.
///
/// The thread that accepts owns the socket and closes it when it ends; `stop()` only shuts it
/// down. Closing it from outside would free the descriptor's number while that thread is still
/// in, or about to call, `accept`: a listener opened meanwhile by a test running in parallel gets
/// the same number, and the old thread takes its connections and answers them with its own script.
/// (The CI saw exactly that: a scripted 200 meant for one test answered another's request.)
public final class LoopbackListener: @unchecked Sendable {
    public let port: Int
    private let socket: Socket

    /// The descriptor and its state, shared by the listener and its accepting thread.
    private final class Socket: @unchecked Sendable {
        let fd: Int32
        private let lock = NSLock()
        private var closed = false
        private var shut = false
        private var serving = false

        init(_ fd: Int32) { self.fd = fd }

        /// The accepting thread is about to start: from now on only it closes the socket.
        func startServing() {
            lock.lock(); defer { lock.unlock() }
            precondition(!serving, "LoopbackListener.serve called twice")
            serving = true
        }

        /// Stops the listener: shuts the socket down when a thread serves it (its `accept` then
        /// fails, and the thread closes it), else closes it.
        func stop() {
            lock.lock(); defer { lock.unlock() }
            guard !closed else { return }
            if !serving {
                closed = true
                _ = Glibc.close(fd)
            } else if !shut {
                shut = true
                _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
            }
        }

        /// Called by the accepting thread as it ends.
        func close() {
            lock.lock(); defer { lock.unlock() }
            if !closed { closed = true; _ = Glibc.close(fd) }
        }
    }

    public init(backlog: Int32 = 16) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ListenerError(operation: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let error = ListenerError(operation: "bind/listen", errno: errno)
            Glibc.close(fd)
            throw error
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = Socket(fd)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on a new thread and hands each to `handle`, which owns it, until
    /// `handle` returns false or the listener stops. Call at most once.
    public func serve(_ handle: @escaping @Sendable (Int32) -> Bool) {
        let socket = self.socket
        socket.startServing()
        Thread.detachNewThread {
            defer { socket.close() }
            while true {
                let client = accept(socket.fd, nil, nil)
                if client < 0 && (errno == EINTR || errno == ECONNABORTED) { continue }
                guard client >= 0, handle(client) else { return }
            }
        }
    }

    /// Stops accepting (idempotent); the accepting thread closes the socket as it ends.
    public func stop() { socket.stop() }

    /// The listening socket's descriptor (open until the accepting thread ends, or `stop()`
    /// when nothing serves it).
    public var descriptor: Int32 { socket.fd }

    deinit { stop() }
}

public struct ListenerError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32
    public init(operation: String, errno: Int32) { self.operation = operation; self.errno = errno }
    public var description: String { "\(operation): errno \(errno)" }
}

/// A TCP port on 127.0.0.1 that nothing listens on now (picked by the kernel, then let go).
public func freeLoopbackPort() throws -> Int {
    try LoopbackListener().port
}
