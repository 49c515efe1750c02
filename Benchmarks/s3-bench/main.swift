// Uploading photos to an S3 bucket: S3BlobStore against `aws s3 cp --recursive`, in one run.
//
//   S3_TEST_ENDPOINT=http://127.0.0.1:7480 AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… \
//     swift run -c release s3-bench PHOTOS_DIR [JOBS=4] [REPS=3]
//
// Each repetition uploads every file under PHOTOS_DIR into a fresh bucket: through S3BlobStore
// (hashed, HEAD for a duplicate, PUT carrying the SHA-256 the service checks) on JOBS threads, and
// with `aws s3 cp --recursive` (its default 10 concurrent requests, no checksum the service checks).
// Prints the median of each, MB/s and the ratio. (scripts/s3-test-cluster.sh start gives a service.)
import BlobStore
import BlobStoreS3
import Foundation

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

let args = Array(CommandLine.arguments.dropFirst())
guard let root = args.first, let endpoint = ProcessInfo.processInfo.environment["S3_TEST_ENDPOINT"] else {
    print("usage: S3_TEST_ENDPOINT=URL s3-bench PHOTOS_DIR [JOBS] [REPS]")
    exit(64)
}
let jobs = args.count > 1 ? Int(args[1]) ?? 4 : 4
let reps = args.count > 2 ? Int(args[2]) ?? 3 : 3
let files = FileManager.default.enumerator(at: URL(fileURLWithPath: root), includingPropertiesForKeys: [.isRegularFileKey])!
    .compactMap { $0 as? URL }
    .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
let bytes = files.reduce(Int64(0)) { $0 + Int64((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
let credentials = try S3Credentials.resolve()
let lockFolder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: lockFolder) }

func bucket(_ name: String) throws -> S3Client {
    let client = S3Client(location: try S3Location("s3://\(name)", endpoint: endpoint), credentials: credentials)
    try client.createBucket()
    return client
}

guard FileManager.default.isExecutableFile(atPath: "/usr/bin/aws") else {
    print("s3-bench: /usr/bin/aws is missing (the peer): apt-get install awscli")
    exit(1)
}
var ours: [Double] = [], theirs: [Double] = []
for rep in 0..<reps {
    let tag = "\(getpid())-\(rep)"
    let store = try S3BlobStore(client: try bucket("bench-ours-\(tag)"), lockDirectory: lockFolder)
    var start = now()
    try concurrentForEach(files.count, jobs: jobs) { i in try store.put(contentsOf: files[i]) }
    ours.append(now() - start)
    _ = try bucket("bench-aws-\(tag)")
    start = now()
    let aws = Process()
    aws.executableURL = URL(fileURLWithPath: "/usr/bin/aws")
    aws.arguments = ["s3", "cp", "--recursive", "--quiet", "--endpoint-url", endpoint, root, "s3://bench-aws-\(tag)/"]
    try aws.run()
    aws.waitUntilExit()
    guard aws.terminationStatus == 0 else { print("aws s3 cp failed"); exit(1) }
    theirs.append(now() - start)
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
let (m, a) = (median(ours), median(theirs))
let mb = Double(bytes) / 1e6
print("# \(files.count) files, \(String(format: "%.1f", mb)) MB, \(reps) runs, median seconds")
print("S3BlobStore (\(jobs) threads)\t\(String(format: "%.3f", m)) s\t\(String(format: "%.1f", mb / m)) MB/s")
print("aws s3 cp --recursive\t\(String(format: "%.3f", a)) s\t\(String(format: "%.1f", mb / a)) MB/s")
print("ratio (aws time / S3BlobStore time)\t\(String(format: "%.2f", a / m))x")
