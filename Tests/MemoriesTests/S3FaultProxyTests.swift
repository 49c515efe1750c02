import BlobStore
import BlobStoreS3
import Foundation
import LoopbackListener
import Testing

/// The journal on a real S3 service (Ceph's gateway) reached through `FaultProxy`, which delays,
/// cuts, corrupts, fails and fakes what its rule says: nothing is taken as stored that the service
/// did not confirm, nothing intact is called damaged on one bad read, and failures are said with
/// the photo, the answer, the tries and what to do.
@Suite(.enabled(if: s3LibraryEndpoint != nil, "needs S3_TEST_ENDPOINT (scripts/s3-test-cluster.sh start)"))
struct S3FaultProxyTests {
    /// The fault each request gets, changed by the test as it goes.
    final class Rule: @unchecked Sendable {
        private let lock = NSLock()
        private var pick: @Sendable (FaultProxy.Request) -> FaultProxy.Fault = { _ in .none }
        func set(_ rule: @escaping @Sendable (FaultProxy.Request) -> FaultProxy.Fault) { lock.lock(); pick = rule; lock.unlock() }
        func callAsFunction(_ request: FaultProxy.Request) -> FaultProxy.Fault { lock.lock(); defer { lock.unlock() }; return pick(request) }
    }

    /// A library whose bucket is reached through a proxy following `rule`.
    func library(_ rule: Rule) throws -> (Sandbox, FaultProxy, S3Client) {
        let box = Sandbox()
        let proxy = try FaultProxy(upstream: s3LibraryEndpoint!) { rule($0) }
        let name = "faults-" + UUID().uuidString.lowercased().prefix(16)
        let direct = S3Client(location: try S3Location("s3://\(name)/journal", endpoint: s3LibraryEndpoint!), credentials: try S3Credentials.resolve())
        try direct.createBucket()
        let made = try box.run("init", "--blobs", "s3://\(name)/journal", "--endpoint", proxy.endpoint)
        #expect(made.status == 0, "\(made.stderr)")
        return (box, proxy, direct)
    }

    static func isBlob(_ request: FaultProxy.Request) -> Bool { request.target.contains("/sha256/") }

    /// A PUT answered 200 with nothing stored and no ETag (a lying gateway): every photo's first
    /// PUT is faked, each is tried again, and every photo is in the bucket; with every PUT faked,
    /// the import stores nothing, commits nothing and says why.
    @Test func aPutThatIsNotConfirmedIsNeverTakenAsStored() throws {
        let rule = Rule()
        let (box, proxy, direct) = try library(rule)
        defer { proxy.stop() }
        rule.set { Self.isBlob($0) && $0.method == "PUT" && $0.repeats == 0 ? .fakePut : .none }
        let rome = fixturePhotos.appendingPathComponent("Rome")
        let imported = try box.run("import", rome.path, "--title", "Rome")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(proxy.faults.filter { $0.fault == .fakePut }.count == 8, "4 photos and 4 thumbnails, each faked once: \(proxy.faults.count)")
        #expect(try direct.list(prefix: "sha256/").count == 8)
        #expect(try box.run("verify").status == 0)

        rule.set { Self.isBlob($0) && $0.method == "PUT" ? .fakePut : .none }
        let paris = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        #expect(paris.status == 1)
        #expect(paris.stderr.contains("could not be stored in the bucket: PUT journal/sha256/"), "\(paris.stderr)")
        #expect(paris.stderr.contains("the service did not confirm the write: it answered 200 with no ETag, so nothing says the bytes were stored (5 tries over"), "\(paris.stderr)")
        #expect(paris.stderr.contains("none was added before. Run the same import again to add the rest"), "\(paris.stderr)")
        rule.set { _ in .none }
        let listed = try box.run("list", "--json").json([ListJSON].self)
        #expect(listed.map(\.title) == ["Rome"], "no Paris memory, empty or not")
        #expect(try direct.list(prefix: "sha256/").count == 8, "nothing of Paris stored")
        #expect(try box.run("verify").status == 0)
    }

    /// A PUT answered 200 with an ETag that is no MD5 and the request's own checksum echoed (a
    /// lying proxy, the second outside attack's): not taken as stored, since the object itself
    /// (a HEAD) does not confirm it; the photos go up once the proxy forwards again.
    @Test func anEchoedChecksumIsNotTakenAsStored() throws {
        let rule = Rule()
        let (box, proxy, direct) = try library(rule)
        defer { proxy.stop() }
        rule.set { Self.isBlob($0) && $0.method == "PUT" ? .echoChecksum : .none }
        let rome = fixturePhotos.appendingPathComponent("Rome")
        let refused = try box.run("import", rome.path, "--title", "Rome")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the service did not confirm the write: it answered 200 with the checksum it was sent and the ETag kms-0123456789abcdef"), "\(refused.stderr)")
        #expect(refused.stderr.contains("and no object is there (HEAD answered 404)"), "\(refused.stderr)")
        #expect(try direct.list(prefix: "sha256/").isEmpty)
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty)
        #expect(proxy.faults.contains { $0.fault == .echoChecksum })
        rule.set { _ in .none }
        #expect(try box.run("import", rome.path, "--title", "Rome").status == 0)
        #expect(try direct.list(prefix: "sha256/").count == 8)
        #expect(try box.run("verify").status == 0)
    }

    /// A GET cut short under its Content-Length, then one with a byte flipped on the way: both read
    /// again, and the export is byte for byte, the verify healthy. An object whose every download
    /// is the same wrong bytes is damage in the bucket, said as such, and the rest is exported.
    @Test func readsCutShortOrCorruptedOnTheirWayAreReadAgain() throws {
        let rule = Rule()
        let (box, proxy, _) = try library(rule)
        defer { proxy.stop() }
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        let show = try box.run("show", "Rome", "--json").json(ShowJSON.self)
        rule.set { request in
            guard Self.isBlob(request), request.method == "GET" else { return .none }
            return request.repeats == 0 ? .cutBody : request.repeats == 1 ? .flipByte : .none
        }
        let out = box.url.appendingPathComponent("out")
        let exported = try box.run("export", "Rome", out.path)
        #expect(exported.status == 0, "\(exported.stderr)")
        for image in show.images { #expect(try sha256(out.appendingPathComponent(image.filename)) == image.sha256) }
        let verify = try box.run("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
        let html = try box.run("export", "Rome", box.url.appendingPathComponent("gallery").path, "--html")
        #expect(html.status == 0, "\(html.stderr)")

        let victim = show.images[0]
        rule.set { $0.method == "GET" && $0.target.contains(victim.sha256) ? .flipByte : .none }
        let damaged = try box.run("export", "Rome", box.url.appendingPathComponent("again").path)
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("\(victim.filename) is damaged in the bucket s3://"), "\(damaged.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.url.appendingPathComponent("again").path).filter { $0.hasSuffix(".jpg") }.count == 3)
        let bad = try box.run("verify")
        #expect(bad.status == 1 && bad.stdout.contains(victim.sha256), "\(bad.stdout)")
    }

    /// A service that answers 500 to every request for a photo: the import gives up after its tries,
    /// naming the photo, the answer, the tries and what to do, and leaves no memory.
    @Test func aFailingServiceIsSaidWithThePhotoTheAnswerAndTheTries() throws {
        let rule = Rule()
        let (box, proxy, _) = try library(rule)
        defer { proxy.stop() }
        let photo = try Data(contentsOf: fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"))
        let digest = SHA256.digest(photo).hex
        rule.set { $0.target.contains(digest) ? .status(500) : .none }
        let imported = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("/IMG_0004.jpg could not be stored in the bucket: "), "\(imported.stderr)")
        #expect(imported.stderr.contains(": the service answered HTTP 500 (internal error) (5 tries over "), "\(imported.stderr)")
        #expect(imported.stderr.contains("the service is failing or overloaded; run the same command again later"), "\(imported.stderr)")
        rule.set { _ in .none }
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty)
        let again = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try box.run("verify").status == 0)
    }

    /// Answers slower than usual (but within the stall limit) change nothing.
    @Test func slowAnswersAreWaitedFor() throws {
        let rule = Rule()
        let (box, proxy, _) = try library(rule)
        defer { proxy.stop() }
        rule.set { Self.isBlob($0) ? .delay(0.3) : .none }
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        #expect(try box.run("verify").status == 0)
    }

    static let faketime = "/usr/bin/faketime"

    /// This machine's clock two hours ahead of the service's (libfaketime, against the real gateway):
    /// said with the difference and what to do, not as `HTTP 403 RequestTimeTooSkewed`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: faketime), "needs faketime (scripts/setup.sh --tests)"))
    func aSkewedClockIsSaidWithTheDifference() throws {
        let rule = Rule()
        let (box, proxy, _) = try library(rule)
        defer { proxy.stop() }
        let skewed = try box.run(wrappedBy: [Self.faketime, "-f", "+2h"], ["import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris"])
        let stderr = skewed.stderr
        #expect(skewed.status == 1)
        #expect(stderr.contains("refused because this machine's clock is 2 h 0 min ahead of the service's (its answer was dated "), "\(stderr)")
        #expect(stderr.contains("Set this machine's clock right (`timedatectl set-ntp true`, or `date -s`) and run the same command again"), "\(stderr)")
        #expect(!stderr.contains("HTTP 403"))
    }
}
