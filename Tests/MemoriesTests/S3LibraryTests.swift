import BlobStore
import BlobStoreS3
import Foundation
import Testing
import LoopbackListener
@testable import MemoriesKit

/// A real S3 service for the tests (`scripts/s3-test-cluster.sh start`, which scripts/test.sh does).
let s3LibraryEndpoint = ProcessInfo.processInfo.environment["S3_TEST_ENDPOINT"]

/// The journal with its photos in an S3 bucket, end to end through the `memories` program.
@Suite(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3LibraryTests {
    /// A new bucket, and a client on `prefix` in it.
    func bucket(prefix: String = "journal") throws -> S3Client {
        let name = "lib-" + UUID().uuidString.lowercased().prefix(16)
        let client = S3Client(location: try S3Location("s3://\(name)/\(prefix)", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
        try client.createBucket()
        return client
    }

    @Test func everyCommandWorksOnALibraryWhosePhotosAreInABucket() throws {
        let box = Sandbox()
        let s3 = try bucket()
        let url = "s3://\(s3.location.bucket)/journal"
        // A missing bucket is refused, naming it, and leaves the folder as it was.
        let missing = try box.run("init", "--blobs", "s3://no-such-bucket-\(UUID().uuidString.prefix(6).lowercased())/j", "--endpoint", s3LibraryEndpoint!)
        #expect(missing.status == 1 && missing.stderr.contains("the bucket does not exist"), "\(missing.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: box.library.path)) ?? []).isEmpty)
        #expect(try box.run("init", "--blobs", url).status == 64, "--blobs needs --endpoint")
        let made = try box.run("init", "--blobs", url, "--endpoint", s3LibraryEndpoint!)
        #expect(made.status == 0 && made.stdout.contains(url), "\(made.stderr)")
        let settings = try String(contentsOf: box.library.appendingPathComponent("blobs.json"), encoding: .utf8)
        #expect(settings.contains(url) && !settings.contains("testsecretkey") && !settings.contains("testaccesskey"), "no keys written: \(settings)")
        #expect(try box.run("init").status == 1, "a second init on the same folder is refused")

        // Import, list, show: the originals and thumbnails are objects, none in the folder.
        let rome = fixturePhotos.appendingPathComponent("Rome")
        let imported = try box.run("import", rome.path, "--title", "Rome", "--json")
        #expect(imported.status == 0, "\(imported.stderr)")
        let blobs = try s3.list(prefix: "sha256/")
        #expect(blobs.count == 8, "4 originals and 4 thumbnails: \(blobs.map(\.key))")
        #expect(!FileManager.default.fileExists(atPath: box.library.appendingPathComponent(".library_SUPPORT/sha256").path))
        #expect(try box.run("list").stdout.contains("4 photos"))
        let show = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        #expect(show.images.count == 4)

        // Export gives back every original byte for byte.
        let out = box.url.appendingPathComponent("export")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        for image in show.images {
            #expect(try sha256(out.appendingPathComponent(image.filename)) == image.sha256)
        }
        #expect(try box.run("verify").status == 0)
        #expect(try box.run("verify", "--quick").status == 0)
        #expect(try box.run("list", "--search", "IMG_0002").stdout.contains("Rome"), "search finds the memory by a file name")
        // The gallery's thumbnails and a re-encoded, stripped copy come from the bucket too.
        let gallery = box.url.appendingPathComponent("gallery")
        let html = try box.run("export", "Rome", gallery.path, "--html")
        #expect(html.status == 0, "\(html.stderr)")
        let galleryFiles = try FileManager.default.subpathsOfDirectory(atPath: gallery.path)
        #expect(galleryFiles.contains("index.html") && galleryFiles.filter { $0.hasPrefix("thumbs/") && $0.hasSuffix(".jpg") }.count >= 4, "\(galleryFiles.sorted())")
        let small = box.url.appendingPathComponent("small")
        #expect(try box.run("export", "Rome", small.path, "--format", "png", "--max-size", "64", "--strip-metadata").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).filter { $0.hasSuffix(".png") }.count == 4)
        let dry = try box.run("gc", "--dry-run", "--json").json(GCJSON.self)
        #expect(dry.dryRun && dry.orphanBlobs == 0 && dry.prunedBlobs == 0, "nothing is unreferenced: \(dry)")

        // An original deleted behind the library's back: verify names it; repair puts it back.
        let victim = try #require(show.images.first)
        try s3.delete("sha256/\(victim.sha256.prefix(2))/\(victim.sha256)")
        let broken = try box.run("verify", "--json")
        #expect(broken.status == 1 && broken.stdout.contains(victim.sha256), "\(broken.stdout)")
        let emptiedKey = "sha256/\(show.images[1].sha256.prefix(2))/\(show.images[1].sha256)"
        let kept = try s3.get(emptiedKey)
        try s3.put(emptiedKey, data: Data())
        let emptied = try box.run("verify", "--quick", "--json")
        #expect(try emptied.status == 1 && emptied.json(VerifyJSON.self).corrupt == [show.images[1].sha256], "an emptied object: \(emptied.stdout)")
        try s3.put(emptiedKey, data: kept)
        let listed = try box.run("verify", "--quick", "--json")
        #expect(try listed.status == 1 && listed.json(VerifyJSON.self).missing == [victim.sha256], "--quick sees it from the listing: \(listed.stdout)")
        let repaired = try box.run("repair", rome.path)
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        #expect(try box.run("verify").status == 0)
        #expect(try s3.head("sha256/\(victim.sha256.prefix(2))/\(victim.sha256)") != nil)

        // Edit and remove: a removed photo's original and thumbnail go to the bucket's trash.
        #expect(try box.run("edit", "Rome", "--notes", "forum").status == 0)
        #expect(try box.run("show", "Rome", "--json").json(ShowJSON.self).notes == "forum")
        let removed = try #require(show.images.last)
        #expect(try box.run("remove", "Rome", removed.filename).status == 0)
        #expect(try s3.head("sha256/\(removed.sha256.prefix(2))/\(removed.sha256)") == nil)
        #expect(try s3.head("trash/\(removed.sha256)") != nil)
        #expect(try s3.list(prefix: "sha256/").count == 6 && s3.list(prefix: "trash/").count == 2)
        #expect(try box.run("verify").status == 0)

        // Delete, then gc: to the bucket's trash first, then gone.
        #expect(try box.run("delete", "Rome", "--yes").status == 0)
        #expect(try s3.list(prefix: "sha256/").isEmpty)
        #expect(try s3.list(prefix: "trash/").count == 8)
        #expect(try box.run("gc", "--prune-now").status == 0)
        #expect(try s3.list(prefix: "trash/").isEmpty)

        // Another library on the same prefix would decide what is unused from an empty store: refused.
        let other = Sandbox()
        let second = try other.run("init", "--blobs", url, "--endpoint", s3LibraryEndpoint!)
        #expect(second.status == 1 && second.stderr.contains("does not belong"), "\(second.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: other.library.path)) ?? []).isEmpty)
    }

    /// `init` whose library folder fills up after the new store claimed the bucket prefix: the
    /// claim (the `owner` object) is given back, so the same `init` succeeds once there is room.
    @Test(.enabled(if: canMount, "needs root and tmpfs mounts"))
    func anInitThatFillsTheDiskGivesTheBucketPrefixBack() throws {
        let box = Sandbox()
        let s3 = try bucket()
        var failures = 0
        for kilobytes in [16, 32, 64, 96, 128, 160] {
            let prefix = "journal\(kilobytes)"
            let disk = box.url.appendingPathComponent("disk\(kilobytes)")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            #expect(mount("tmpfs", disk.path, "tmpfs", 0, "size=\(kilobytes)k") == 0)
            defer { umount2(disk.path, Int32(MNT_DETACH)) }
            let library = disk.appendingPathComponent("lib").path
            let arguments = ["--library", library, "init", "--blobs", "s3://\(s3.location.bucket)/journal/\(prefix)", "--endpoint", s3LibraryEndpoint!]
            let first = try box.run(arguments)
            #expect(mount("tmpfs", disk.path, "tmpfs", UInt(MS_REMOUNT), "size=64m") == 0)
            if first.status != 0 {
                failures += 1
                #expect(first.status == 1 && first.stderr.contains("the disk holding the library is full"), "\(kilobytes) KB: \(first.stderr)")
                #expect(try s3.list(prefix: "\(prefix)/owner").isEmpty, "\(kilobytes) KB: the claim was given back")
                let retry = try box.run(arguments)
                #expect(retry.status == 0, "\(kilobytes) KB: \(retry.stderr)")
            }
            #expect(try s3.list(prefix: "\(prefix)/owner").count == 1)
            let imported = try box.run(["--library", library, "import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "R"])
            #expect(imported.status == 0, "\(kilobytes) KB: \(imported.stderr)")
        }
        #expect(failures >= 3, "the small disks must make init fail for this test to say anything")
    }

    /// The service dies in the middle of an import (a proxy in front of it that drops dead after
    /// passing on 200 KB, as a killed gateway does): the import fails saying so, no memory
    /// references a photo the bucket lacks, and the same import run again completes.
    @Test func theServiceDyingMidImportLosesNothingAndARerunCompletes() throws {
        let box = Sandbox()
        let s3 = try bucket()
        let target = try #require(URL(string: s3LibraryEndpoint!))
        let proxy = try DyingProxy(to: target.host!, port: target.port ?? 80, dieAfter: 200_000)
        let url = "s3://\(s3.location.bucket)/journal"
        #expect(try box.run("init", "--blobs", url, "--endpoint", s3LibraryEndpoint!).status == 0)
        // From now on the library talks to the service through the proxy.
        let settings = box.library.appendingPathComponent("blobs.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try text.replacingOccurrences(of: s3LibraryEndpoint!, with: "http://127.0.0.1:\(proxy.port)").write(to: settings, atomically: true, encoding: .utf8)
        let folder = fixturePhotos.appendingPathComponent("Rome")
        let failed = try box.run("import", folder.path, "--title", "Rome")
        proxy.stop()
        #expect(failed.status == 1 && failed.stderr.contains("127.0.0.1:\(proxy.port)"), "\(failed.status) \(failed.stderr)")
        // Whatever the store recorded, the bucket has: verify through the real endpoint.
        try text.write(to: settings, atomically: true, encoding: .utf8)
        let check = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(check.missing.isEmpty && check.corrupt.isEmpty, "\(check)")
        let again = try box.run("import", folder.path, "--title", "Rome")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try box.run("show", "Rome", "--json").json(ShowJSON.self).images.count == 4)
        #expect(try box.run("verify").status == 0)
    }

    /// `blobs push` moves a local library's photos into a bucket and `blobs pull` back, each
    /// confirmed before the switch; an interrupted push leaves the library where it was, and the
    /// re-run skips what was copied.
    @Test func pushAndPullMoveEveryPhotoAndResumeAfterAnInterruption() throws {
        let box = Sandbox()
        let s3 = try bucket()
        let url = "s3://\(s3.location.bucket)/journal"
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "-q").status == 0)
        let local = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        // Through a service that dies after 100 KB: the push fails and the library stays local.
        let target = try #require(URL(string: s3LibraryEndpoint!))
        let proxy = try DyingProxy(to: target.host!, port: target.port ?? 80, dieAfter: 100_000)
        let cut = try box.run("blobs", "push", "--to", url, "--endpoint", "http://127.0.0.1:\(proxy.port)", "-j", "1")
        proxy.stop()
        #expect(cut.status == 1, "\(cut.stdout)\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.library.appendingPathComponent("blobs.json").path))
        #expect(try box.run("verify").status == 0, "still whole where it was")
        let partial = try s3.list(prefix: "sha256/").count
        #expect(partial < 8)
        // Again, with the service up: what was copied is skipped, then the library switches.
        let pushed = try box.run("blobs", "push", "--to", url, "--endpoint", s3LibraryEndpoint!, "--json")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(pushed.stdout.utf8)) as? [String: Any]
        #expect(report?["alreadyThere"] as? Int == partial && report?["copied"] as? Int == 8 - partial, "\(pushed.stdout)")
        #expect(try s3.list(prefix: "sha256/").count == 8)
        #expect(FileManager.default.fileExists(atPath: box.library.appendingPathComponent("blobs.json").path))
        #expect(try box.run("verify").status == 0)
        // Served from the bucket now: an export still gives the originals back.
        let out = box.url.appendingPathComponent("export")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        for image in local.images { #expect(try sha256(out.appendingPathComponent(image.filename)) == image.sha256) }
        #expect(try box.run("blobs", "push", "--to", url, "--endpoint", s3LibraryEndpoint!).status == 1, "in a bucket already")
        // And back: the folder is the library's again, every photo in it.
        #expect(try box.run("blobs", "pull").status == 0)
        #expect(!FileManager.default.fileExists(atPath: box.library.appendingPathComponent("blobs.json").path))
        #expect(box.blobFiles().count == 8)
        #expect(try box.run("verify").status == 0)
        #expect(try box.run("blobs", "sideways").status == 64)
    }

    /// A service that takes connections and never answers (a gateway whose storage daemon is
    /// down): requests time out, are retried, and the command fails saying the service stopped
    /// answering; nothing is imported.
    /// A process that opened the library before a push (or pull) must not go on writing to the
    /// place the photos left: its next save refuses, naming where they went.
    @Test func aProcessOpenedBeforeAMoveRefusesToWriteWhereThePhotosWere() throws {
        let box = Sandbox()
        let s3 = try bucket()
        let url = "s3://\(s3.location.bucket)/journal"
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "-q").status == 0)
        let stale = try Library(directory: box.library)
        #expect(try box.run("blobs", "push", "--to", url, "--endpoint", s3LibraryEndpoint!).status == 0)
        var options = ImportOptions()
        options.title = "Paris"
        let late = #expect(throws: BlobStoreError.self) {
            _ = try stale.importPhotos([fixturePhotos.appendingPathComponent("Paris").path], options: options)
        }
        #expect(late == .moved(to: url), "\(String(describing: late))")
        #expect(box.blobFiles().count == 8, "nothing new in the folder the photos left")
        // Opened now, the library writes to the bucket; and the same for a pull in reverse.
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris", "-q").status == 0)
        let onBucket = try Library(directory: box.library)
        #expect(try box.run("blobs", "pull").status == 0)
        let refused = #expect(throws: BlobStoreError.self) { _ = try onBucket.importPhotos([fixturePhotos.appendingPathComponent("Rome").path], options: options) }
        guard case .moved? = refused else { Issue.record("not refused as moved: \(String(describing: refused))"); return }
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--into", "Paris", "-q").status == 0)
        #expect(try box.run("verify").status == 0)
        // A prefix holding files but no owner record is refused as a push target.
        let foreign = try bucket(prefix: "theirs")
        try foreign.put("sha256/ab/" + String(repeating: "ab", count: 32), data: Data("someone's".utf8))
        let other = try box.run("blobs", "push", "--to", "s3://\(foreign.location.bucket)/theirs", "--endpoint", s3LibraryEndpoint!)
        #expect(other.status == 1 && other.stderr.contains("no owner record"), "\(other.stderr)")
    }

    @Test func aServiceThatNeverAnswersTimesOutWithAClearMessage() throws {
        let box = Sandbox()
        let s3 = try bucket()
        #expect(try box.run("init", "--blobs", "s3://\(s3.location.bucket)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
        let silent = try DyingProxy(to: "127.0.0.1", port: 9, dieAfter: .max, answers: false)
        let settings = box.library.appendingPathComponent("blobs.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try text.replacingOccurrences(of: s3LibraryEndpoint!, with: "http://127.0.0.1:\(silent.port)").write(to: settings, atomically: true, encoding: .utf8)
        let hung = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", environment: ["MEMORIES_S3_TIMEOUT": "1"])
        // An init stopped while it waits for the bucket to answer leaves nothing behind (a store
        // file made first would have made every later init say the folder holds a library).
        let other = box.url.appendingPathComponent("other")
        let waiting = box.start(["--library", other.path, "init", "--blobs", "s3://\(s3.location.bucket)/other",
                                 "--endpoint", "http://127.0.0.1:\(silent.port)"], environment: ["MEMORIES_S3_TIMEOUT": "20"])
        usleep(700_000)
        waiting.process.terminate()
        waiting.process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: other.appendingPathComponent("library.store").path))
        #expect(try box.run(["--library", other.path, "init", "--blobs", "s3://\(s3.location.bucket)/other", "--endpoint", s3LibraryEndpoint!]).status == 0)
        silent.stop()
        #expect(hung.status == 1 && hung.stderr.contains("stopped answering"), "\(hung.stderr)")
        try text.write(to: settings, atomically: true, encoding: .utf8)
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty)
        #expect(try s3.list(prefix: "sha256/").isEmpty)
    }

    @Test func wrongCredentialsAndAStoppedServiceAreSaidPlainly() throws {
        let box = Sandbox()
        let s3 = try bucket()
        #expect(try box.run("init", "--blobs", "s3://\(s3.location.bucket)/journal", "--endpoint", s3LibraryEndpoint!).status == 0)
        // Opening checks the store against the bucket's owner record, so even `list` needs the keys.
        let wrong = try box.run("list", environment: ["AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(wrong.status == 1 && wrong.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(wrong.stderr)")
        let refused = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome",
                                  environment: ["AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(refused.status == 1 && refused.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(refused.stderr)")
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty, "nothing was imported")
        // Nothing listening at the endpoint: a network error naming it.
        let settings = box.library.appendingPathComponent("blobs.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try text.replacingOccurrences(of: s3LibraryEndpoint!, with: "http://127.0.0.1:9").write(to: settings, atomically: true, encoding: .utf8)
        let down = try box.run("list")
        #expect(down.status == 1 && down.stderr.contains("127.0.0.1:9"), "\(down.stderr)")
        try text.write(to: settings, atomically: true, encoding: .utf8)
        let noKeys = try box.run("list", environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": box.url.path])
        #expect(noKeys.status == 1 && noKeys.stderr.contains("no S3 credentials"), "\(noKeys.stderr)")
    }
}

/// A TCP proxy to `host:port` on a port of its own that, once it has passed on `dieAfter` bytes
/// towards the service, closes every connection and stops accepting: a gateway killed mid-transfer.
/// With `answers: false` it takes connections and requests and never answers: a gateway whose
/// storage is down.
final class DyingProxy: @unchecked Sendable {
    let port: Int
    private let listener: LoopbackListener
    private var stopped = false
    private let lock = NSLock()
    private var sockets: [Int32] = []
    private var forwarded = 0
    private let limit: Int

    init(to host: String, port target: Int, dieAfter limit: Int, answers: Bool = true) throws {
        listener = try LoopbackListener()
        port = listener.port
        self.limit = limit
        listener.serve { [weak self] client in
            guard let self else { close(client); return false }
            guard answers else {
                // Takes the request and never answers.
                guard adopt([client]) else { return false }
                Thread.detachNewThread { Self.pump(client, -1) { _ in false } }
                return true
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var to = sockaddr_in()
            to.sin_family = sa_family_t(AF_INET)
            to.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
            to.sin_port = UInt16(target).bigEndian
            _ = withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard adopt([client, upstream]) else { return false }
            // Service → client as it comes; client → service until the limit, then death.
            Thread.detachNewThread { Self.pump(upstream, client) { _ in true } }
            Thread.detachNewThread {
                Self.pump(client, upstream) { n in
                    self.lock.lock()
                    self.forwarded += n
                    let alive = self.forwarded < self.limit
                    self.lock.unlock()
                    if !alive { self.stop() }
                    return alive
                }
            }
            return true
        }
    }

    /// Records connections to cut off when the proxy dies; a connection accepted as it died is
    /// cut off at once (false).
    private func adopt(_ fds: [Int32]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else {
            for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
            return false
        }
        sockets += fds
        return true
    }

    private static func pump(_ from: Int32, _ to: Int32, _ allow: (Int) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            guard n > 0, allow(n) else { return }
            var sent = 0
            while sent < n {
                // send with MSG_NOSIGNAL: a peer gone (the proxy's own death, or the service's) is
                // EPIPE here, not a SIGPIPE that kills the whole test process.
                let m = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                guard m > 0 else { return }
                sent += m
            }
        }
    }

    /// Closes the listener and every connection (idempotent).
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        listener.stop()
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }
}
