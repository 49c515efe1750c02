import BlobStore
import Foundation
import Imaging
@testable import MemoriesKit
import Testing

/// Export under attack ("Never lose a photo"): symbolic links swapped in, full and read-only disks,
/// damaged thumbnails.
@Suite struct ExportSafetyTests {
    /// A sandbox with Rome (4 photos) imported, and an empty folder outside any destination.
    func seeded() throws -> (Sandbox, outside: URL) {
        let box = Sandbox()
        let imported = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "--json").json(ImportJSON.self)
        #expect(imported.imported == 4)
        let outside = box.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        return (box, outside)
    }

    /// Every path under `folder`, recursively.
    func tree(_ folder: URL) -> [String] { (FileManager.default.subpaths(atPath: folder.path) ?? []).sorted() }

    // MARK: Symbolic links

    @Test func aDestinationThatIsASymbolicLinkIsRefused() throws {
        let (box, outside) = try seeded()
        let dest = box.url.appendingPathComponent("dest")
        try FileManager.default.createSymbolicLink(atPath: dest.path, withDestinationPath: outside.path)
        let result = try box.run("export", "Rome", dest.path, "--html")
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(dest.path) is a symbolic link"), "\(result.stderr)")
        #expect(tree(outside).isEmpty, "written through the link: \(tree(outside))")
    }

    @Test func swappingTheDestinationForALinkMidExportWritesEverythingIntoTheOpenedFolder() throws {
        let (box, outside) = try seeded()
        let library = try Library(directory: box.library)
        let memory = try library.resolve("Rome")
        let dest = box.url.appendingPathComponent("dest")
        let folder = try ExportFolder(creatingEmpty: dest.path)
        // The attack: the folder is renamed away and a link to elsewhere put in its place.
        let moved = box.url.appendingPathComponent("moved")
        #expect(rename(dest.path, moved.path) == 0)
        try FileManager.default.createSymbolicLink(atPath: dest.path, withDestinationPath: outside.path)
        var options = ExportOptions()
        options.html = true
        let manifest = try library.export(memory, into: folder, options: options)
        #expect(manifest.files.count == 4 && manifest.failed.isEmpty && manifest.warnings.isEmpty)
        #expect(tree(outside).isEmpty, "written through the link: \(tree(outside))")
        let written = tree(moved)
        #expect(written.filter { $0.hasSuffix(".jpg") }.count == 12, "4 photos, 4 thumbnails and 4 previews: \(written)")
        #expect(written.contains("manifest.json") && written.contains("index.html"))
        #expect(!written.contains { $0.contains(".partial") }, "\(written)")
        for file in manifest.files {
            #expect(try sha256(moved.appendingPathComponent(file.file)) == file.sha256)
        }
    }

    @Test func aThumbsFolderThatIsASymbolicLinkIsRefused() throws {
        let (box, outside) = try seeded()
        let library = try Library(directory: box.library)
        let dest = box.url.appendingPathComponent("dest")
        let folder = try ExportFolder(creatingEmpty: dest.path)
        try FileManager.default.createSymbolicLink(atPath: dest.appendingPathComponent("thumbs").path, withDestinationPath: outside.path)
        var options = ExportOptions()
        options.html = true
        #expect(throws: ExportError.symbolicLink(path: dest.path + "/thumbs")) {
            try library.export(try library.resolve("Rome"), into: folder, options: options)
        }
        #expect(tree(outside).isEmpty, "written through the link: \(tree(outside))")
    }

    @Test func theWriterKeepsWritingIntoItsFoldersWhenAParentIsSwappedForALink() throws {
        let box = Sandbox()
        let dest = box.url.appendingPathComponent("dest")
        let outside = box.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("thumbs"), withIntermediateDirectories: true)
        let folder = try ExportFolder(creatingEmpty: dest.path)
        let thumbs = try ExportFolder(subfolder: "thumbs", of: folder)
        let moved = box.url.appendingPathComponent("moved")
        #expect(rename(dest.path, moved.path) == 0)
        try FileManager.default.createSymbolicLink(atPath: dest.path, withDestinationPath: outside.path)
        try thumbs.write("t.jpg", Data("thumb".utf8))
        try folder.write("p.jpg", Data("photo".utf8))
        try thumbs.sync()
        try folder.sync()
        #expect(tree(outside) == ["thumbs"])
        #expect(tree(moved) == ["p.jpg", "thumbs", "thumbs/t.jpg"])
        #expect(try Data(contentsOf: moved.appendingPathComponent("thumbs/t.jpg")) == Data("thumb".utf8))
        #expect(try Data(contentsOf: moved.appendingPathComponent("p.jpg")) == Data("photo".utf8))
    }

    /// Two exports into one new folder each passed the empty check and then replaced the other's
    /// photos by rename; a name another program wrote meanwhile is now an error, its file kept.
    @Test func aFileAnotherProgramWroteIsNeverReplaced() throws {
        let box = Sandbox()
        let dest = box.url.appendingPathComponent("dest")
        let folder = try ExportFolder(creatingEmpty: dest.path)
        try Data("theirs".utf8).write(to: dest.appendingPathComponent("p.jpg"))
        #expect(throws: ExportError.destination(path: dest.path + "/p.jpg", operation: "writing", errno: EEXIST)) {
            try folder.write("p.jpg", Data("ours".utf8))
        }
        #expect(try Data(contentsOf: dest.appendingPathComponent("p.jpg")) == Data("theirs".utf8))
        #expect(tree(dest) == ["p.jpg"], "no temporary file left")
        // The same where the file system lacks RENAME_NOREPLACE (the fallback's check).
        try Data("x".utf8).write(to: dest.appendingPathComponent(".t"))
        #expect(ExportFolder.renameWithoutReplacing(folder.fd, ".t", "p.jpg") == -1 && errno == EEXIST)
        #expect(ExportFolder.renameWithoutReplacing(folder.fd, ".t", "q.jpg") == 0)
    }

    /// The gallery's own folders are names a photo cannot take (`previews` made every `--html`
    /// export of its memory fail).
    @Test func aPhotoNamedLikeTheGallerysFoldersIsRenamed() throws {
        let box = Sandbox()
        for (n, name) in ["previews", "thumbs", "index.html", "Manifest.JSON"].enumerated() {
            _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-\(n + 1).jpg"), to: "src/\(name)")
        }
        #expect(try box.run("import", box.url.appendingPathComponent("src").path, "--title", "P").status == 0)
        let out = box.url.appendingPathComponent("out")
        let result = try box.run("export", "P", out.path, "--html")
        #expect(result.status == 0, "\(result.stderr)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(names == ["previews", "thumbs", "index.html", "manifest.json", "previews (2)", "thumbs (2)", "index (2).html", "Manifest (2).JSON"], "\(names)")
    }

    @Test func aFailedWriteLeavesNeitherAFinalNameNorATemporaryFile() throws {
        let box = Sandbox()
        let folder = try ExportFolder(creatingEmpty: box.url.appendingPathComponent("dest").path)
        let damage = BlobStoreError.missing(SHA256.digest(Data("x".utf8)))
        #expect(throws: damage) {
            try folder.write("p.jpg") { sink in
                try Data("half a photo".utf8).withUnsafeBytes { try sink($0) }
                throw damage
            }
        }
        #expect(try folder.entries().isEmpty)
        try folder.write("q.jpg", Data("whole".utf8))
        #expect(try folder.entries() == ["q.jpg"], "the temporary name is gone after the rename")
    }

    // MARK: Write failures say what happened

    @Test func destinationErrorsNameTheFileAndTheCause() throws {
        let full = ExportError.destination(path: "/x/IMG_1.jpg", operation: "writing", errno: ENOSPC).localizedDescription
        #expect(full.hasPrefix("disk full (ENOSPC) writing /x/IMG_1.jpg; the export stopped"), "\(full)")
        #expect(ExportError.destination(path: "/x/a.jpg", operation: "writing", errno: EACCES).localizedDescription.hasPrefix("permission denied (EACCES) writing /x/a.jpg"))
        #expect(ExportError.destination(path: "/x/a.jpg", operation: "writing", errno: EROFS).localizedDescription.hasPrefix("read-only file system (EROFS) writing /x/a.jpg"))
        // A real ENOSPC through the writer: /dev/full fails every write with it.
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(throws: ExportError.destination(path: "/out/p.jpg", operation: "writing", errno: ENOSPC)) {
            try Data("photo".utf8).withUnsafeBytes { try ExportFolder.writeAll(fd, $0, "/out/p.jpg") }
        }
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs mounts"))
    func aFullDiskStopsTheExportSayingSoAndLeavesNoPartialFile() throws {
        let (box, _) = try seeded()
        let disk = box.url.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        #expect(mount("tmpfs", disk.path, "tmpfs", 0, "size=64k") == 0)
        defer { umount2(disk.path, Int32(MNT_DETACH)) }
        for format in ["original", "png"] {
            let dest = disk.appendingPathComponent(format)
            let result = try box.run("export", "Rome", dest.path, "--format", format)
            #expect(result.status == 1)
            #expect(result.stderr.contains("disk full (ENOSPC) writing \(dest.path)/"), "\(result.stderr)")
            #expect(!result.stderr.contains("damaged in the library") && !result.stderr.contains("NSCocoaErrorDomain"), "\(result.stderr)")
            let names = tree(dest)
            #expect(!names.contains { $0.contains(".partial") }, "\(names)")
            for name in names {
                let data = try Data(contentsOf: dest.appendingPathComponent(name))
                if name == "manifest.json" {
                    // The first export's manifest, written before anything else and empty: an export
                    // run again once there is room continues this one.
                    #expect(try JSONDecoder().decode(ManifestJSON.self, from: data).files.isEmpty)
                } else if format == "original" {
                    let source = try FileManager.default.subpathsOfDirectory(atPath: fixturePhotos.appendingPathComponent("Rome").path).first { $0.hasSuffix(name) }
                    #expect(try data == Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/\(try #require(source))")), "\(name) is truncated")
                } else {
                    #expect(try Imaging.probe(data).format == .png, "\(name) is truncated")
                }
            }
            try? FileManager.default.removeItem(at: dest)
        }
    }

    @Test func aReadOnlyDestinationSaysSo() throws {
        let (box, _) = try seeded()
        let dest = box.url.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: dest, withIntermediateDirectories: true)
        let expected: String
        if geteuid() != 0 {
            chmod(dest.path, 0o555)
            expected = "permission denied (EACCES) writing \(dest.path)/"
        } else if canMount {
            // Root ignores permissions: a read-only file system instead.
            #expect(mount("tmpfs", dest.path, "tmpfs", UInt(MS_RDONLY), "size=64k") == 0)
            expected = "read-only file system (EROFS) writing \(dest.path)/"
        } else {
            return  // root without mounts: permissions cannot be provoked (the error text is tested above)
        }
        defer { umount2(dest.path, Int32(MNT_DETACH)); chmod(dest.path, 0o755) }
        let result = try box.run("export", "Rome", dest.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.stderr.contains("already exists") && !result.stderr.contains("damaged in the library"), "\(result.stderr)")
    }

    // MARK: Damaged thumbnails

    @Test func aDamagedThumbnailIsReplacedInTheGalleryAndReported() throws {
        let box = Sandbox()
        let photo = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "in/IMG_0001.jpg")
        #expect(try box.run("import", photo.path, "--title", "One").status == 0)
        let original = try box.run("show", "One", "--json").json(ShowJSON.self).images[0].sha256
        let thumbnails = box.blobFiles().filter { !$0.hasSuffix(original) }
        try #require(thumbnails.count == 1, "\(box.blobFiles())")
        let blob = box.library.appendingPathComponent(".library_SUPPORT/sha256/\(thumbnails[0])")
        var bytes = try Data(contentsOf: blob)
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: blob)
        let dest = box.url.appendingPathComponent("out")
        let result = try box.run("export", "One", dest.path, "--html")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("autosave"), "\(result.stderr)")
        #expect(result.stderr.contains("the thumbnail of IMG_0001.jpg is damaged in the library"), "\(result.stderr)")
        let html = try String(contentsOf: dest.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains(#"data-original="IMG_0001.jpg"><img src="thumbs/IMG_0001.jpg""#), "\(html)")
        let thumb = try Imaging.probe(Data(contentsOf: dest.appendingPathComponent("thumbs/IMG_0001.jpg")))
        #expect(max(thumb.width, thumb.height) == 256, "made again from the photo")
        #expect(try sha256(dest.appendingPathComponent("IMG_0001.jpg")) == original)
        #expect(!tree(dest).contains { $0.contains(".partial") })
    }

    /// The original exported is the blob OpenSwiftData stored the row's imageData as; a row whose
    /// sha256 column names another photo, or that has no stored original, is a reported failure
    /// naming the photo (never a silent skip), and the other photos are exported.
    @Test func aRowWhoseOriginalIsNotTheOneItNamesIsReportedNotSkipped() throws {
        let (box, _) = try seeded()
        let store = box.library.appendingPathComponent("library.store").path
        func sql(_ statement: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            p.arguments = [store, statement]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        try sql("UPDATE MemoryImage SET sha256 = '\(String(repeating: "ab", count: 32))' WHERE filename = 'IMG_0001.jpg'")
        try sql("UPDATE MemoryImage SET imageData = NULL WHERE filename = 'IMG_0002.jpg'")
        let dest = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Rome", dest.path, "--json")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("IMG_0001.jpg") && result.stderr.contains("is not the photo its SHA-256 column names"), "\(result.stderr)")
        #expect(result.stderr.contains("IMG_0002.jpg") && result.stderr.contains("no stored original"), "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dest.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(written == ["IMG_0003.jpg", "IMG_0006.jpg"], "\(written)")
        // verify agrees: both rows are named as problems, and the library is not healthy.
        let verify = try box.run("verify", "--json")
        let report = try verify.json(VerifyJSON.self)
        #expect(verify.status == 1 && report.problems.filter { $0.contains("has no stored original") }.count == 2, "\(report.problems)")
        #expect(report.problems.contains { $0.hasPrefix("IMG_0001.jpg in 'Rome'") } && report.problems.contains { $0.hasPrefix("IMG_0002.jpg in 'Rome'") })
    }

    /// A photo row another program wrote with a key below 1 cannot be read (OpenSwiftData refuses
    /// it): `verify` names it as a problem instead of calling the library healthy, and the commands
    /// that would have listed it fail saying so.
    @Test func verifyNamesRowsWithKeysBelowOne() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        #expect(try box.run("verify").status == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [box.library.appendingPathComponent("library.store").path,
                       "PRAGMA foreign_keys=OFF; UPDATE MemoryImage SET _pk = -5 WHERE _pk = (SELECT min(_pk) FROM MemoryImage)"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let verify = try box.run("verify", "--json")
        let report = try verify.json(VerifyJSON.self)
        #expect(verify.status == 1 && report.problems.contains { $0.hasPrefix("rows of photos with a key below 1 (written by another program) cannot be read: 1 in table MemoryImage") }, "\(report.problems)")
        // `show` and `export` cannot list the memory's photos (its relationship is refused): they
        // say so and fail, instead of showing or exporting no photos as a success.
        for command in [["show", "Rome"], ["export", "Rome", box.url.appendingPathComponent("out").path]] {
            let result = try box.run(command)
            #expect(result.status == 1 && result.stderr.contains("_pk cannot be read: -5")
                    && result.stderr.contains("of the library could not be read"), "\(command): \(result.stderr)")
        }
    }

    /// A name whose `"` is followed by U+200D or a combining mark (one Swift `Character`, two code
    /// points to a browser) cannot end an attribute and add its own (`onload=` ran script when the
    /// gallery was opened).
    @Test func aQuoteJoinedToAnotherCodePointIsEscapedInTheGallery() {
        for joiner in ["\u{200D}", "\u{301}", "\u{FE0F}"] {
            let name = "a\"\(joiner) onload=alert(1) x=<b>\(joiner)'\(joiner).jpg"
            let file = ExportManifest.File(file: "a.jpg", thumbnail: nil, originalFilename: name, sha256: "", format: "jpeg",
                                           width: 1, height: 1, bytes: 1, takenAt: nil)
            let manifest = ExportManifest(memory: .init(id: "", title: "t\"\(joiner)<", date: "2024-01-01", notes: "&\(joiner)"), exportedAt: "",
                                          format: "original", files: [file], failed: [], warnings: [])
            let html = Gallery.html(manifest)
            let escaped = "a&quot;\(joiner) onload=alert(1) x=&lt;b&gt;\(joiner)&#39;\(joiner).jpg"
            #expect(html.contains(#"data-name="\#(escaped)""#) && html.contains(#"alt="\#(escaped)""#), "\(html)")
            #expect(!html.unicodeScalars.split(separator: "\n").contains { line in
                String(String.UnicodeScalarView(line)).contains("\"\(joiner)")
            }, "no raw quote before the joiner anywhere")
            #expect(html.contains("t&quot;\(joiner)&lt;") && html.contains("&amp;\(joiner)"))
        }
    }

    @Test func aPhotoWithoutAThumbnailIsShownInTheGalleryByItself() {
        let file = ExportManifest.File(file: "a b.jpg", thumbnail: nil, originalFilename: "a b.jpg", sha256: "", format: "jpeg",
                                       width: 1, height: 1, bytes: 1, takenAt: nil)
        let manifest = ExportManifest(memory: .init(id: "", title: "t", date: "2024-01-01", notes: ""), exportedAt: "", format: "original",
                                      files: [file], failed: [], warnings: [])
        #expect(Gallery.html(manifest).contains(#"<a href="a%20b.jpg" data-name="a b.jpg" data-date="" data-original="a%20b.jpg"><img src="a%20b.jpg" alt="a b.jpg""#))
    }
}

/// The gallery: justified rows by aspect ratio, previews for the lightbox, sections by day, and
/// nothing fetched from outside the folder.
@Suite struct GalleryTests {
    @Test func previewsSectionsAndOnlyRelativeLinks() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("Trip")
        _ = box.copy(fixtureImages.appendingPathComponent("good/date-zurich-night.jpg"), to: "Trip/night.jpg")
        _ = box.copy(fixtureImages.appendingPathComponent("good/date-xmp-only.png"), to: "Trip/later.png")
        _ = box.copy(fixtureImages.appendingPathComponent("good/rotated.heic"), to: "Trip/phone.heic")
        #expect(try box.run("import", folder.path, "--title", "Trip", "--notes", "Rain & <sun>").status == 0)
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Trip", out.path, "--html").status == 0)
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<p id=\"boxnotes\" class=\"notes\">Rain &amp; &lt;sun&gt;</p>"), "the lightbox shows the notes")
        #expect(html.components(separatedBy: "loading=\"lazy\"").count - 1 == 3, "every thumbnail loads lazily")
        // Three photos: no sections (those are for large memories); the HEIC's preview is a JPEG a
        // browser shows, upright.
        #expect(!html.contains("<h2>"))
        let manifest = try JSONDecoder().decode(ExportManifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(Gallery.html(manifest, sectionsFrom: 3).components(separatedBy: "<h2>").count - 1 == 3, "a section per day")
        let preview = try Imaging.probe(Data(contentsOf: out.appendingPathComponent("previews/phone.jpg")))
        #expect(preview.format == .jpeg && preview.width == 48 && preview.height == 32)
        #expect(html.contains("--w:48;--h:32"), "the aspect ratio of the photo as shown")
        #expect(html.contains(#"data-original="phone.heic""#))
        // Every reference stays in the folder.
        for attribute in ["src=\"", "href=\"", "data-original=\""] {
            for part in html.components(separatedBy: attribute).dropFirst() {
                let target = String(part.prefix { $0 != "\"" })
                #expect(!target.contains(":") && !target.hasPrefix("/") && !target.contains(".."), "\(attribute)\(target)")
                if !target.isEmpty {
                    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(target.removingPercentEncoding!).path), "\(target)")
                }
            }
        }
        #expect(!html.contains("url(") && !html.contains("@import") && !html.contains("//"), "no request beyond the folder")
    }
}

/// Opened in headless Chromium (when the machine has it: `scripts/gallery-screenshot.sh` installs
/// it), the gallery requests nothing: Chromium's network log shows no request by the page.
@Suite struct GalleryInABrowserTests {
    static let chromium = "/usr/bin/chromium"

    /// A browser that hangs is ended after a minute, so the suite never waits for it forever.
    final class Watchdog: @unchecked Sendable {
        private let process: Process
        private let lock = NSLock()
        private var over = false
        init(_ process: Process) {
            self.process = process
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [self] in
                lock.withLock { if !over && process.isRunning { process.terminate() } }
            }
        }
        /// Called once the process has exited: the watchdog then does nothing.
        func cancel() { lock.withLock { over = true } }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "needs chromium (scripts/setup.sh --tests)"))
    func theGalleryMakesNoNetworkRequest() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.path, "--title", "Demo").status == 0)
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Demo", out.path, "--html").status == 0)
        func pageRequests(_ page: URL) throws -> (Int32, String) {
            let log = box.url.appendingPathComponent("net-\(page.lastPathComponent).json")
            let browser = Process()
            browser.executableURL = URL(fileURLWithPath: Self.chromium)
            browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--log-net-log=\(log.path)",
                                 "--screenshot=\(box.url.appendingPathComponent("shot.png").path)", page.absoluteString]
            browser.standardError = FileHandle.nullDevice
            browser.standardOutput = FileHandle.nullDevice
            try browser.run()
            let watchdog = Watchdog(browser)
            browser.waitUntilExit()
            watchdog.cancel()
            let check = Process()
            check.executableURL = packageRoot.appendingPathComponent("scripts/netlog-page-requests.py")
            check.arguments = [log.path]
            let found = Pipe()
            check.standardOutput = found
            try check.run()
            let text = String(decoding: found.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            check.waitUntilExit()
            return (check.terminationStatus, text)
        }
        let (status, requests) = try pageRequests(out.appendingPathComponent("index.html"))
        #expect(status == 0 && requests.isEmpty, "\(requests)")
        // The check itself sees a page that does fetch something.
        let bad = out.appendingPathComponent("fetching.html")
        try #"<img src="http://127.0.0.1:9/x.png">"#.write(to: bad, atomically: true, encoding: .utf8)
        let (badStatus, badRequests) = try pageRequests(bad)
        #expect(badStatus == 1 && badRequests.contains("http://127.0.0.1:9/x.png"))
    }

    /// The lightbox as a person uses it: a click opens the photo with its date, name, place in the
    /// memory and notes; arrows and swipes move; Escape closes and gives focus back. Driven by a
    /// script appended to a copy of the page, read back from Chromium's DOM.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "needs chromium (scripts/setup.sh --tests)"))
    func theLightboxOpensMovesAndClosesByClickKeysAndSwipes() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris", "--notes", "Rain all week").status == 0)
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Paris", out.path, "--html").status == 0)
        let page = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        let probe = #"""
        <script>
        (function () {
          var log = [], box = document.getElementById("box"), caption = document.getElementById("caption");
          function state(what) { log.push(what + "=" + box.classList.contains("open") + "|" + caption.textContent + "|" + (document.activeElement.id || document.activeElement.tagName)); }
          function key(k) { document.dispatchEvent(new KeyboardEvent("keydown", { key: k })); }
          function swipe(dx) {
            var t0 = new Touch({ identifier: 1, target: box, clientX: 200 }), t1 = new Touch({ identifier: 1, target: box, clientX: 200 + dx });
            box.dispatchEvent(new TouchEvent("touchstart", { touches: [t0], changedTouches: [t0] }));
            box.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: [t1] }));
          }
          var first = document.querySelector("figure a");
          first.focus();
          first.click(); state("open");
          key("ArrowRight"); state("right");
          key("ArrowLeft"); key("ArrowLeft"); state("wrapped");
          swipe(-120); state("swiped");
          document.getElementById("next").click(); state("next");
          key("Escape"); state("closed");
          var pre = document.createElement("pre");
          pre.id = "probe";
          pre.textContent = log.join("\n") + "\nnotes=" + (document.getElementById("boxnotes") || {}).textContent
            + "\nalts=" + Array.prototype.every.call(document.querySelectorAll("figure img"), function (i) { return i.alt.length > 0; })
            + "\nscaledUp=" + Array.prototype.filter.call(document.querySelectorAll("figure"), function (f) {
                return f.getBoundingClientRect().width > parseFloat(f.style.getPropertyValue("--tw")) + 0.5; }).length;
          document.body.appendChild(pre);
        })();
        </script>
        """#
        let probed = out.appendingPathComponent("probe.html")
        try page.replacingOccurrences(of: "</body>", with: probe + "\n</body>").write(to: probed, atomically: true, encoding: .utf8)
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: Self.chromium)
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--dump-dom", probed.absoluteString]
        let dom = Pipe()
        browser.standardOutput = dom
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let watchdog = Watchdog(browser)
        let html = String(decoding: dom.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        watchdog.cancel()
        let start = try #require(html.range(of: "<pre id=\"probe\">")), end = try #require(html.range(of: "</pre>", range: start.upperBound..<html.endIndex))
        let lines = html[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        func field(_ name: String) -> [String] { (lines.first { $0.hasPrefix(name + "=") } ?? "").dropFirst(name.count + 1).split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        let count = try box.run("show", "Paris", "--json").json(ShowJSON.self).images.count
        #expect(count >= 3)
        #expect(field("open").first == "true" && field("open")[1].contains("1 of \(count)") && field("open")[1].contains("original"), "\(lines)")
        #expect(field("open").last == "close", "focus moves into the lightbox")
        #expect(field("right")[1].contains("2 of \(count)"))
        #expect(field("wrapped")[1].contains("\(count) of \(count)"), "left from the first wraps to the last")
        #expect(field("swiped")[1].contains("1 of \(count)"), "a swipe to the left shows the next")
        #expect(field("next")[1].contains("2 of \(count)"))
        #expect(field("closed").first == "false" && field("closed").last == "A", "Escape closes and focus returns to the photo's link")
        #expect(lines.contains("notes=Rain all week") && lines.contains("alts=true"), "\(lines)")
        #expect(lines.contains("scaledUp=0"), "on a 1x screen no thumbnail is shown wider than its pixels: \(lines)")
    }
}
