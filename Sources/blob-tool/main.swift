// blob-tool: the blob store from the command line, for tests, benchmarks and by-hand recovery.
//
//   blob-tool put ROOT FILE...        store files (one batch), print "digest size new|dup" per file
//   blob-tool hold ROOT SECONDS FILE REFS  put FILE under the write lock, wait SECONDS, then "commit":
//                                    append its digest to REFS, and only then release the lock
//   blob-tool verify ROOT             re-hash everything, exit 0 only when healthy
//   blob-tool sweep ROOT [GRACE_S]    remove every blob (nothing is referenced here) and old temp files
//   blob-tool cat ROOT DIGEST         write a blob to stdout, verified
import BlobStore
import Foundation

func fail(_ message: String, _ code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("blob-tool: \(message)\n".utf8))
    exit(code)
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2 else { fail("usage: blob-tool put|hold|verify|sweep|cat ROOT ...", 64) }
do {
    let store = try BlobStore(root: URL(fileURLWithPath: args[1]))
    switch args[0] {
    case "put":
        let batch = BlobBatch(store: store)
        var results: [BlobStore.PutResult] = []
        let t0 = Date()
        for file in args.dropFirst(2) { results.append(try batch.put(contentsOf: URL(fileURLWithPath: file))) }
        let t1 = Date()
        try batch.commit()
        if ProcessInfo.processInfo.environment["BLOB_TOOL_TIMES"] != nil {
            FileHandle.standardError.write(Data("puts \(t1.timeIntervalSince(t0)) s, commit \(Date().timeIntervalSince(t1)) s\n".utf8))
        }
        for r in results { print("\(r.digest) \(r.size) \(r.isNew ? "new" : "dup")") }
    case "hold":
        guard args.count == 5, let seconds = Double(args[2]) else { fail("usage: blob-tool hold ROOT SECONDS FILE REFS", 64) }
        let lock = try store.writeLock()
        let r = try store.put(contentsOf: URL(fileURLWithPath: args[3]))
        print(r.digest)
        fflush(stdout)
        Thread.sleep(forTimeInterval: seconds)
        let refs = try FileHandle(forWritingTo: URL(fileURLWithPath: args[4]))
        try refs.seekToEnd()
        try refs.write(contentsOf: Data("\(r.digest)\n".utf8))
        try refs.synchronize()
        try refs.close()
        lock.unlock()
    case "verify":
        let report = try store.verify()
        print("checked \(report.checked) corrupt \(report.corrupt.count) stray \(report.stray.count) temp \(report.temporary.count)")
        exit(report.isHealthy && report.stray.isEmpty ? 0 : 1)
    case "sweep":
        let grace = args.count > 2 ? Double(args[2]) ?? 0 : 0
        let report = try store.sweep(gracePeriod: grace) { [] }
        print("orphans \(report.orphanBlobs) bytes \(report.bytesFreed) temp \(report.tempFilesRemoved)")
    case "cat":
        guard args.count == 3, let digest = BlobDigest(hex: args[2]) else { fail("usage: blob-tool cat ROOT DIGEST", 64) }
        try store.read(digest, verify: true) { bytes in FileHandle.standardOutput.write(Data(bytes)) }
    default:
        fail("unknown command \(args[0])", 64)
    }
} catch {
    fail("\(error.localizedDescription)")
}
