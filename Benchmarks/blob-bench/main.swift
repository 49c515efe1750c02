// BlobStore against cp, sha256sum and find, side by side in one run.
//
//   swift run -c release blob-bench PHOTOS_DIR [SWEEP_BLOBS=100000]
//
//   put        every photo into a fresh store (streamed, hashed, linked, data synced once with
//              syncfs, directories synced once), on one thread and on two  vs  `cp -r` of the same
//              folder (no sync) and `cp -r` + `sync -f`
//   hash       SHA-256 of every photo (read + hash, libcrypto)  vs  `sha256sum` of the same files
//   sweep      a sweep over SWEEP_BLOBS blobs (listing, stat, keeping half, dry run)  vs
//              `find ROOT/sha256 -type f` listing the same tree
// Each figure: median of 5 runs of both (sweep: 3), and the throughput ratio (BlobStore / peer; >1 is faster).
import BlobStore
import Foundation

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

@discardableResult
func shell(_ command: String) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    p.standardOutput = FileHandle.nullDevice
    try! p.run()
    p.waitUntilExit()
    return p.terminationStatus
}

func timed(_ body: () throws -> Void) rethrows -> Double {
    let t = now()
    try body()
    return now() - t
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

let args = CommandLine.arguments.dropFirst()
guard let photosArg = args.first else {
    print("usage: blob-bench PHOTOS_DIR [SWEEP_BLOBS]")
    exit(64)
}
let photos = URL(fileURLWithPath: photosArg)
let sweepCount = args.dropFirst().first.flatMap { Int($0) } ?? 100_000
let files = (FileManager.default.enumerator(at: photos, includingPropertiesForKeys: [.isRegularFileKey])!
    .compactMap { $0 as? URL }
    .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true })
let totalBytes = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0) }
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("blob-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let mb = Double(totalBytes) / 1e6
print("# \(files.count) files, \(String(format: "%.1f", mb)) MB from \(photos.path); scratch \(scratch.path)")
let list = scratch.appendingPathComponent("files.txt")
try files.map(\.path).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
shell("tr '\\n' '\\0' < '\(list.path)' | xargs -0 cat > /dev/null")  // warm the page cache

var put: [Double] = [], put2: [Double] = [], cp: [Double] = [], cpSync: [Double] = [], hash: [Double] = [], sum: [Double] = []
// Nothing is deleted until the end: ext4 (without a journal, as here) skips inodes freed in the
// last 5 s (300 s while their inode-table block is dirty) when it allocates new ones, so a copy
// made just after deleting the previous one pays for a long bitmap scan. Every timed copy starts
// after a sync, so none pays for the previous one's writeback.
for rep in 0..<5 {
    let storeRoot = scratch.appendingPathComponent("store\(rep)")
    shell("sync")
    var loop = 0.0
    put.append(try timed {
        let store = try BlobStore(root: storeRoot)
        let batch = BlobBatch(store: store)
        loop = try timed { for f in files { _ = try batch.put(contentsOf: f) } }
        try batch.commit()
    })
    print(String(format: "# put %d: puts %.3f s, commit %.3f s", rep, loop, put.last! - loop))
    let copy = scratch.appendingPathComponent("copy\(rep)")
    shell("sync")
    cp.append(timed { shell("cp -r '\(photos.path)' '\(copy.path)'") })
    // The same with two threads putting into one batch (as an import with --jobs 2 does).
    let storeRoot2 = scratch.appendingPathComponent("store2-\(rep)")
    shell("sync")
    put2.append(try timed {
        let store = try BlobStore(root: storeRoot2)
        let batch = BlobBatch(store: store)
        try concurrentForEach(files.count, jobs: 2) { i in _ = try batch.put(contentsOf: files[i]) }
        try batch.commit()
    })
    let copySynced = scratch.appendingPathComponent("copy-synced\(rep)")
    shell("sync")
    cpSync.append(timed { shell("cp -r '\(photos.path)' '\(copySynced.path)' && sync -f '\(copySynced.path)'") })
    hash.append(try timed {
        for f in files {
            let h = SHA256()
            let handle = try FileHandle(forReadingFrom: f)
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { h.update(chunk) }
            try handle.close()
            _ = h.finish()
        }
    })
    sum.append(timed { shell("tr '\\n' '\\0' < '\(list.path)' | xargs -0 sha256sum > /dev/null") })
}

// A tree of small blobs, written directly (no sync) to save time building it.
let sweepRoot = scratch.appendingPathComponent("sweep")
let sweepStore = try BlobStore(root: sweepRoot)
var digests: [BlobDigest] = []
for i in 0..<sweepCount {
    let data = Data("blob \(i)".utf8)
    let d = SHA256.digest(data)
    let dir = sweepRoot.appendingPathComponent("sha256/\(d.prefix)")
    if i < 256 || !FileManager.default.fileExists(atPath: dir.path) { try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
    _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(d.hex).path, contents: data)
    digests.append(d)
}
let keep = Set(digests.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
var sweep: [Double] = [], find: [Double] = []
for _ in 0..<3 {
    shell("sync")
    sweep.append(try timed { _ = try sweepStore.sweep(gracePeriod: 0, dryRun: true) { keep } })
    find.append(timed { shell("find '\(sweepRoot.path)/sha256' -type f > /dev/null") })
}

func row(_ name: String, _ ours: [Double], _ peer: [Double], _ peerName: String, unit: String, amount: Double) {
    let a = median(ours), b = median(peer)
    print(String(format: "%@\t%.3f s (%.0f %@/s)\t%@ %.3f s (%.0f %@/s)\tratio %.2fx", name, a, amount / a, unit, peerName, b, amount / b, unit, b / a))
}
print("figure\tBlobStore\tpeer\tthroughput ratio (BlobStore/peer)")
row("put", put, cp, "cp -r", unit: "MB", amount: mb)
row("put", put, cpSync, "cp -r + sync -f", unit: "MB", amount: mb)
row("put, 2 threads", put2, cp, "cp -r", unit: "MB", amount: mb)
row("put, 2 threads", put2, cpSync, "cp -r + sync -f", unit: "MB", amount: mb)
row("hash", hash, sum, "sha256sum", unit: "MB", amount: mb)
row("sweep", sweep, find, "find -type f", unit: "blobs", amount: Double(sweepCount))
