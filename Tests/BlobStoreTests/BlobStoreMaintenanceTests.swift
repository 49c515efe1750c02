import Foundation
import Testing
@testable import BlobStore

@Suite struct BlobStoreMaintenanceTests {
    @Test func verifyFindsAFlippedByteATruncatedBlobAMissingOneAndStrayFiles() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let a = try store.put(randomData(10_000, seed: 1)).digest
        let b = try store.put(randomData(10_000, seed: 2)).digest
        let c = try store.put(randomData(10_000, seed: 3)).digest
        let gone = try store.put(randomData(10_000, seed: 4)).digest
        // Flip one byte of a, truncate b, remove `gone`, drop a stray file and a temp file.
        var bytes = try Data(contentsOf: store.url(for: a))
        bytes[5000] ^= 0x01
        try bytes.write(to: store.url(for: a))
        let handle = try FileHandle(forWritingTo: store.url(for: b))
        try handle.truncate(atOffset: 4000)
        try handle.close()
        try store.remove(gone)
        try Data("x".utf8).write(to: dir.url.appendingPathComponent("sha256/notes.txt"))
        try Data("y".utf8).write(to: dir.url.appendingPathComponent("tmp/abandoned.part"))
        var calls = 0
        var totals: Set<Int> = []
        let report = try store.verify(expected: [a, b, c, gone]) { _, total, _ in calls += 1; totals.insert(total) }
        #expect(report.corrupt == [a, b].sorted())
        #expect(report.missing == [gone])
        #expect(report.stray == [dir.url.appendingPathComponent("sha256/notes.txt").path])
        #expect(report.temporary == [dir.url.appendingPathComponent("tmp/abandoned.part").path])
        #expect(report.checked == 3 && calls == 3 && totals == [3] && !report.isHealthy)
        #expect(throws: BlobStoreError.self) { try store.read(a, verify: true) }
        let limited = try store.verify(only: [c])
        #expect(limited.checked == 1 && limited.isHealthy)
    }

    @Test func exportRefusesADamagedBlobAndLeavesNoFile() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url.appendingPathComponent("store"))
        let digest = try store.put(randomData(5000, seed: 9)).digest
        let good = dir.url.appendingPathComponent("good.bin")
        try store.export(digest, to: good)
        #expect(SHA256.digest(try Data(contentsOf: good)) == digest)
        var bytes = try Data(contentsOf: store.url(for: digest))
        bytes[0] ^= 0xff
        try bytes.write(to: store.url(for: digest))
        let bad = dir.url.appendingPathComponent("bad.bin")
        #expect(throws: BlobStoreError.self) { try store.export(digest, to: bad) }
        #expect(!FileManager.default.fileExists(atPath: bad.path))
        #expect(files(under: dir.url).filter { $0.hasSuffix(".part") }.isEmpty)
    }

    @Test func sweepTrashesOnlyOldUnreferencedBlobsAndReportsThem() throws {
        let dir = TemporaryDirectory()
        let store = try BlobStore(root: dir.url)
        let kept = try store.put(randomData(1000, seed: 1)).digest
        let orphan = try store.put(randomData(2000, seed: 2)).digest
        let young = try store.put(randomData(3000, seed: 3)).digest
        try Data("t".utf8).write(to: dir.url.appendingPathComponent("tmp/old.part"))
        var old = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        for path in [store.url(for: kept).path, store.url(for: orphan).path, dir.url.appendingPathComponent("tmp/old.part").path] {
            _ = utimensat(AT_FDCWD, path, &old, 0)
        }
        let dry = try store.sweep(dryRun: true) { [kept] }
        var expected = BlobStore.SweepReport(dryRun: true)
        (expected.orphanBlobs, expected.orphanBytes, expected.orphans, expected.tempFilesRemoved, expected.keptYoung) = (1, 2000, [orphan], 1, 1)
        expected.trash = BlobStore.TrashSummary(count: 1, bytes: 2000)  // what the real sweep will leave
        #expect(dry == expected)
        #expect(store.contains(orphan) && !store.trashContains(orphan))
        let real = try store.sweep { [kept] }
        #expect(real.orphanBlobs == 1 && real.orphanBytes == 2000 && real.tempFilesRemoved == 1)
        #expect(real.bytesFreed == 0 && real.prunedBlobs == 0, "nothing is deleted on first sight")
        #expect(store.contains(kept) && !store.contains(orphan) && store.contains(young))
        #expect(store.trashContains(orphan) && real.trash.count == 1 && real.trash.bytes == 2000)
        #expect(dry.trash == real.trash, "the dry run predicts the trash")
    }

    @Test func aSweepWaitsForAWriterBetweenItsPutAndItsCommit() throws {
        let dir = TemporaryDirectory()
        let root = dir.url.appendingPathComponent("store")
        let store = try BlobStore(root: root)
        let input = dir.file("photo.jpg", randomData(40_000, seed: 5))
        let refs = dir.url.appendingPathComponent("refs.txt")
        try Data().write(to: refs)
        // The writer puts, holds the write lock for 0.5 s, then "commits" by recording the digest
        // in refs.txt, and only then releases the lock.
        let (writer, out) = try startTool(["hold", root.path, "0.5", input.path, refs.path], environment: [:])
        let digestLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let digest = try #require(BlobDigest(hex: digestLine.trimmingCharacters(in: .whitespacesAndNewlines)))
        // The sweep runs with no grace period: only the lock can protect the new blob. Had it not
        // waited for the writer, refs.txt would still be empty and the blob would be swept.
        let report = try store.sweep(gracePeriod: 0) {
            let text = try String(contentsOf: refs, encoding: .utf8)
            return Set(text.split(separator: "\n").compactMap { BlobDigest(hex: String($0)) })
        }
        writer.waitUntilExit()
        #expect(report.orphanBlobs == 0)
        #expect(store.contains(digest))
        #expect(try store.verify(expected: [digest]).isHealthy)
    }
}

/// `concurrentForEach` runs as many jobs at once as asked, whatever the core count: the S3
/// transfers it drives wait on the network, not the CPU.
@Suite struct ConcurrentForEachTests {
    @Test func eightJobsRunAtOnceOnAnyMachine() throws {
        let lock = NSCondition()
        var started = 0, reachedAll = 0
        try concurrentForEach(8, jobs: 8) { _ in
            lock.lock()
            defer { lock.unlock() }
            started += 1
            lock.broadcast()
            // Each job waits (up to 10 s) until all eight have started: that needs eight at once.
            let deadline = Date().addingTimeInterval(10)
            while started < 8 && lock.wait(until: deadline) {}
            if started == 8 { reachedAll += 1 }
        }
        #expect(reachedAll == 8, "\(reachedAll) of 8 jobs saw the others running")
    }

    @Test func theFirstErrorStopsTheRestAndIsThrown() {
        struct Stop: Error {}
        let lock = NSLock()
        var ran = 0
        #expect(throws: Stop.self) {
            try concurrentForEach(1000, jobs: 4) { i in
                lock.lock(); ran += 1; lock.unlock()
                if i == 3 { throw Stop() }
                usleep(1000)
            }
        }
        #expect(ran < 1000)
    }
}
