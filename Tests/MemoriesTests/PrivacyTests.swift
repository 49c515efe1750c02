import BlobStore
import Foundation
import Testing

/// A library holds GPS positions, notes and every original: only its owner may read it, whatever
/// the umask, as ssh, gpg and restic keep theirs. Exports are the user's own files (the umask).
@Suite struct PrivacyTests {
    /// `memories --library library args…` under `umask`, through sh (Process cannot set a umask).
    func run(_ library: URL, umask: String, _ args: [String]) throws -> Sandbox.Result {
        try Sandbox().run(wrappedBy: ["/bin/sh", "-c", "umask \(umask); exec \"$0\" \"$@\""], args, library: library)
    }

    /// Every folder and file under `root` (not through links) with its permission bits.
    func modes(under root: URL) -> [String: mode_t] {
        var found: [String: mode_t] = [:]
        var status = stat()
        if lstat(root.path, &status) == 0 { found["."] = status.st_mode & 0o777 }
        let walk = FileManager.default.enumerator(atPath: root.path)
        while let name = walk?.nextObject() as? String {
            if lstat(root.appendingPathComponent(name).path, &status) == 0 { found[name] = status.st_mode & 0o777 }
        }
        return found
    }

    @Test func aNewLibraryIsPrivateWhateverTheUmaskAndExportsFollowIt() throws {
        let box = Sandbox()
        let photos = box.copy(fixturePhotos.appendingPathComponent("Rome"), to: "Rome")
        // The library inside a parent that does not exist yet: made 0700 too (XDG's rule).
        let parent = box.url.appendingPathComponent("data")
        let library = parent.appendingPathComponent("memories")
        #expect(try run(library, umask: "000", ["import", photos.path, "--title", "Rome"]).status == 0)
        let deleted = try run(library, umask: "000", ["delete", "Rome", "--yes"])
        #expect(deleted.status == 0, "fills the trash: \(deleted.stderr)")
        #expect(try run(library, umask: "000", ["import", photos.path, "--title", "Rome"]).status == 0)
        let all = modes(under: parent)
        #expect(all.count > 10)
        for (path, mode) in all {
            var status = stat()
            _ = lstat(parent.appendingPathComponent(path).path, &status)
            let folder = (status.st_mode & S_IFMT) == S_IFDIR
            #expect(mode == (folder ? 0o700 : 0o600), "\(path) is \(String(mode, radix: 8))")
        }
        #expect(all.keys.contains { $0.hasPrefix("memories/.library_SUPPORT/trash/") }, "the trash was made")

        let out = box.url.appendingPathComponent("export")
        let exported = try run(library, umask: "022", ["export", "Rome", out.path, "--html"])
        #expect(exported.status == 0, "\(exported.stderr)")
        for (path, mode) in modes(under: out) {
            var status = stat()
            _ = lstat(out.appendingPathComponent(path).path, &status)
            #expect(mode == ((status.st_mode & S_IFMT) == S_IFDIR ? 0o755 : 0o644), "export \(path) is \(String(mode, radix: 8))")
        }
    }

    /// A library made before (or loosened by hand) is tightened by the next command that writes it,
    /// which says so once; a reading command changes nothing.
    @Test func anOpenLibraryIsTightenedWhenNextWrittenAndSaysSoOnce() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        try chmodTree(box.library, "go+rX")
        #expect(modes(under: box.library)["library.store"] == 0o644 && modes(under: box.library)["."] == 0o755)

        let listed = try box.run("list")
        #expect(listed.status == 0 && !listed.stderr.contains("private"))
        #expect(modes(under: box.library)["."] == 0o755, "a reading command changes nothing")

        let edited = try box.run("edit", "Rome", "--notes", "n")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stderr.contains("the library at \(box.library.path) was not private (\(box.library.path): mode 755); it is now: only you can read it (folders 0700, files 0600)"), "\(edited.stderr)")
        for (path, mode) in modes(under: box.library) {
            #expect(mode & 0o077 == 0, "\(path) is \(String(mode, radix: 8))")
        }
        let again = try box.run("edit", "Rome", "--notes", "m")
        #expect(again.status == 0 && again.stderr.isEmpty, "said once: \(again.stderr)")
    }

    /// A umask that takes the owner's own bits (0277: folders 0500, files 0400) does not make a
    /// library its owner cannot use: modes are set exactly, through the descriptor.
    @Test func aUmaskThatShutsTheOwnerOutChangesNothing() throws {
        let box = Sandbox()
        for mask in ["0277", "0177", "0777"] {
            let result = try run(box.library, umask: mask, ["import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome"])
            #expect(result.status == 0, "umask \(mask): \(result.stderr)")
        }
        #expect(try run(box.library, umask: "022", ["import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris"]).status == 0)
        for (path, mode) in modes(under: box.library) {
            var status = stat()
            _ = lstat(box.library.appendingPathComponent(path).path, &status)
            #expect(mode == ((status.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600), "\(path) is \(String(mode, radix: 8))")
        }
        #expect(try box.run("verify").status == 0)
    }

    /// A library folder (or store) that another user owns is refused for writing, before anything
    /// is written there: that user could read all of it. The tightening walk never follows a link
    /// out of the library.
    @Test(.enabled(if: getuid() == 0, "needs root to give a folder to another user"))
    func anotherUsersFolderIsRefusedAndTighteningStaysInside() throws {
        let box = Sandbox()
        let theirs = box.url.appendingPathComponent("theirs")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
        chmod(theirs.path, 0o777)
        chown(theirs.path, 65534, 65534)  // nobody
        let refused = try box.run(["--library", theirs.path, "import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Secret"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(theirs.path) belongs to nobody (uid 65534), not to you: they could read the photos, places and notes"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: theirs.path).isEmpty, "nothing was written there")
        // A store another user made in a folder of one's own: refused too.
        let mine = box.url.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: mine.appendingPathComponent("library.store").path, contents: nil)
        chown(mine.appendingPathComponent("library.store").path, 65534, 65534)
        let planted = try box.run(["--library", mine.path, "import", fixturePhotos.appendingPathComponent("Paris").path])
        #expect(planted.status == 1 && planted.stderr.contains("library.store belongs to nobody"), "\(planted.stderr)")
        // The walk that tightens a library does not follow a link planted in it.
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        let outside = box.url.appendingPathComponent("outside.txt")
        _ = FileManager.default.createFile(atPath: outside.path, contents: Data("mine".utf8))
        chmod(outside.path, 0o644)
        try FileManager.default.createSymbolicLink(at: box.library.appendingPathComponent(".library_SUPPORT/link"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: box.library.appendingPathComponent(".library_SUPPORT/linked-folder"), withDestinationURL: box.url)
        chmod(box.library.path, 0o755)
        let edited = try box.run("edit", "Paris", "--notes", "x")
        #expect(edited.status == 0 && edited.stderr.contains("it is now: only you can read it"), "\(edited.stderr)")
        var info = stat()
        #expect(stat(outside.path, &info) == 0 && info.st_mode & 0o777 == 0o644, "the file a link names is left as it was")
    }

    /// Another user's folder found inside a library being tightened (they got in while it was
    /// loose, and may hold it open) is refused, not called private; a lock planted as a link is
    /// never followed; a umask of 0777 for a user without root's override leaves a usable library.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func anotherUsersFolderInsideAndPlantedLinksAreRefused() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        try chmodTree(box.library, "go+rwX")
        let fanOut = try #require(try FileManager.default.contentsOfDirectory(atPath: box.library.appendingPathComponent(".library_SUPPORT/sha256").path).first)
        let theirs = box.library.appendingPathComponent(".library_SUPPORT/sha256/\(fanOut)")
        chown(theirs.path, 65534, 65534)
        let refused = try box.run("edit", "Rome", "--notes", "x")
        #expect(refused.status == 1 && refused.stderr.contains("\(theirs.path) belongs to nobody (uid 65534)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("it is now"))
        chown(theirs.path, 0, 0)

        let outside = box.url.appendingPathComponent("outside.html")
        _ = FileManager.default.createFile(atPath: outside.path, contents: Data("mine".utf8))
        chmod(outside.path, 0o644)
        let lock = box.library.appendingPathComponent(".library_SUPPORT/titles.lock")
        try? FileManager.default.removeItem(at: lock)
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: outside)
        let planted = try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "New")
        #expect(planted.status == 1, "\(planted.stderr)")
        var info = stat()
        #expect(stat(outside.path, &info) == 0 && info.st_mode & 0o777 == 0o644, "the file the link names is left as it was")

        let other = Sandbox()
        let shutOut = try other.run(wrappedBy: ["/usr/bin/setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search",
                                                "/bin/sh", "-c", "umask 0777; exec \"$0\" \"$@\""],
                                    ["import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris"])
        #expect(shutOut.status == 0, "\(shutOut.stderr)")
        #expect(try other.run(wrappedBy: ["/usr/bin/setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"], ["verify"]).status == 0)
    }
}

/// `chmod -R mode` of a folder, as a user opening their library up by hand would run it.
func chmodTree(_ folder: URL, _ mode: String) throws {
    let chmod = Process()
    chmod.executableURL = URL(fileURLWithPath: "/bin/chmod")
    chmod.arguments = ["-R", mode, folder.path]
    try chmod.run()
    chmod.waitUntilExit()
}
