import Foundation
import BlobStore

final class TemporaryDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("blob-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ data: Data) -> URL {
        let u = url.appendingPathComponent(name)
        try! data.write(to: u)
        return u
    }
}

func packageRoot() -> URL {
    var dir = URL(fileURLWithPath: #filePath)
    while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
        dir.deleteLastPathComponent()
    }
    return dir
}

/// Starts `blob-tool` (built by `swift build`) without waiting.
func startTool(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = packageRoot().appendingPathComponent(".build/debug/blob-tool")
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, out)
}

func runTool(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    let (process, out) = try startTool(arguments, environment: environment)
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func randomData(_ count: Int, seed: UInt64) -> Data {
    var state = seed &* 2 &+ 1
    return Data((0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    })
}

func files(under url: URL) -> [String] {
    guard let e = FileManager.default.enumerator(atPath: url.path) else { return [] }
    return e.compactMap { $0 as? String }.filter {
        var isDir: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path, isDirectory: &isDir)
        return !isDir.boolValue
    }.sorted()
}

/// Runs `claim(i)` for i in 0..<count on as many threads, released together; what each threw.
func claimAtOnce(_ count: Int, _ claim: @escaping @Sendable (Int) throws -> Void) -> [BlobStoreError?] {
    let start = DispatchSemaphore(value: 0)
    let lock = NSLock()
    nonisolated(unsafe) var outcomes = [BlobStoreError?](repeating: nil, count: count)
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread.detachNewThread {
            start.wait()
            var outcome: BlobStoreError?
            do { try claim(i) } catch let error as BlobStoreError { outcome = error } catch { outcome = .io(path: "\(error)", operation: "claim", errno: 0) }
            lock.lock()
            outcomes[i] = outcome
            lock.unlock()
            group.leave()
        }
    }
    for _ in 0..<count { start.signal() }
    group.wait()
    return outcomes
}
