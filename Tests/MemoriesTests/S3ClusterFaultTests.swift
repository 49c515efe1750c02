import BlobStore
import BlobStoreS3
import Foundation
import Testing
import LoopbackListener

/// Set by scripts/test.sh when the Ceph packages are there (its shared cluster started).
let s3FaultTestsEnabled = ProcessInfo.processInfo.environment["S3_FAULT_TESTS"] == "1"

/// The real daemons killed under a running import. These tests bring up a one-node Ceph cluster
/// of their own (scripts/s3-test-cluster.sh with another folder and ports), so killing its gateway
/// or its OSD does not disturb the shared cluster the other S3 tests use at the same time.
@Suite(.serialized, .enabled(if: s3FaultTestsEnabled, "needs S3_FAULT_TESTS=1 and the Ceph packages (scripts/test.sh sets it)"))
final class S3ClusterFaultTests {
    let dir: URL
    let port: Int
    let monPort: Int
    let endpoint: String
    let log: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("memories-s3-faults-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        log = dir.appendingPathComponent("script.log")
        port = try freeLoopbackPort()
        monPort = try freeLoopbackPort()
        endpoint = "http://127.0.0.1:\(port)"
        try cluster("start", within: 300)
    }

    deinit {
        try? cluster("purge", within: 120)
        try? FileManager.default.removeItem(at: dir)
    }

    /// Runs scripts/s3-test-cluster.sh on this suite's cluster, its output into `log`, and fails if
    /// it has not ended within `seconds`. Not through Foundation's `Process`: the daemons the script
    /// starts would inherit the descriptor by which `Process` learns that its child ended, and it
    /// would wait for them (hours) instead of the script.
    func cluster(_ verb: String, within seconds: Double) throws {
        var env = ProcessInfo.processInfo.environment
        env["S3_CLUSTER_DIR"] = dir.appendingPathComponent("cluster").path
        env["S3_CLUSTER_PORT"] = "\(port)"
        env["S3_CLUSTER_MON_PORT"] = "\(monPort)"
        env["S3_CLUSTER_OSD_SIZE"] = "3G"
        let script = packageRoot.appendingPathComponent("scripts/s3-test-cluster.sh").path
        guard let status = try spawnAndWait(["/bin/bash", script, verb], environment: env, output: log, within: seconds) else {
            // The script is killed, not the daemons it started: they go with a purge.
            if verb != "purge" { _ = try? spawnAndWait(["/bin/bash", script, "purge"], environment: env, output: log, within: 120) }
            throw FaultTestError("s3-test-cluster.sh \(verb) did not end in \(Int(seconds)) s: \(logTail())")
        }
        guard status == 0 else { throw FaultTestError("s3-test-cluster.sh \(verb) failed (\(status)): \(logTail())") }
    }

    func logTail() -> String { String((try? String(contentsOf: log, encoding: .utf8))?.suffix(2000) ?? "") }

    /// The pid of one of the cluster's daemons, from its pid file.
    func pid(_ name: String) throws -> pid_t {
        let file = dir.appendingPathComponent("cluster/run/\(name).pid")
        let text = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(pid_t(text), "pid file \(file.path): \(text)")
    }

    /// A library in a new bucket of this cluster.
    func library(_ box: Sandbox) throws -> S3Client {
        let name = "fault-" + UUID().uuidString.lowercased().prefix(12)
        let client = S3Client(location: try S3Location("s3://\(name)/journal", endpoint: endpoint), credentials: try S3Credentials.resolve())
        try client.createBucket()
        let made = try box.run("init", "--blobs", "s3://\(name)/journal", "--endpoint", endpoint)
        #expect(made.status == 0, "\(made.stderr)")
        return client
    }

    /// Photos the library's store holds now, read by sqlite3 beside the running import (WAL).
    func committedPhotos(_ box: Sandbox) -> Int {
        let out = box.url.appendingPathComponent("count.out")
        let store = box.library.appendingPathComponent("library.store").path
        guard (try? spawnAndWait(["/usr/bin/sqlite3", "-readonly", store, "SELECT count(*) FROM MemoryImage"],
                                 environment: [:], output: out, within: 10)) == 0 else { return 0 }
        defer { try? FileManager.default.removeItem(at: out) }
        return Int((try? String(contentsOf: out, encoding: .utf8))?.split(separator: "\n").last ?? "") ?? 0
    }

    /// Starts an import of `folder` with its output in files, waits until the bucket holds
    /// `objects` originals or thumbnails and the store at least one committed photo, then runs
    /// `kill`; returns the import's status and stderr once it has ended (within two minutes).
    func importKilled(_ box: Sandbox, _ folder: URL, bucket: S3Client, after objects: Int, environment: [String: String] = [:],
                      kill: () throws -> Void) throws -> (status: Int32, stderr: String, seenBeforeKill: Int) {
        let errFile = box.url.appendingPathComponent("import.err")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let err = try FileHandle(forWritingTo: errFile)
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent(".build/debug/memories")
        process.arguments = ["--library", box.library.path, "import", folder.path, "--title", "Kept", "--jobs", "1"]
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var seen = 0
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline {
            seen = (try? bucket.list(prefix: "sha256/").count) ?? seen
            if seen >= objects && committedPhotos(box) > 0 { break }
            usleep(20_000)
        }
        try kill()
        let ended = wait(process, seconds: 120)
        if !ended { process.terminate(); _ = wait(process, seconds: 10) }
        #expect(ended, "the import hung after the kill")
        return (process.terminationStatus, (try? String(contentsOf: errFile, encoding: .utf8)) ?? "", seen)
    }

    /// radosgw SIGKILLed while an import uploads: the import fails naming the endpoint, every
    /// committed photo is in the bucket, and after a restart the same import completes.
    @Test func theGatewayKilledMidImport() throws {
        let box = Sandbox()
        let s3 = try library(box)
        let photos = box.url.appendingPathComponent("photos")
        try distinctPhotos(200, in: photos)
        let gateway = try pid("client.rgw.a")
        let cut = try importKilled(box, photos, bucket: s3, after: 60) { Foundation.kill(gateway, SIGKILL) }
        #expect(cut.seenBeforeKill >= 60 && cut.seenBeforeKill < 201, "killed part way (200 originals and one thumbnail they share): \(cut.seenBeforeKill) objects")
        #expect(cut.status == 1 && cut.stderr.contains("127.0.0.1:\(port)"), "\(cut.status) \(cut.stderr)")

        try cluster("start", within: 180)  // a new gateway over the same data
        let check = try box.run("verify", "--json")
        let report = try check.json(VerifyJSON.self)
        #expect(report.missing.isEmpty && report.corrupt.isEmpty, "\(check.stdout)")
        let kept = try box.run("list", "--json").json([ListJSON].self).first?.imageCount ?? 0
        #expect(kept > 0 && kept < 200, "the kill came after a commit and before the end: \(kept) photos committed")
        let again = try box.run("import", photos.path, "--title", "Kept")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.imageCount) == [200])
        #expect(try box.run("verify").status == 0)
    }

    /// The OSD SIGKILLed while an import uploads: the gateway takes requests it cannot serve, the
    /// import times out saying the service stopped answering, nothing is committed that the bucket
    /// lacks, and once the OSD is back the import completes.
    @Test func theStorageDaemonKilledMidImport() throws {
        let box = Sandbox()
        let s3 = try library(box)
        let photos = box.url.appendingPathComponent("photos")
        try distinctPhotos(200, in: photos)
        let osd = try pid("osd.0")
        let cut = try importKilled(box, photos, bucket: s3, after: 60, environment: ["MEMORIES_S3_TIMEOUT": "3"]) { Foundation.kill(osd, SIGKILL) }
        #expect(cut.seenBeforeKill >= 60 && cut.seenBeforeKill < 201, "killed part way (200 originals and one thumbnail they share): \(cut.seenBeforeKill) objects")
        #expect(cut.status == 1 && cut.stderr.contains("stopped answering"), "\(cut.status) \(cut.stderr)")

        try cluster("start", within: 180)  // the OSD again, over its BlueStore file
        // The gateway may take a moment to find the new OSD: wait until the bucket answers.
        s3.stallTimeout = 5
        s3.retries = 0
        let deadline = Date().addingTimeInterval(120)
        while (try? s3.list(prefix: "sha256/")) == nil && Date() < deadline { sleep(1) }
        let check = try box.run("verify", "--json")
        let report = try check.json(VerifyJSON.self)
        #expect(report.missing.isEmpty && report.corrupt.isEmpty, "\(check.stdout)")
        let again = try box.run("import", photos.path, "--title", "Kept")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.imageCount) == [200])
        #expect(try box.run("verify").status == 0)
    }
}

struct FaultTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether `process` ended within `seconds` (polled: Process has no timed wait).
func wait(_ process: Process, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning {
        if Date() > deadline { return false }
        usleep(50_000)
    }
    return true
}

/// Runs `argv` with its output appended to `output` and no other descriptor of this process
/// (closefrom 3), so that daemons it leaves running hold nothing of ours; its exit status, or nil
/// (after killing it) when it has not ended within `seconds`.
func spawnAndWait(_ argv: [String], environment: [String: String], output: URL, within seconds: Double) throws -> Int32? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift does not import.
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { throw FaultTestError("no posix_spawn_file_actions_addclosefrom_np") }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArgs + cEnv).forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
    guard spawned == 0 else { throw FaultTestError("posix_spawn \(argv[0]): \(String(cString: strerror(spawned)))") }
    let deadline = Date().addingTimeInterval(seconds)
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return nil
        }
        usleep(50_000)
    }
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

