// swift-tools-version:6.0
// The manifest finds the toolchain's own SwiftSyntax (its `lib/swift/host` folder) so that the
// macro plugin builds without fetching swift-syntax. See docs/ARCHITECTURE.md, "Building the macros".
import PackageDescription
import CompilerPluginSupport
import Foundation

/// The toolchain's `lib/swift/host` folder, found from the toolchain that runs this manifest.
let swiftHost: String = {
    var tried: [String] = []
    func accept(_ candidate: String) -> String? {
        let path = URL(fileURLWithPath: candidate).standardizedFileURL.path
        tried.append(path)
        let probe = path + "/SwiftSyntaxMacros.swiftmodule"
        return FileManager.default.fileExists(atPath: probe) ? path : nil
    }
    if let override = ProcessInfo.processInfo.environment["OPENSWIFTDATA_SWIFT_HOST"], let found = accept(override) {
        return found
    }
    // 1. The manifest runs inside the toolchain's libPackageDescription.so: …/usr/lib/swift/pm/ManifestAPI/.
    //    /proc files must be read with FileHandle: String(contentsOfFile:) stops at 4 KB.
    if let handle = FileHandle(forReadingAtPath: "/proc/self/maps"),
       let data = try? handle.readToEnd(), let maps = String(data: data, encoding: .utf8) {
        for line in maps.split(separator: "\n") where line.hasSuffix("libPackageDescription.so") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let lib = URL(fileURLWithPath: String(line[slash...]))
            // …/lib/swift/pm/ManifestAPI/libPackageDescription.so → …/lib/swift/host
            let swiftLib = lib.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            if let found = accept(swiftLib.appendingPathComponent("host").path) { return found }
        }
    }
    // 2. swiftc on PATH resolves to …/usr/bin.
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(dir)).appendingPathComponent("swiftc")
        guard FileManager.default.fileExists(atPath: swiftc.path) else { continue }
        let bin = swiftc.resolvingSymlinksInPath().deletingLastPathComponent()
        if let found = accept(bin.deletingLastPathComponent().appendingPathComponent("lib/swift/host").path) { return found }
    }
    let message = """
    error: OpenSwiftData cannot find the toolchain's SwiftSyntax modules (lib/swift/host/SwiftSyntaxMacros.swiftmodule).
    Tried: \(tried.isEmpty ? "nothing (no libPackageDescription.so in /proc/self/maps, no swiftc on PATH)" : tried.joined(separator: ", "))
    Set OPENSWIFTDATA_SWIFT_HOST to the folder `<toolchain>/usr/lib/swift/host` and build again.
    """
    FileHandle.standardError.write(Data((message + "\n").utf8))
    return "/nonexistent-swift-host"
}()

let hostSwiftFlags: [SwiftSetting] = [.unsafeFlags(["-I", swiftHost])]
let hostLinkFlags: [LinkerSetting] = [
    .unsafeFlags(["-L", swiftHost, "-Xlinker", "-rpath", "-Xlinker", swiftHost]),
    .linkedLibrary("SwiftSyntax"), .linkedLibrary("SwiftSyntaxMacros"), .linkedLibrary("SwiftSyntaxBuilder"),
    .linkedLibrary("SwiftDiagnostics"), .linkedLibrary("SwiftParser"), .linkedLibrary("SwiftBasicFormat"),
    .linkedLibrary("SwiftSyntaxMacroExpansion"), .linkedLibrary("SwiftCompilerPluginMessageHandling"),
    .linkedLibrary("SwiftOperators"), .linkedLibrary("SwiftParserDiagnostics"),
]

/// `SwiftData`: OpenSwiftData under SwiftData's module name, so that model code builds unchanged.
/// Linux only: on Apple platforms the system's SwiftData stands.
#if os(Linux)
let swiftDataProducts: [Product] = [.library(name: "SwiftData", targets: ["SwiftData"])]
let swiftDataTargets: [Target] = [
    .target(name: "SwiftData", dependencies: ["OpenSwiftData"]),
    // Model code in SwiftData's shapes, importing only SwiftData, in the Swift 6 language mode.
    // `-warnings-as-errors`: code the macros generate for these shapes must build without a warning.
    .testTarget(name: "SwiftDataShapesTests", dependencies: ["SwiftData"],
                swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])]),
]
let swiftDataModule: [Target.Dependency] = ["SwiftData"]
#else
let swiftDataProducts: [Product] = []
let swiftDataTargets: [Target] = []
let swiftDataModule: [Target.Dependency] = []
#endif

let package = Package(
    name: "memories",
    products: swiftDataProducts + [
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        .library(name: "BlobStore", targets: ["BlobStore"]),
        .library(name: "BlobStoreS3", targets: ["BlobStoreS3"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .executable(name: "memories", targets: ["memories"]),
        .executable(name: "osd-bench", targets: ["osd-bench"]),
        .executable(name: "osd-demo", targets: ["osd-demo"]),
        .executable(name: "gradebook", targets: ["gradebook"]),
        .executable(name: "pocket-budget", targets: ["pocket-budget"]),
    ],
    targets: swiftDataTargets + [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "BlobStore", dependencies: ["CCrypto"]),
        // The S3 client and store: what needs libcurl and an XML parser, apart from the local store
        // that OpenSwiftData (and so the SwiftData product) uses.
        .target(name: "BlobStoreS3", dependencies: ["BlobStore", "CCurl", "CCrypto"]),
        .target(
            name: "CImaging",
            cSettings: [.unsafeFlags(["-I/usr/include/libpng16", "-I/usr/include/x86_64-linux-gnu", "-Wall", "-Wextra", "-Wno-unused-parameter"])],
            // libheif is not linked: heif.c loads it on first use (dlopen), so that starting the
            // program does not load its codecs.
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("exif"),
                             .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("expat"),
                             .linkedLibrary("lcms2")]
        ),
        .target(name: "Imaging", dependencies: ["CImaging"]),
        .executableTarget(name: "blob-tool", dependencies: ["BlobStore", "BlobStoreS3"]),
        .macro(
            name: "OpenSwiftDataMacros",
            swiftSettings: hostSwiftFlags,
            linkerSettings: hostLinkFlags
        ),
        // Release builds drop the runtime exclusivity checks in the storage hot paths (a fetch
        // made ~2 checked accesses per row: ~10% of a relationship walk's instructions, perf and
        // callgrind in docs/performance.md); debug builds, which the tests run, keep them.
        .target(name: "CHandoff"),
        .target(name: "OpenSwiftData", dependencies: ["CSQLite", "CHandoff", "BlobStore", "OpenSwiftDataMacros"],
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(name: "MemoriesKit", dependencies: ["OpenSwiftData", "BlobStore", "BlobStoreS3", "Imaging"]),
        .executableTarget(name: "memories", dependencies: ["MemoriesKit", "BlobStore", "BlobStoreS3", "OpenSwiftData"]),
        .executableTarget(name: "osd-demo", dependencies: ["OpenSwiftData"], path: "Examples/osd-demo"),
        .executableTarget(name: "gradebook", dependencies: ["OpenSwiftData"] + swiftDataModule, path: "Examples/gradebook"),
        .executableTarget(name: "pocket-budget", dependencies: ["OpenSwiftData"] + swiftDataModule, path: "Examples/pocket-budget"),
        .executableTarget(
            name: "osd-bench", dependencies: ["OpenSwiftData", "CSQLite"], path: "Benchmarks/osd-bench"),
        .target(name: "UIKit", path: "Tests/UIKitStandIn"),
        // Tests' stand-in services: a loopback listener whose accepting thread owns its socket.
        .target(name: "LoopbackListener", path: "Tests/LoopbackListener"),
        .executableTarget(name: "blob-bench", dependencies: ["BlobStore"], path: "Benchmarks/blob-bench"),
        .executableTarget(name: "s3-bench", dependencies: ["BlobStore", "BlobStoreS3"], path: "Benchmarks/s3-bench"),
        .executableTarget(name: "thumb-bench", dependencies: ["Imaging"], path: "Benchmarks/thumb-bench"),
        .executableTarget(name: "scale-gen", dependencies: ["MemoriesKit", "BlobStore", "BlobStoreS3", "OpenSwiftData"], path: "Benchmarks/scale-gen"),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore", "BlobStoreS3", "LoopbackListener"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "CImaging"]),
        .testTarget(name: "ExamplesTests"),
        .testTarget(name: "MemoriesTests", dependencies: ["MemoriesKit", "BlobStore", "BlobStoreS3", "Imaging", "OpenSwiftData", "LoopbackListener", "CSQLite"]),
        .testTarget(name: "OpenSwiftDataTests", dependencies: ["OpenSwiftData", "BlobStore", "BlobStoreS3", "CSQLite", "UIKit"]),
        .testTarget(
            name: "OpenSwiftDataMacrosTests",
            dependencies: ["OpenSwiftDataMacros"],
            swiftSettings: hostSwiftFlags,
            linkerSettings: hostLinkFlags
        ),
    ],
    swiftLanguageModes: [.v5]
)
