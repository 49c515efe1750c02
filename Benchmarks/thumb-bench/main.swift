// Thumbnails: Imaging against vipsthumbnail, side by side in one run.
//
//   swift run -c release thumb-bench PHOTOS_DIR [JOBS=1] [REPS=3]
//
// Both make 256 px (longest side) JPEG Q80 thumbnails of every photo, EXIF orientation applied,
// with JOBS workers: vipsthumbnail as in ../shared/bench/peers.sh (xargs -n 8 -P JOBS), Imaging in
// this process (JOBS threads). Prints the median time of each, photos/s, and the ratio.
import Foundation
import Imaging

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

let args = Array(CommandLine.arguments.dropFirst())
guard let root = args.first else {
    print("usage: thumb-bench PHOTOS_DIR [JOBS] [REPS]")
    exit(64)
}
let jobs = args.count > 1 ? Int(args[1]) ?? 1 : 1
let reps = args.count > 2 ? Int(args[2]) ?? 3 : 3
let files = FileManager.default.enumerator(at: URL(fileURLWithPath: root), includingPropertiesForKeys: [.isRegularFileKey])!
    .compactMap { $0 as? URL }
    .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    .sorted { $0.path < $1.path }
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumb-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let list = scratch.appendingPathComponent("files.txt")
try files.map(\.path).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)

func runVips() -> Double {
    let out = scratch.appendingPathComponent("vips")
    try? FileManager.default.removeItem(at: out)
    try! FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "tr '\\n' '\\0' < '\(list.path)' | xargs -0 -n 8 -P \(jobs) vipsthumbnail -s 256 -o '\(out.path)/%s.jpg[Q=80]'"]
    p.standardError = FileHandle.nullDevice
    let t = now()
    try! p.run()
    p.waitUntilExit()
    return now() - t
}

func runImaging() -> (Double, Int) {
    let out = scratch.appendingPathComponent("imaging")
    try? FileManager.default.removeItem(at: out)
    try! FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let failures = UnsafeMutablePointer<Int>.allocate(capacity: jobs)
    failures.initialize(repeating: 0, count: jobs)
    defer { failures.deallocate() }
    let t = now()
    DispatchQueue.concurrentPerform(iterations: jobs) { worker in
        var i = worker
        while i < files.count {
            do {
                let thumb = try Imaging.thumbnail(of: try Data(contentsOf: files[i]), maxSide: 256, quality: 80)
                try thumb.jpeg.write(to: out.appendingPathComponent("\(i).jpg"))
            } catch {
                failures[worker] += 1
            }
            i += jobs
        }
    }
    return (now() - t, (0..<jobs).reduce(0) { $0 + failures[$1] })
}

var vips: [Double] = [], ours: [Double] = []
var failed = 0
_ = runImaging()  // warm the page cache
for _ in 0..<reps {
    vips.append(runVips())
    let (t, f) = runImaging()
    ours.append(t)
    failed = f
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
let a = median(ours), b = median(vips)
print("# \(files.count) photos, 256 px JPEG Q80, \(jobs) job(s), \(reps) runs; \(failed) failed in Imaging")
print(String(format: "Imaging\t%.3f s\t%.1f photos/s", a, Double(files.count) / a))
print(String(format: "vipsthumbnail\t%.3f s\t%.1f photos/s", b, Double(files.count) / b))
print(String(format: "ratio (vipsthumbnail time / Imaging time)\t%.2fx", b / a))
