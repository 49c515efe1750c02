import Foundation
import Testing

/// A library folder too deep for the system's paths is said as such, before anything is made.
@Suite struct LongPathTests {
    @Test func aLibraryPathTooLongForTheSystemIsSaidAsSuch() throws {
        let box = Sandbox()
        // 3,983 bytes, as an outside attack used: the folder itself fits, its files would not.
        var deep = box.url.path
        while deep.utf8.count < 3983 - 201 { deep += "/" + String(repeating: "d", count: 200) }
        deep += "/" + String(repeating: "e", count: 3983 - deep.utf8.count - 1)
        #expect(deep.utf8.count == 3983)
        for args in [["import", fixturePhotos.appendingPathComponent("Paris").path], ["list"], ["init"]] {
            let process = box.start(["--library", deep] + args)
            let err = String(decoding: process.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.process.waitUntilExit()
            #expect(process.process.terminationStatus == 1, "\(args): \(err)")
            #expect(err.contains("bytes long: too long for this system: SQLite opens a store only within 512 bytes of path, its journal's name included (490 for the folder)"), "\(args): \(err)")
            #expect(!err.contains("NSCocoaErrorDomain") && !err.contains("unable to open database file"))
        }
        #expect(!FileManager.default.fileExists(atPath: box.url.appendingPathComponent(String(repeating: "d", count: 200)).path), "nothing was made")
        let longName = box.url.appendingPathComponent(String(repeating: "n", count: 256)).path
        let named = try box.run(["--library", longName, "list"])
        #expect(named.status == 1 && named.stderr.contains("a name may have 255"), "\(named.stderr)")
        // A short link to a deep folder is deep: SQLite opens the folder it leads to.
        var target = box.url.appendingPathComponent("deep").path
        while target.utf8.count < 499 - 101 { target += "/" + String(repeating: "t", count: 100) }
        target += "/" + String(repeating: "u", count: 499 - target.utf8.count - 1)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let link = box.url.appendingPathComponent("short")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target)
        let linked = try box.run(["--library", link.path, "import", fixturePhotos.appendingPathComponent("Paris").path])
        #expect(linked.status == 1 && linked.stderr.contains("is 499 bytes long: too long for this system"), "\(linked.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty, "no empty store left behind")
        // A new folder in a folder reached by a short link (second outside attack): not made, said.
        let made = try box.run(["--library", link.path + "/new", "init"])
        #expect(made.status == 1 && made.stderr.contains("is 503 bytes long: too long for this system"), "\(made.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty, "no folder left behind")
        try FileManager.default.createSymbolicLink(atPath: box.url.appendingPathComponent("up").path, withDestinationPath: box.url.appendingPathComponent("deep").path)
        let twoDown = try box.run(["--library", box.url.appendingPathComponent("up").path + "/" + String(target.dropFirst(box.url.path.utf8.count + 6)) + "/x/y", "list"])
        #expect(twoDown.status == 1 && twoDown.stderr.contains("is 503 bytes long: too long for this system"), "\(twoDown.stderr)")
        // The longest folder that works, and one byte more.
        for (length, works) in [(490, true), (491, false)] {
            var folder = box.url.appendingPathComponent("fit").path
            while folder.utf8.count < length - 101 { folder += "/" + String(repeating: "f", count: 100) }
            folder += "/" + String(repeating: "g", count: length - folder.utf8.count - 1)
            let result = try box.run(["--library", folder, "import", fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg").path, "--title", "T"])
            #expect((result.status == 0) == works, "\(length): \(result.stderr)")
        }
    }
}
