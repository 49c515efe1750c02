// swift-tools-version:6.2
// A package that adds OpenSwiftData the ordinary way, by version, and uses its `SwiftData` product
// as a SwiftData app would. `scripts/check-versioned-dependency.sh` builds and runs it against a
// clone of this repository tagged with its version (OPENSWIFTDATA_URL, OPENSWIFTDATA_VERSION); a
// user writes the repository's URL and a version instead.
import PackageDescription
import Foundation

let environment = ProcessInfo.processInfo.environment
let url = environment["OPENSWIFTDATA_URL"] ?? "https://example.org/memories.git"
let version = Version(environment["OPENSWIFTDATA_VERSION"] ?? "0.6.0") ?? "0.6.0"

let package = Package(
    name: "consumer",
    dependencies: [
        .package(url: url, from: version),
    ],
    targets: [
        .executableTarget(name: "consumer", dependencies: [.product(name: "SwiftData", package: "memories")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        // An Xcode 26 app target's settings: main actor by default, Swift 5 mode; no warning allowed.
        .executableTarget(name: "consumer-main-actor", dependencies: [.product(name: "SwiftData", package: "memories")],
                          swiftSettings: [.swiftLanguageMode(.v5), .defaultIsolation(MainActor.self),
                                          .unsafeFlags(["-warnings-as-errors"])]),
    ]
)
