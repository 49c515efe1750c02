import Foundation
import Testing

/// Curation lasts (issue 34): a photo removed from a memory stays out of it through every later
/// import of any folder (unchanged, renamed, in a dry run), until `--include-removed` brings it
/// back; `remove` takes many photos and patterns, all or none.
@Suite struct CurationTests {
    @Test func removedPhotosStayRemovedUntilAskedFor() throws {
        let box = Sandbox()
        for (source, name) in [("Rome/IMG_0001.jpg", "IMG_0001.jpg"), ("Rome/IMG_0002.jpg", "IMG_0002.jpg"), ("Rome/day 2/IMG_0003.jpg", "IMG_0003.jpg"),
                               ("Paris/IMG_0004.jpg", "IMG_0004.jpg"), ("Rome/IMG_0006.jpg", "IMG_0006.jpg")] {
            _ = box.copy(fixturePhotos.appendingPathComponent(source), to: "Roll/\(name)")
        }
        let roll = box.url.appendingPathComponent("Roll")
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        let removal = try box.run("remove", "Roll", "IMG_0002.jpg", "IMG_000[34].jpg")
        #expect(removal.status == 0 && removal.stdout == "removed 3 photos from 'Roll'\n", "\(removal.stdout) \(removal.stderr)")
        func names(_ title: String) throws -> [String] {
            try box.run("show", title, "--json").json(ShowJSON.self).images.map(\.filename).sorted()
        }
        #expect(try names("Roll") == ["IMG_0001.jpg", "IMG_0006.jpg"])

        // Synced again as it is, renamed, in a dry run: the three stay out, and are said.
        let again = try box.run("import", roll.path, "--title", "Roll")
        #expect(again.status == 0 && again.stdout.contains("3 removed earlier, not re-added (--include-removed adds them)"), "\(again.stdout)")
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0002.jpg"), to: roll.appendingPathComponent("renamed.jpg"))
        let renamed = try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self)
        #expect(renamed.imported == 0 && renamed.removedEarlier == 3, "\(renamed)")
        let dry = try box.run("import", roll.path, "--title", "Roll", "-n", "--json").json(SyncJSON.self)
        #expect(dry.imported == 0 && dry.removedEarlier == 3, "\(dry)")
        #expect(try names("Roll") == ["IMG_0001.jpg", "IMG_0006.jpg"])

        // Another memory is another curation.
        #expect(try box.run("import", roll.path, "--title", "Other", "--json").json(SyncJSON.self).imported == 5)

        // Asked for, they come back, and the memory forgets it removed them.
        let back = try box.run("import", roll.path, "--title", "Roll", "--include-removed", "--json").json(SyncJSON.self)
        #expect(back.imported == 3 && back.removedEarlier == 0, "\(back)")
        #expect(try names("Roll").count == 5)
        #expect(try box.run("import", roll.path, "--title", "Roll", "--json").json(SyncJSON.self).removedEarlier == 0)

        // A name is a name before it is a pattern: 'a[1].jpg' is that photo, not a1.jpg.
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0005.jpg"), to: "Brackets/a[1].jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "Brackets/a1.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "Brackets/b.jpg")
        #expect(try box.run("import", box.url.appendingPathComponent("Brackets").path, "--title", "Brackets").status == 0)
        #expect(try box.run("remove", "Brackets", "a[1].jpg").stdout == "removed a[1].jpg from 'Brackets'\n")
        #expect(try names("Brackets") == ["a1.jpg", "b.jpg"])

        // All or none: a pattern that matches nothing, or every photo, removes nothing.
        let none = try box.run("remove", "Roll", "IMG_0001.jpg", "nothing*")
        #expect(none.status == 1 && none.stderr.contains("memory Roll has no image matching 'nothing*'"), "\(none.stderr)")
        let all = try box.run("remove", "Roll", "*.jpg")
        #expect(all.status == 1 && all.stderr.contains("these 5 photos are all of 'Roll'"), "\(all.stderr)")
        #expect(try names("Roll").count == 5)
    }

    @Test func aDeletedMemoryTakesItsRemovalsWithIt() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        #expect(try box.run("remove", "Rome", "IMG_0001.jpg").status == 0)
        func removals() throws -> String { try box.sql("select count(*) from removed_photo") }
        #expect(try removals() == "1")
        #expect(try box.run("delete", "Rome", "--yes").status == 0)
        #expect(try removals() == "0")
        // A new memory of the same title starts with nothing removed.
        let fresh = try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome", "--json").json(SyncJSON.self)
        #expect(fresh.imported == 4 && fresh.removedEarlier == 0)
    }

    /// Rows, blobs and curation after `move`, `merge` and `split`: no stored file is copied
    /// (the store's files are the same before and after), a photo the other memory has is not
    /// repeated, the moved photos stay out of a sync of the first memory's folder, and verify is
    /// healthy.
    @Test func moveMergeAndSplitChangeRowsNotFiles() throws {
        let box = Sandbox()
        let rome = fixturePhotos.appendingPathComponent("Rome"), paris = fixturePhotos.appendingPathComponent("Paris")
        #expect(try box.run("import", rome.path).status == 0)   // IMG_0001, 0002, 0006, day 2/IMG_0003
        #expect(try box.run("import", paris.path).status == 0)  // IMG_0004, 0005, copy of IMG_0001
        func names(_ title: String) throws -> [String] {
            try box.run("show", title, "--json").json(ShowJSON.self).images.map(\.filename).sorted()
        }
        let files = Set(box.blobFiles())

        let moved = try box.run("move", "Rome", "IMG_0001.jpg", "IMG_000[26].jpg", "--to", "Paris", "--json").json(MoveJSON.self)
        #expect(moved == MoveJSON(moved: 2, alreadyThere: 1), "IMG_0001 is Paris's copy already")
        #expect(try names("Rome") == ["IMG_0003.jpg"])
        #expect(try names("Paris") == ["IMG_0002.jpg", "IMG_0004.jpg", "IMG_0005.jpg", "IMG_0006.jpg", "copy of IMG_0001.jpg"])
        #expect(Set(box.blobFiles()) == files, "no stored file copied or lost")
        let sync = try box.run("import", rome.path, "--json").json(SyncJSON.self)
        #expect(sync.imported == 0 && sync.removedEarlier == 3, "moved photos stay out of a sync of Rome: \(sync)")
        #expect(try box.run("move", "Rome", "IMG_0003.jpg", "--to", "Paris").stderr.contains("`memories merge 'Rome' --into 'Paris'` moves them all"))
        #expect(try box.run("move", "Rome", "IMG_0003.jpg").status == 64)
        #expect(try box.run("move", "Paris", "IMG_0004.jpg", "--to", "Paris").status == 1)

        let split = try box.run("split", "Paris", "IMG_0004.jpg", "IMG_0005.jpg", "--title", "Louvre")
        #expect(split.status == 0 && split.stdout.hasPrefix("moved 2 photos from 'Paris' to 'Louvre' (a new memory, "), "\(split.stdout) \(split.stderr)")
        #expect(try names("Louvre") == ["IMG_0004.jpg", "IMG_0005.jpg"])
        #expect(try box.run("split", "Paris", "IMG_0002.jpg", "--title", "Louvre").stderr.contains("a memory titled 'Louvre' exists"))

        // Merge: Rome (IMG_0003, and three removals) into Louvre; Rome's folder syncs into Louvre.
        let merged = try box.run("merge", "Rome", "--into", "Louvre")
        #expect(merged.status == 0 && merged.stdout == "moved 1 photo from 'Rome' to 'Louvre'; deleted 'Rome'\n", "\(merged.stdout) \(merged.stderr)")
        #expect(try box.run("show", "Rome").status == 1)
        let resync = try box.run("import", rome.path, "--json").json(ImportJSON.self)
        #expect(resync.memory?.title == "Louvre" && resync.imported == 0, "\(resync)")
        #expect(try names("Louvre") == ["IMG_0003.jpg", "IMG_0004.jpg", "IMG_0005.jpg"])
        #expect(Set(box.blobFiles()) == files)
        let verify = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(verify.ok && verify.missing.isEmpty && verify.orphans == 0)
    }

    struct MoveJSON: Decodable, Equatable {
        var moved: Int
        var alreadyThere: Int
    }

    /// A photo's capture time is corrected with `edit --photo`, kept with its offset, and not undone
    /// by a sync of its folder, read or not.
    @Test func aPhotosCaptureTimeIsCorrectedAndStays() throws {
        let box = Sandbox()
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "Roll/IMG_0001.jpg")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0002.jpg"), to: "Roll/IMG_0002.jpg")
        let roll = box.url.appendingPathComponent("Roll")
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        let edit = try box.run("edit", "Roll", "--photo", "IMG_0002.jpg", "--date", "2023-12-24T18:30+01:00")
        #expect(edit.status == 0 && edit.stdout == "updated the capture time of IMG_0002.jpg in 'Roll'\n", "\(edit.stderr)")
        func takenAt() throws -> String? {
            try box.run("show", "Roll", "--json").json(ShowJSON.self).images.first { $0.filename == "IMG_0002.jpg" }?.takenAt
        }
        #expect(try takenAt() == "2023-12-24T18:30:00+01:00")
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        try FileManager.default.moveItem(at: roll.appendingPathComponent("IMG_0002.jpg"), to: roll.appendingPathComponent("renamed.jpg"))
        #expect(try box.run("import", roll.path, "--title", "Roll").status == 0)
        #expect(try takenAt() == "2023-12-24T18:30:00+01:00", "a sync keeps a corrected time")
        #expect(try box.run("edit", "Roll", "--photo", "IMG_0002.jpg", "--title", "x").status == 64)
        #expect(try box.run("edit", "Roll", "--photo", "IMG_0002.jpg", "--date", "2023-02-30").status == 64)
        #expect(try box.run("edit", "Roll", "--photo", "nothing.jpg", "--date", "2023-02-03").status == 1)
    }

    /// A photo's caption is set with `edit --photo`, shown by `show`, carried into an export's
    /// manifest and gallery (escaped), followed by an export updated in place, and removed by an
    /// empty one.
    @Test func aPhotosCaptionIsShownExportedAndFollowed() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        let caption = #"Gelato at "Giolitti" <b>"#
        let edit = try box.run("edit", "Rome", "--photo", "IMG_0002.jpg", "--caption", caption)
        #expect(edit.status == 0 && edit.stdout == "updated the caption of IMG_0002.jpg in 'Rome'\n", "\(edit.stdout) \(edit.stderr)")
        struct Show: Decodable { struct Image: Decodable { var filename: String; var caption: String? }; var images: [Image] }
        let shown = try box.run("show", "Rome", "--json").json(Show.self).images
        #expect(shown.first { $0.filename == "IMG_0002.jpg" }?.caption == caption && shown.filter { $0.caption != nil }.count == 1)
        #expect(try box.run("show", "Rome").stdout.contains("IMG_0002.jpg\n          Gelato at \"Giolitti\" <b>\n"))

        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path, "--html").status == 0)
        struct Manifest: Decodable { struct File: Decodable { var file: String; var caption: String? }; var files: [File] }
        func captions() throws -> [String: String] {
            let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
            return Dictionary(uniqueKeysWithValues: manifest.files.compactMap { file in file.caption.map { (file.file, $0) } })
        }
        #expect(try captions() == ["IMG_0002.jpg": caption])
        let gallery = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(gallery.contains(#"data-caption="Gelato at &quot;Giolitti&quot; &lt;b&gt;""#) && !gallery.contains("<b>"))

        // Changed, then cleared: the export updated in place follows.
        #expect(try box.run("edit", "Rome", "--photo", "IMG_0001.jpg", "--caption", "Arrival").status == 0)
        #expect(try box.run("edit", "Rome", "--photo", "IMG_0002.jpg", "--caption", "").status == 0)
        #expect(try box.run("export", "Rome", out.path, "--html").status == 0)
        #expect(try captions() == ["IMG_0001.jpg": "Arrival"])
        #expect(try box.run("edit", "Rome", "--caption", "x").status == 64)
    }
}

