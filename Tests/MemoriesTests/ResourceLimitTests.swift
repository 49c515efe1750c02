import Foundation
import Testing

/// Limits the system puts on a command, and what a killed command leaves, are said and handled.
@Suite struct ResourceLimitTests {
    /// A file size limit (`ulimit -f`) fails the import in words (SIGXFSZ killed it with status
    /// 153 and nothing said), and the library stays healthy.
    @Test func aFileSizeLimitIsSaidAndLosesNothing() throws {
        let box = Sandbox()
        let limited = try box.run(wrappedBy: ["/bin/sh", "-c", "ulimit -f 100; exec \"$0\" \"$@\""],
                                  ["import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome"])
        let stderr = limited.stderr
        #expect(limited.status == 1, "\(stderr)")
        #expect(stderr.contains("a file size limit (`ulimit -f`) stopped a write of the library"), "\(stderr)")
        if FileManager.default.fileExists(atPath: box.library.appendingPathComponent("library.store").path) {
            let verify = try box.run("verify")
            #expect(verify.status == 0 || verify.stdout.contains("no photos"), "\(verify.stdout)")
        }
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
    }

    /// An export killed mid-file leaves its hidden partial file; exporting again into that folder
    /// takes it away instead of calling the folder "not empty".
    @Test func anExportKilledMidFileCanBeRunAgainInTheSameFolder() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        let out = box.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data(count: 1000).write(to: out.appendingPathComponent(".IMG_0004.jpg.partial-9f3a2c"))
        let again = try box.run("export", "Paris", out.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }.isEmpty)
        // Anything else of the user's there still makes it "not empty".
        let other = box.url.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data(count: 10).write(to: other.appendingPathComponent(".partial-notes"))
        #expect(try box.run("export", "Paris", other.path).status == 1)
    }
}
