// swift-tools-version:6.2
// Where the macros get SwiftSyntax (see docs/ARCHITECTURE.md, "Building the macros"):
// - `package`: the swift-syntax package, by version, as macro packages do. What a package that adds
//   OpenSwiftData by version gets; no target of a library product then has an unsafe flag.
// - `toolchain`: the toolchain's own SwiftSyntax modules (`lib/swift/host`), found from the
//   toolchain that runs this manifest: builds with no network and no package registry.
// OPENSWIFTDATA_SWIFT_SYNTAX=package|toolchain chooses (the scripts and .ci/run set `toolchain`);
// unset, a checkout of this package as another's dependency takes `package`, and this package
// built from its own folder (or as a path dependency) takes `toolchain`.
import PackageDescription
import CompilerPluginSupport
import Foundation

/// Whether this package is built from its own folder (or as a path dependency), not from a
/// checkout of it as another package's dependency.
let builtFromItsOwnFolder = !Context.packageDirectory.contains("/checkouts/")

let toolchainSyntax: Bool = {
    switch ProcessInfo.processInfo.environment["OPENSWIFTDATA_SWIFT_SYNTAX"] {
    case "toolchain": return true
    case "package": return false
    default: return builtFromItsOwnFolder
    }
}()

/// The toolchain's `lib/swift/host` folder, found from the toolchain that runs this manifest.
let swiftHost: String = {
    guard toolchainSyntax else { return "" }
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
    Set OPENSWIFTDATA_SWIFT_HOST to the folder `<toolchain>/usr/lib/swift/host`, or OPENSWIFTDATA_SWIFT_SYNTAX=package
    to build with the swift-syntax package instead, and build again.
    """
    FileHandle.standardError.write(Data((message + "\n").utf8))
    return "/nonexistent-swift-host"
}()

/// What the macro target (and its tests) take to reach SwiftSyntax: the toolchain's modules by
/// search path and library name, or the swift-syntax package's products.
let syntaxModules = ["SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxBuilder", "SwiftDiagnostics", "SwiftParser",
                     "SwiftBasicFormat", "SwiftSyntaxMacroExpansion", "SwiftCompilerPluginMessageHandling",
                     "SwiftOperators", "SwiftParserDiagnostics"]
let syntaxDependencies: [Target.Dependency] = toolchainSyntax ? [] : [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxBuilder", "SwiftDiagnostics", "SwiftParser", "SwiftSyntaxMacroExpansion",
    "_SwiftCompilerPluginMessageHandling",
].map { .product(name: $0, package: "swift-syntax") }
let hostSwiftFlags: [SwiftSetting] = toolchainSyntax ? [.unsafeFlags(["-I", swiftHost])] : []
let hostLinkFlags: [LinkerSetting] = toolchainSyntax
    ? [.unsafeFlags(["-L", swiftHost, "-Xlinker", "-rpath", "-Xlinker", swiftHost])] + syntaxModules.map { .linkedLibrary($0) }
    : []
/// swift-syntax 603 is Swift 6.3's; the macros are built and tested against it.
let syntaxPackage: [Package.Dependency] = toolchainSyntax ? [] : [
    .package(url: "https://github.com/swiftlang/swift-syntax.git", "603.0.0"..<"700.0.0"),
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
    // Models in a module isolated to the main actor by default (Xcode 26's app targets), Swift 6 mode.
    .testTarget(name: "MainActorModelTests", dependencies: ["SwiftData"],
                swiftSettings: [.swiftLanguageMode(.v6), .defaultIsolation(MainActor.self), .unsafeFlags(["-warnings-as-errors"])]),
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
    dependencies: syntaxPackage,
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
            // The compiler's warnings where this package is built from its own folder (the flags
            // are unsafe, so a package that adds it by version builds without them).
            cSettings: builtFromItsOwnFolder ? [.unsafeFlags(["-Wall", "-Wextra", "-Wno-unused-parameter"])] : [],
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
            dependencies: syntaxDependencies,
            swiftSettings: hostSwiftFlags,
            linkerSettings: hostLinkFlags
        ),
        .target(name: "CHandoff"),
        .target(name: "OpenSwiftData", dependencies: ["CSQLite", "CHandoff", "BlobStore", "OpenSwiftDataMacros"]),
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
            dependencies: ["OpenSwiftDataMacros"] + syntaxDependencies,
            swiftSettings: hostSwiftFlags,
            linkerSettings: hostLinkFlags
        ),
    ],
    swiftLanguageModes: [.v5]
)
