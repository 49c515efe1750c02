import Foundation
import Testing
import LoopbackListener

/// The stand-in services of the S3 tests run in parallel; one's listener must never take
/// another's connections.
@Suite struct LoopbackListenerTests {
    /// A connects, A's handler is still busy with it when A is stopped, B opens, then A's thread
    /// goes back to accept (before B's own thread does): B's connection must reach B. (When A's socket was closed from outside,
    /// B got the same descriptor number and A's thread took B's connection.)
    @Test func aStoppedListenersThreadNeverTakesTheNextListenersConnections() throws {
        let busy = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let takenByA = Counter()
        var a: LoopbackListener? = try LoopbackListener()
        a!.serve { client in
            takenByA.add()
            busy.signal()
            release.wait()
            close(client)
            return true
        }
        let first = try connectTo(a!.port)
        defer { close(first) }
        #expect(busy.wait(timeout: .now() + 10) == .success)
        let descriptor = a!.descriptor, portOfA = a!.port
        a = nil   // stopped while its handler runs
        // Its thread may still call accept: the descriptor must still be A's socket, not closed
        // (to be reused by whatever opens next).
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        #expect(named == 0 && Int(UInt16(bigEndian: address.sin_port)) == portOfA)

        let b = try LoopbackListener()
        release.signal()   // A's thread returns to accept, before B's thread is there
        usleep(100_000)
        let reachedB = DispatchSemaphore(value: 0)
        b.serve { client in reachedB.signal(); close(client); return true }
        let second = try connectTo(b.port)
        defer { close(second) }
        #expect(reachedB.wait(timeout: .now() + 10) == .success)
        #expect(takenByA.value == 1)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    private func connectTo(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_addr.s_addr = inet_addr("127.0.0.1")
        to.sin_port = UInt16(port).bigEndian
        let status = withUnsafePointer(to: &to) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { close(fd); throw ListenerError(operation: "connect", errno: errno) }
        return fd
    }
}
