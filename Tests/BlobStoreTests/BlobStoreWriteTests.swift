import Foundation
import Testing
@testable import BlobStore

@Suite struct BlobStoreWriteTests {
    @Test func blobsAreNamedByTheirSHA256InATwoCharacterFanOut() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let result = try store.put(Data("abc".utf8))
        #expect(result.digest.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(result.isNew && result.size == 3)
        #expect(files(under: dir.url.appendingPathComponent("sha256")) == ["ba/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"])
        #expect(try Data(contentsOf: store.url(for: result.digest)) == Data("abc".utf8))
        #expect(files(under: dir.url.appendingPathComponent("tmp")).isEmpty)
    }

    @Test func aDuplicatePutRewritesNothingAndRefreshesTheTimeStamp() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let first = try store.put(Data("same".utf8))
        let path = store.url(for: first.digest).path
        var old = timespec(tv_sec: 1_000_000_000, tv_nsec: 0)
        var times = [old, old]
        _ = utimensat(AT_FDCWD, path, &times, 0)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let second = try store.put(Data("same".utf8))
        #expect(second.digest == first.digest && !second.isNew)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        let mtime = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        #expect(mtime.timeIntervalSince1970 > 1_500_000_000)
        _ = old
        old = timespec()
    }

    @Test func streamingPutMatchesInMemoryPutForALargeFile() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent("store"))
        let data = randomData(3 * (1 << 20) + 12345, seed: 7)
        let file = dir.file("big.bin", data)
        let streamed = try store.put(contentsOf: file)
        #expect(streamed.digest == SHA256.digest(data) && streamed.size == Int64(data.count))
        #expect(!(try store.put(data)).isNew)
        #expect(try store.read(streamed.digest, verify: true) == data)
        #expect(try store.size(of: streamed.digest) == Int64(data.count))
    }

    /// Sizes around the copy chunk (1 MiB) and the parallel-hashing threshold (64 KiB): each chunk
    /// is hashed on a second thread while it is written, so a lost or repeated chunk would show here.
    @Test(arguments: [0, 1, 65_535, 65_536, 1 << 20, (1 << 20) + 1, 2 << 20])
    func streamedAndInMemoryPutsHashAndStoreEverySizeExactly(size: Int) throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent("store"))
        let data = randomData(size, seed: UInt64(size) + 1)
        let streamed = try store.put(contentsOf: dir.file("f.bin", data))
        let expected = SHA256.digest(data)
        #expect(streamed.digest == expected && streamed.size == Int64(size))
        #expect(try Data(contentsOf: store.url(for: expected)) == data)
        try FileManager.default.removeItem(at: store.url(for: expected))
        #expect(try store.put(data).digest == expected)
        #expect(try Data(contentsOf: store.url(for: expected)) == data)
    }

    @Test func concurrentPutsOfTheSameContentFromManyThreadsStoreOneBlob() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let data = randomData(200_000, seed: 3)
        let results = UnsafeMutableBufferPointer<BlobDigest?>.allocate(capacity: 16)
        defer { results.deallocate() }
        results.initialize(repeating: nil)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            results[i] = try? store.put(data).digest
        }
        #expect(Set(results.compactMap { $0 }).count == 1 && results.allSatisfy { $0 != nil })
        #expect(files(under: dir.url.appendingPathComponent("sha256")).count == 1)
        #expect(files(under: dir.url.appendingPathComponent("tmp")).isEmpty)
        #expect(try store.verify().isHealthy)
    }

    @Test func twoProcessesPuttingTheSameFilesStoreEachOnce() throws {
        let dir = TemporaryDirectory()
        let inputs = (0..<20).map { dir.file("f\($0)", randomData(50_000, seed: UInt64($0 + 1))) }
        let root = dir.url.appendingPathComponent("store").path
        let a = try startTool(["put", root] + inputs.map(\.path))
        let b = try startTool(["put", root] + inputs.map(\.path))
        let outA = String(decoding: a.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let outB = String(decoding: b.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        a.0.waitUntilExit()
        b.0.waitUntilExit()
        #expect(a.0.terminationStatus == 0 && b.0.terminationStatus == 0)
        let digestsA = outA.split(separator: "\n").map { $0.split(separator: " ")[0] }
        let digestsB = outB.split(separator: "\n").map { $0.split(separator: " ")[0] }
        #expect(digestsA.count == 20 && digestsA == digestsB)
        #expect(files(under: dir.url.appendingPathComponent("store/sha256")).count == 20)
        let report = try BlobStore(root: URL(fileURLWithPath: root)).verify()
        #expect(report.isHealthy && report.checked == 20 && report.temporary.isEmpty)
    }

    @Test(arguments: CrashPoint.allCases.map(\.rawValue))
    func aCrashAtEachStepOfAWriteLeavesAValidStore(point: String) throws {
        let dir = TemporaryDirectory()
        let data = randomData(100_000, seed: 11)
        let input = dir.file("photo.jpg", data)
        let root = dir.url.appendingPathComponent("store")
        let (status, _) = try runTool(["put", root.path, input.path], environment: ["BLOBSTORE_CRASH_AT": point])
        #expect(status == 99, "the tool should have died at \(point)")
        let store = try BlobStore(root: root)
        let report = try store.verify()
        #expect(report.isHealthy && report.corrupt.isEmpty && report.stray.isEmpty)
        let digest = SHA256.digest(data)
        // Either the blob is absent, or it is complete under its name: never a partial file.
        if store.contains(digest) { #expect(try store.read(digest, verify: true) == data) }
        // Leftovers are temp files only, and the next sweep removes them.
        let sweep = try store.sweep(gracePeriod: 0) { [digest] }
        #expect(sweep.tempFilesRemoved == report.temporary.count && sweep.orphanBlobs == 0)
        #expect(files(under: root.appendingPathComponent("tmp")).isEmpty)
        // And the write can simply be done again.
        #expect(try store.put(contentsOf: input).digest == digest)
        #expect(try store.read(digest, verify: true) == data)
    }
}
