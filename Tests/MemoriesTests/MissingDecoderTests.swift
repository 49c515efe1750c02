import Foundation
import Testing

/// libheif is loaded on first use (dlopen). Where it is missing or broken, a HEIC is rejected as a
/// photo this machine cannot decode (never as "corrupt") and everything else still imports.
/// The library is hidden from one `memories` run only: in a mount namespace of its own, the file
/// libheif.so.1 resolves to is covered by /dev/null (as root, with unshare(1); otherwise skipped).
@Suite struct MissingDecoderTests {
    static let libheif: String? = {
        let link = "/usr/lib/x86_64-linux-gnu/libheif.so.1"
        guard let real = realpath(link, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }()
    static let canHide: Bool = {
        guard getuid() == 0, libheif != nil, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "true"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test(.enabled(if: canHide, "needs root, unshare(1) and libheif.so.1 to hide"))
    func aHEICWithoutLibheifIsRejectedAsUndecodableHereAndTheRestImports() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("phone")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtureImages.appendingPathComponent("good/photo.heic"), to: folder.appendingPathComponent("IMG_0001.HEIC"))
        try FileManager.default.copyItem(at: fixtureImages.appendingPathComponent("good/photo.jpg"), to: folder.appendingPathComponent("IMG_0002.JPG"))
        let memories = packageRoot.appendingPathComponent(".build/debug/memories").path
        let command = "mount --bind /dev/null '\(Self.libheif!)' && exec '\(memories)' --library '\(box.library.path)' import '\(folder.path)' --title Phone --json"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "sh", "-c", command]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let json = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "some rejected, the rest imported: \(stderr)")
        let report = try JSONDecoder().decode(ImportJSON.self, from: json)
        #expect(report.imported == 1 && report.rejected.count == 1)
        let reason = try #require(report.rejected.first?.reason)
        #expect(report.rejected.first?.path.hasSuffix("IMG_0001.HEIC") == true)
        #expect(reason.hasPrefix("HEIC cannot be decoded here: HEIF support is not available: ") && reason.contains("libheif.so.1"), "\(reason)")
        #expect(!reason.contains("corrupt"))
        // Outside the namespace libheif is there again: the same folder brings the HEIC in.
        let again = try box.run("import", folder.path, "--into", "Phone", "--json").json(ImportJSON.self)
        #expect(again.imported == 1 && again.rejected.isEmpty)
    }
}
