import BlobStore
import Foundation
import Imaging
import Testing

@Suite struct CommandTests {
    func seeded() throws -> (Sandbox, ImportJSON) {
        let box = Sandbox()
        let report = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Été à Rome", "--notes", "Gelato every day", "--json").json(ImportJSON.self)
        try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris", "--date", "2023-05-01")
        return (box, report)
    }

    @Test func listIsNewestFirstWithCountsSizesAndFilters() throws {
        let (box, _) = try seeded()
        let all = try box.run("list", "--json").json([ListJSON].self)
        #expect(all.map(\.title) == ["Été à Rome", "Paris"])
        #expect(all[0].imageCount == 4 && all[1].imageCount == 3)
        let romeBytes = try FileManager.default.subpathsOfDirectory(atPath: fixturePhotos.appendingPathComponent("Rome").path)
            .filter { $0.hasSuffix(".jpg") }
            .reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: fixturePhotos.appendingPathComponent("Rome/\($1)").path)[.size] as? Int) ?? 0) }
        #expect(all[0].bytes == romeBytes)
        #expect(try box.run("list", "--since", "2024-01-01", "--json").json([ListJSON].self).map(\.title) == ["Été à Rome"])
        #expect(try box.run("list", "--until", "2024-01-01", "--json").json([ListJSON].self).map(\.title) == ["Paris"])
        #expect(try box.run("list", "--search", "ETE rom", "--json").json([ListJSON].self).map(\.title) == ["Été à Rome"])
        #expect(try box.run("list", "--search", "gelato", "--json").json([ListJSON].self).map(\.title) == ["Été à Rome"])
        #expect(try box.run("list", "--search", "IMG_0004", "--json").json([ListJSON].self).map(\.title) == ["Paris"])
        #expect(try box.run("list", "--search", "nothing-like-this", "--json").json([ListJSON].self).isEmpty)
        #expect(try box.run("list", "--since", "yesterday").status == 64, "a bad date is a usage error")
    }

    @Test func showFindsByIdPrefixOrTitleAndExplainsAmbiguity() throws {
        let (box, report) = try seeded()
        let id = try #require(report.memory?.id)
        let byPrefix = try box.run("show", String(id.prefix(8)), "--json").json(ShowJSON.self)
        #expect(byPrefix.title == "Été à Rome" && byPrefix.notes == "Gelato every day")
        #expect(byPrefix.images.map(\.filename) == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0006.jpg", "IMG_0003.jpg"] || byPrefix.images.count == 4)
        let first = try #require(byPrefix.images.first)
        #expect(first.format == "jpeg" && first.width == 640 && first.height == 480 && first.takenAt == "2024-06-11T11:30:00Z")
        #expect(try box.run("show", id.uppercased(), "--json").json(ShowJSON.self).id == id)
        try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Été à Rome (copy)")
        try box.run("edit", "Été à Rome (copy)", "--title", "Paris")
        let ambiguous = try box.run("show", "Paris")
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("matches several memories"))
        #expect(ambiguous.stderr.components(separatedBy: "  Paris").count == 3, "both candidates are listed")
        let unknown = try box.run("show", "Atlantis")
        #expect(unknown.status == 1 && unknown.stderr.contains("no memory matches 'Atlantis'"))
    }

    @Test func editAndRemoveChangeTheRecordsAndReleaseUnusedBlobs() throws {
        let (box, _) = try seeded()
        #expect(try box.run("edit", "Paris", "--title", "Paris in May", "--notes", "rain", "--date", "2023-05-02").status == 0)
        let paris = try box.run("show", "Paris in May", "--json").json(ShowJSON.self)
        #expect(paris.notes == "rain" && paris.date == "2023-05-02T00:00:00Z")
        let before = box.blobFiles().count
        let removed = try box.run("remove", "Paris in May", "IMG_0004.jpg")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(box.blobFiles().count == before - 2, "its original and thumbnail went")
        // "copy of IMG_0001.jpg" in Paris is the same photo as Rome's IMG_0001: removing it keeps the blob.
        #expect(try box.run("remove", "Paris in May", "copy of IMG_0001.jpg").status == 0)
        #expect(box.blobFiles().count == before - 2)
        #expect(try box.run("show", "Paris in May", "--json").json(ShowJSON.self).images.map(\.filename) == ["IMG_0005.jpg"])
        // Not the last: a memory holds at least one photo.
        let last = try box.run("remove", "Paris in May", "IMG_0005.jpg")
        #expect(last.status == 1 && last.stderr.contains("IMG_0005.jpg is the last photo of 'Paris in May', and a memory holds at least one"), "\(last.stderr)")
        #expect(try box.run("show", "Paris in May", "--json").json(ShowJSON.self).images.count == 1)
        #expect(try box.run("edit", "Paris in May").status == 64)
    }

    /// Two different photos with one file name: `remove` by that name names both photos and
    /// removes neither (it said the name "matches several memories").
    @Test func removeOfAnAmbiguousPhotoNamesThePhotos() throws {
        let box = Sandbox()
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-1.jpg"), to: "T/a/same.jpg")
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-2.jpg"), to: "T/b/same.jpg")
        #expect(try box.run("import", box.url.appendingPathComponent("T").path, "--title", "T").status == 0)
        let result = try box.run("remove", "T", "same.jpg")
        #expect(result.status == 1 && result.stderr.contains("'same.jpg' matches several photos of memory T"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "  same.jpg").count - 1 == 2, "both are listed with their ids")
        #expect(try box.run("show", "T", "--json").json(ShowJSON.self).images.count == 2)
    }

    @Test func deleteRemovesRowsThenEveryBlobNoLongerUsed() throws {
        let (box, _) = try seeded()
        #expect(try box.run("delete", "Paris").status == 64, "needs --yes without a terminal")
        #expect(try box.run("delete", "Paris", "--yes").status == 0)
        #expect(try box.run("list", "--json").json([ListJSON].self).map(\.title) == ["Été à Rome"])
        #expect(box.blobFiles().count == 8, "Rome's 4 originals and 4 thumbnails stay, the shared photo among them")
        let verify = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(verify.ok && verify.orphans == 0)
    }

    @Test func exportCopiesOriginalsByteForByteWithAManifestAndAGallery() throws {
        let (box, _) = try seeded()
        let dest = box.url.appendingPathComponent("out")
        let result = try box.run("export", "Été à Rome", dest.path, "--html")
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dest.path).sorted()
        #expect(files == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0006.jpg", "index.html", "manifest.json", "previews", "thumbs"])
        for name in ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0006.jpg"] {
            #expect(try Data(contentsOf: dest.appendingPathComponent(name)) == Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/\(name)")))
        }
        #expect(try Data(contentsOf: dest.appendingPathComponent("IMG_0003.jpg")) == Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/day 2/IMG_0003.jpg")))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dest.appendingPathComponent("manifest.json"))) as! [String: Any]
        let entries = manifest["files"] as! [[String: Any]]
        #expect(entries.count == 4 && (manifest["memory"] as! [String: Any])["title"] as? String == "Été à Rome")
        for entry in entries {
            #expect(try sha256(dest.appendingPathComponent(entry["file"] as! String)) == entry["sha256"] as? String)
        }
        let html = try String(contentsOf: dest.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<title>\u{00C9}t\u{00E9} \u{00E0} Rome</title>") || html.contains("<title>Été à Rome</title>"))
        #expect(html.contains(#"<a href="previews/IMG_0001.jpg" data-name="IMG_0001.jpg""#) && html.contains(#"data-original="IMG_0001.jpg"><img src="thumbs/IMG_0001.jpg" srcset="thumbs/IMG_0001.jpg 1x, previews/IMG_0001.jpg 2x""#), "\(html)")
        #expect(!html.contains("http://") && !html.contains("https://"), "works offline")
        let thumb = try Imaging.probe(Data(contentsOf: dest.appendingPathComponent("thumbs/IMG_0001.jpg")))
        #expect(max(thumb.width, thumb.height) == 256)
        #expect(try box.run("export", "Paris", dest.path).status == 1, "a non-empty destination is refused")
    }

    @Test func exportReencodesToTheRequestedFormatAndSize() throws {
        let (box, _) = try seeded()
        let dest = box.url.appendingPathComponent("small")
        #expect(try box.run("export", "Paris", dest.path, "--format", "png", "--max-size", "100").status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dest.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names == ["IMG_0004.png", "IMG_0005.png", "copy of IMG_0001.png"])
        for name in names {
            let info = try Imaging.probe(Data(contentsOf: dest.appendingPathComponent(name)))
            #expect(info.format == .png && max(info.width, info.height) == 100)
        }
        let jpeg = box.url.appendingPathComponent("jpeg")
        #expect(try box.run("export", "Paris", jpeg.path, "--format", "jpeg", "--quality", "50", "--strip-metadata").status == 0)
        let info = try Imaging.probe(Data(contentsOf: jpeg.appendingPathComponent("IMG_0004.jpg")))
        #expect(info.width == 512 && info.exif.dateTimeOriginal == nil)
        #expect(try box.run("export", "Paris", box.url.appendingPathComponent("x").path, "--format", "gif").status == 64)
    }

    @Test func hostileFileNamesNeverEscapeTheExportFolder() throws {
        let box = Sandbox()
        let source = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
        let folder = box.url.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let names = ["..jpg", ".hidden.jpg", "new\nline.jpg", "bell\u{7}.jpg", "..\\..\\evil.jpg", "-rf.jpg", String(repeating: "long", count: 60) + ".jpg"]
        for (i, name) in names.enumerated() {
            var bytes = source
            bytes.append(UInt8(i))
            try bytes.write(to: folder.appendingPathComponent(name))
        }
        // A name that is not valid UTF-8.
        var raw = Array(folder.path.utf8CString.dropLast())
        raw += Array("/bad-\u{1}".utf8).map { CChar(bitPattern: $0) } + [CChar(bitPattern: 0xFF), CChar(bitPattern: 0xFE)] + Array(".jpg".utf8).map { CChar(bitPattern: $0) } + [0]
        let fd = open(raw, O_WRONLY | O_CREAT, 0o644)
        var last = source
        last.append(99)
        _ = last.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let imported = try box.run("import", folder.path, "--title", "../../etc/passwd\n/tmp/x", "--json").json(ImportJSON.self)
        #expect(imported.imported == 5 && imported.skipped == 3, "names starting with a dot are hidden, and skipped: \(imported)")
        let outer = box.url.appendingPathComponent("outer")
        let dest = outer.appendingPathComponent("dest")
        let before = Set(FileManager.default.subpaths(atPath: box.url.path) ?? [])
        let result = try box.run("export", imported.memory!.id, dest.path, "--html")
        #expect(result.status == 0, "\(result.stderr)")
        let after = Set(FileManager.default.subpaths(atPath: box.url.path) ?? [])
        let created = after.subtracting(before).filter { !$0.hasPrefix("library") }
        #expect(created.allSatisfy { $0 == "outer" || $0.hasPrefix("outer/dest") }, "\(created.sorted())")
        let written = try FileManager.default.contentsOfDirectory(atPath: dest.path)
        for name in written {
            #expect(!name.hasPrefix(".") && !name.contains("/") && !name.contains("\n") && !name.unicodeScalars.contains { $0.value < 0x20 }, "\(name.debugDescription)")
        }
        #expect(written.filter { $0.hasSuffix(".jpg") }.count == 5)
        #expect(written.contains("new_line.jpg") && written.contains("bell_.jpg") && written.contains("rf.jpg") && written.contains("bad-___.jpg"))
    }

    @Test func gcRemovesOrphansAndVerifyFindsDamage() throws {
        let (box, _) = try seeded()
        let store = try BlobStore(root: box.library.appendingPathComponent(".library_SUPPORT"))
        let orphan = try store.put(Data("nobody refers to me".utf8)).digest
        let dry = try box.run("gc", "--dry-run", "--json").json(GCJSON.self)
        #expect(dry.orphanBlobs == 1 && dry.dryRun && store.contains(orphan))
        let gc = try box.run("gc", "--json").json(GCJSON.self)
        #expect(gc.orphanBlobs == 1 && gc.orphanBytes == 19 && gc.bytesFreed == 0 && !store.contains(orphan) && store.trashContains(orphan))
        let pruned = try box.run("gc", "--prune-now", "--json").json(GCJSON.self)
        #expect(pruned.prunedBlobs == 1 && pruned.bytesFreed == 19 && !store.trashContains(orphan) && pruned.trashBlobs == 0)
        #expect(try box.run("verify").status == 0)
        // Damage one stored photo: verify names it, export refuses it.
        let show = try box.run("show", "Paris", "--json").json(ShowJSON.self)
        let victim = try #require(show.images.first { $0.filename == "IMG_0004.jpg" })
        let digest = try #require(BlobDigest(hex: victim.sha256))
        var bytes = try Data(contentsOf: store.url(for: digest))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: store.url(for: digest))
        let verify = try box.run("verify", "--json")
        #expect(verify.status == 1)
        let report = try verify.json(VerifyJSON.self)
        #expect(!report.ok && report.corrupt == [victim.sha256] && report.database == "ok")
        // The same on four threads; --quick reads nothing, so it sees presence only.
        let parallel = try box.run("verify", "--json", "-j", "4").json(VerifyJSON.self)
        #expect(parallel.corrupt == [victim.sha256] && parallel.blobsChecked == report.blobsChecked)
        let quick = try box.run("verify", "--quick", "--json")
        let quickReport = try quick.json(VerifyJSON.self)
        #expect(quick.status == 0 && quickReport.blobsChecked == 0 && quickReport.corrupt.isEmpty, "\(quick.stdout)")
        try Data().write(to: store.url(for: digest))  // emptied: seen from its size
        let emptied = try box.run("verify", "--quick", "--json")
        #expect(try emptied.status == 1 && emptied.json(VerifyJSON.self).corrupt == [victim.sha256], "\(emptied.stdout)")
        try FileManager.default.removeItem(at: store.url(for: digest))
        let gone = try box.run("verify", "--quick", "--json")
        #expect(try gone.status == 1 && gone.json(VerifyJSON.self).missing == [victim.sha256], "\(gone.stdout)")
        try bytes.write(to: store.url(for: digest))
        let dest = box.url.appendingPathComponent("out")
        let export = try box.run("export", "Paris", dest.path)
        #expect(export.status == 1 && export.stderr.contains("IMG_0004.jpg is damaged in the library"))
        #expect(!FileManager.default.fileExists(atPath: dest.appendingPathComponent("IMG_0004.jpg").path))
        #expect(FileManager.default.fileExists(atPath: dest.appendingPathComponent("IMG_0005.jpg").path))
    }
}
