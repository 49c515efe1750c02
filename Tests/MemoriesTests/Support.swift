import BlobStore
import Foundation

let packageRoot: URL = {
    var dir = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
    return dir
}()
let fixturePhotos = packageRoot.appendingPathComponent("Fixtures/photos")
let fixtureImages = packageRoot.appendingPathComponent("Fixtures/images")

/// A temporary folder for one test, with a library inside, and a way to run `memories` on it.
final class Sandbox {
    let url: URL
    var library: URL { url.appendingPathComponent("library") }

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("memories-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        func json<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: Data(stdout.utf8)) }
    }

    @discardableResult
    func run(_ args: String..., environment: [String: String] = [:]) throws -> Result {
        try run(args, environment: environment)
    }

    func run(_ args: [String], environment: [String: String] = [:]) throws -> Result {
        let process = start(["--library", library.path] + args, environment: environment)
        let out = process.out.fileHandleForReading.readDataToEndOfFile()
        let err = process.err.fileHandleForReading.readDataToEndOfFile()
        process.process.waitUntilExit()
        return Result(status: process.process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    func start(_ args: [String], environment: [String: String] = [:], stderr: FileHandle? = nil) -> (process: Process, out: Pipe, err: Pipe) {
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent(".build/debug/memories")
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"  // dates print in the user's zone: the same for every test machine
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = stderr ?? err
        process.standardInput = FileHandle.nullDevice
        try! process.run()
        return (process, out, err)
    }

    /// `memories --library <library> args…` started by `wrapper` (`["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""]`,
    /// `["/usr/bin/setpriv", …]`, `["/usr/bin/faketime", "-f", "+2h"]`), with `library` in place of the
    /// sandbox's when given: what a wrapper sets (a umask, capabilities, a clock, a limit) applies
    /// to the program.
    func run(wrappedBy wrapper: [String], _ args: [String], library: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrapper[0])
        process.arguments = Array(wrapper.dropFirst()) + [packageRoot.appendingPathComponent(".build/debug/memories").path,
                                                          "--library", (library ?? self.library).path] + args
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Blob files in the library.
    func blobFiles() -> [String] {
        let root = library.appendingPathComponent(".library_SUPPORT/sha256")
        return (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []).filter { $0.count > 3 }.sorted()
    }

    /// Runs one SQL statement on the library's store from another process (Python's sqlite3, as
    /// another program would), committed; the first column of its first row as text ("" if none).
    @discardableResult
    func sql(_ statement: String) throws -> String {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); c.commit(); print('' if r is None else r[0])",
                            library.appendingPathComponent("library.store").path, statement]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func copy(_ from: URL, to name: String) -> URL {
        let dest = url.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! FileManager.default.copyItem(at: from, to: dest)
        return dest
    }
}

/// What `import` reports, for a sync: the counts, those removed earlier, and how many files it
/// did not read.
struct SyncJSON: Decodable, Equatable {
    var imported: Int
    var alreadyInMemory: Int
    var repeatedInFolders: Int
    var removedEarlier: Int
    var skipped: Int
    var unchanged: Int
    var rejected: [ImportJSON.Rejection]
}

struct ImportJSON: Decodable {
    struct Ref: Decodable { var id: String; var title: String }
    struct Rejection: Decodable, Equatable { var path: String; var reason: String }
    var memory: Ref?
    var imported: Int
    var duplicates: Int
    var skipped: Int
    var rejected: [Rejection]
    var repaired: [String]
}

struct ListJSON: Decodable { var id: String; var title: String; var date: String; var imageCount: Int; var bytes: Int }
struct ShowJSON: Decodable {
    struct Image: Decodable {
        var id: String; var filename: String; var sha256: String; var format: String; var width: Int; var height: Int; var bytes: Int
        var takenAt: String?; var takenAtZoneKnown: Bool?; var fileModifiedAt: String?
    }
    var id: String; var title: String; var date: String; var notes: String; var images: [Image]
}
struct VerifyJSON: Decodable {
    var ok: Bool; var blobsChecked: Int; var missing: [String]; var corrupt: [String]; var inTrash: [String]; var orphans: Int
    var trashBlobs: Int; var trashBytes: Int; var database: String; var problems: [String]
}
struct GCJSON: Decodable {
    var orphanBlobs: Int; var orphanBytes: Int; var orphans: [String]; var prunedBlobs: Int; var bytesFreed: Int; var restoredBlobs: Int
    var tempFilesRemoved: Int; var trashBlobs: Int; var trashBytes: Int; var dryRun: Bool
    var warnings: [String]?; var failures: [String]?
}

func sha256(_ url: URL) throws -> String { SHA256.digest(try Data(contentsOf: url)).hex }

extension Sandbox {
    /// What `measured` saw of one run: its exit status, output and peak resident memory.
    struct Measured {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The program's own peak resident set, in bytes.
        var peakBytes: Int
    }

    /// Runs `memories --library <library> args…` and returns what `Measured` holds, killing it after
    /// `seconds` (a hang guard, not a timing). The peak is read by a small python3 parent from
    /// RUSAGE_CHILDREN: a child spawned by this test process would carry the test process's own
    /// peak across its exec (Linux keeps ru_maxrss through execve, and posix_spawn shares the
    /// parent's memory until then).
    func measured(_ args: [String], seconds: Double = 120) throws -> Measured {
        let peak = url.appendingPathComponent("peak-\(UUID().uuidString)")
        let parent = """
            import resource, subprocess, sys
            try:
                code = subprocess.run(sys.argv[3:], timeout=float(sys.argv[2])).returncode
            except subprocess.TimeoutExpired:
                code = 124
            open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
            sys.exit(code if code >= 0 else 128 - code)
            """
        let run = try self.run(wrappedBy: ["/usr/bin/env", "python3", "-c", parent, peak.path, String(seconds)], args)
        let kilobytes = Int((try? String(contentsOf: peak, encoding: .utf8)) ?? "") ?? Int.max / 1024
        return Measured(status: run.status, stdout: run.stdout, stderr: run.stderr, peakBytes: kilobytes * 1024)
    }
}
