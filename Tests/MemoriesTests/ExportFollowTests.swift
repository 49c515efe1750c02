import Foundation
import Testing

/// Exports that follow the library (issue 34): exporting a memory again into its folder updates
/// it in place, deleting only files that are still as the export wrote them; `export --all`
/// writes every memory and an index, and follows renames and deletions.
@Suite struct ExportFollowTests {
    struct Manifest: Decodable {
        struct File: Decodable { var file: String; var thumbnail: String?; var preview: String?; var sha256: String }
        var files: [File]
        var checksums: [String: String]?
    }

    func tree(_ folder: URL) -> [String] { (FileManager.default.subpaths(atPath: folder.path) ?? []).sorted() }

    func manifest(_ folder: URL) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// The inode and modification time of a file: the same when it was not written again.
    func identity(_ url: URL) -> [Int] {
        var info = stat()
        stat(url.path, &info)
        return [Int(info.st_ino), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    func seeded() throws -> Sandbox {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "Rome").status == 0)
        return box
    }

    @Test func exportingAgainUpdatesTheFolderInPlace() throws {
        let box = try seeded()
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path, "--html").status == 0)
        let before = try manifest(out)
        #expect(before.files.count == 4 && before.checksums?.count == 12)
        let kept = out.appendingPathComponent("IMG_0001.jpg")
        let keptIdentity = identity(kept), keptThumb = identity(out.appendingPathComponent("thumbs/IMG_0001.jpg"))

        // Nothing changed: nothing written but the manifest and the gallery.
        let again = try box.run("export", "Rome", out.path, "--html")
        #expect(again.status == 0 && again.stdout.contains("updated: 0 deleted"), "\(again.stdout) \(again.stderr)")
        #expect(identity(kept) == keptIdentity && identity(out.appendingPathComponent("thumbs/IMG_0001.jpg")) == keptThumb)

        // One photo removed, one added: the one file deleted (with its thumbnail and preview), the
        // new one written, the rest untouched.
        #expect(try box.run("remove", "Rome", "IMG_0002.jpg").status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg").path, "--into", "Rome").status == 0)
        let update = try box.run("export", "Rome", out.path, "--html")
        #expect(update.status == 0 && update.stdout.contains("exported 4 photos of 'Rome'") && update.stdout.contains("updated: 1 deleted"), "\(update.stdout)")
        #expect(tree(out) == ["IMG_0001.jpg", "IMG_0003.jpg", "IMG_0004.jpg", "IMG_0006.jpg", "index.html", "manifest.json", "previews",
                              "previews/IMG_0001.jpg", "previews/IMG_0003.jpg", "previews/IMG_0004.jpg", "previews/IMG_0006.jpg",
                              "thumbs", "thumbs/IMG_0001.jpg", "thumbs/IMG_0003.jpg", "thumbs/IMG_0004.jpg", "thumbs/IMG_0006.jpg"])
        #expect(identity(kept) == keptIdentity)
        #expect(try sha256(out.appendingPathComponent("IMG_0004.jpg")) == (try sha256(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"))))
        let after = try manifest(out)
        #expect(after.files.map(\.file).sorted() == ["IMG_0001.jpg", "IMG_0003.jpg", "IMG_0004.jpg", "IMG_0006.jpg"])
        let gallery = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(gallery.contains("IMG_0004.jpg") && !gallery.contains("IMG_0002.jpg"))
        // Every file the manifest lists is there with the checksum it gives.
        for (path, sum) in after.checksums ?? [:] { #expect(try sha256(out.appendingPathComponent(path)) == sum, "\(path)") }
    }

    @Test func onlyFilesAsTheExportWroteThemAreDeleted() throws {
        let box = try seeded()
        let out = box.url.appendingPathComponent("out")
        let victim = box.url.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        #expect(try box.run("export", "Rome", out.path).status == 0)
        // The user edited one exported photo; a hostile manifest lists a file outside the folder
        // (with its right checksum) as a photo's.
        try Data("edited".utf8).write(to: out.appendingPathComponent("IMG_0002.jpg"))
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        var files = json["files"] as! [[String: Any]]
        var sums = json["checksums"] as! [String: String]
        var outside = files[0]
        outside["file"] = "../victim.txt"
        outside["sha256"] = String(repeating: "0", count: 64)
        files.append(outside)
        sums["../victim.txt"] = try sha256(victim)
        (json["files"], json["checksums"]) = (files, sums)
        try JSONSerialization.data(withJSONObject: json).write(to: out.appendingPathComponent("manifest.json"))

        #expect(try box.run("remove", "Rome", "IMG_0002.jpg").status == 0)
        let update = try box.run("export", "Rome", out.path)
        #expect(update.status == 0)
        #expect(update.stderr.contains("out/IMG_0002.jpg: changed since it was exported; left as it is"), "\(update.stderr)")
        #expect(try Data(contentsOf: out.appendingPathComponent("IMG_0002.jpg")) == Data("edited".utf8))
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        // The edited file keeps its name; it is no photo's now.
        #expect(try manifest(out).files.map(\.file).sorted() == ["IMG_0001.jpg", "IMG_0003.jpg", "IMG_0006.jpg"])
    }

    @Test func otherFoldersAreRefusedAndSaidWhy() throws {
        let box = try seeded()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path).status == 0)
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path, "--html").status == 0)
        let otherOptions = try box.run("export", "Rome", out.path)
        #expect(otherOptions.status == 1 && otherOptions.stderr.contains("holds this memory's export made with --format original --html"), "\(otherOptions.stderr)")
        let otherMemory = try box.run("export", "Paris", out.path, "--html")
        #expect(otherMemory.status == 1 && otherMemory.stderr.contains("holds the export of another memory ('Rome')"), "\(otherMemory.stderr)")
        let mine = box.url.appendingPathComponent("mine")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/notes.txt"), to: "mine/notes.txt")
        let foreign = try box.run("export", "Rome", mine.path)
        #expect(foreign.status == 1 && foreign.stderr.contains("is not empty"), "\(foreign.stderr)")
        #expect(tree(mine) == ["notes.txt"])
        // A manifest that is not this tool's (no generator) is not trusted either.
        try Data(#"{"files": []}"#.utf8).write(to: mine.appendingPathComponent("manifest.json"))
        #expect(try box.run("export", "Rome", mine.path).stderr.contains("is not empty"))
        for args in [["export", "--all", "Rome", out.path], ["export", out.path]] {
            #expect(try box.run(args).status == 64, "\(args)")
        }
    }

    /// An update killed after writing a new photo and before its manifest: the next one finds
    /// the copy by its bytes and keeps it under its name, instead of writing a second.
    @Test func aCopyAKilledUpdateLeftIsTakenAsWritten() throws {
        let box = try seeded()
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg").path, "--into", "Rome").status == 0)
        _ = box.copy(fixturePhotos.appendingPathComponent("Paris/IMG_0004.jpg"), to: "out/IMG_0004.jpg")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        #expect(tree(out) == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0004.jpg", "IMG_0006.jpg", "manifest.json"])
        #expect(try manifest(out).files.map(\.file).sorted() == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0004.jpg", "IMG_0006.jpg"])
    }

    @Test func exportAllWritesEveryMemoryAndFollowsTheLibrary() throws {
        let box = try seeded()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path).status == 0)
        let all = box.url.appendingPathComponent("all")
        let first = try box.run("export", "--all", all.path, "--html")
        #expect(first.status == 0 && first.stdout.contains("exported 2 memories (7 photos)"), "\(first.stdout) \(first.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: all.path).sorted() == ["Paris", "Rome", "index.html", "memories.json"])
        let index = try String(contentsOf: all.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(index.contains(#"<a href="Rome/index.html">Rome</a>"#) && index.contains(#"<a href="Paris/index.html">Paris</a>"#))
        let romeFile = all.appendingPathComponent("Rome/IMG_0001.jpg"), romeIdentity = identity(romeFile)

        // Renamed: the same folder, the new title in the index; deleted: its folder goes, but a
        // file the user changed in it stays, named.
        #expect(try box.run("edit", "Rome", "--title", "Roma").status == 0)
        try Data("my notes".utf8).write(to: all.appendingPathComponent("Paris/IMG_0004.jpg"))
        #expect(try box.run("delete", "Paris", "--yes").status == 0)
        let second = try box.run("export", "--all", all.path, "--html")
        #expect(second.status == 0)
        #expect(second.stderr.contains("Paris/IMG_0004.jpg: changed since it was exported; left as it is (its memory was deleted)"), "\(second.stderr)")
        #expect(identity(romeFile) == romeIdentity)
        #expect(try String(contentsOf: all.appendingPathComponent("index.html"), encoding: .utf8).contains(#"<a href="Rome/index.html">Roma</a>"#))
        #expect(tree(all.appendingPathComponent("Paris")) == ["IMG_0004.jpg", "index.html", "manifest.json", "previews", "thumbs"])
        // Once the user deletes their file, the next export removes the folder.
        try FileManager.default.removeItem(at: all.appendingPathComponent("Paris/IMG_0004.jpg"))
        let third = try box.run("export", "--all", all.path, "--html")
        #expect(third.status == 0 && third.stdout.contains("removed the folders of 1 deleted memory"), "\(third.stdout) \(third.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: all.path).sorted() == ["Rome", "index.html", "memories.json"])

        // A folder that is not an earlier `export --all` is refused.
        let other = box.url.appendingPathComponent("other")
        _ = box.copy(fixturePhotos.appendingPathComponent("Rome/notes.txt"), to: "other/notes.txt")
        #expect(try box.run("export", "--all", other.path).stderr.contains("is not empty"))
    }

    /// Found by an outside attack: an export killed after writing its files and before its final
    /// manifest (the first one is written empty, before anything) is continued by the next run:
    /// the files it wrote, under the names it gives first and with the bytes it writes, are taken
    /// as written, gallery files too; nothing is written twice under a second name.
    @Test func aKilledExportIsContinued() throws {
        let box = try seeded()
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path, "--html").status == 0)
        let before = tree(out)
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        (json["files"], json["checksums"]) = ([] as [Any], [:] as [String: Any])
        try JSONSerialization.data(withJSONObject: json).write(to: out.appendingPathComponent("manifest.json"))
        try FileManager.default.removeItem(at: out.appendingPathComponent("index.html"))
        let again = try box.run("export", "Rome", out.path, "--html", "-v")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(tree(out) == before, "\(tree(out))")
        #expect(try manifest(out).files.count == 4)
    }

    /// Found by an outside attack: a copy the user made of an exported photo under another name is
    /// the user's: never taken as the photo's file, so never deleted with it.
    @Test func aCopyUnderAnotherNameStaysTheUsers() throws {
        let box = try seeded()
        let out = box.url.appendingPathComponent("out")
        #expect(try box.run("export", "Rome", out.path).status == 0)
        try FileManager.default.moveItem(at: out.appendingPathComponent("IMG_0002.jpg"), to: out.appendingPathComponent("keep.jpg"))
        #expect(try box.run("export", "Rome", out.path).status == 0)
        #expect(try manifest(out).files.map(\.file).sorted() == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0006.jpg"])
        #expect(try box.run("remove", "Rome", "IMG_0002.jpg").status == 0)
        #expect(try box.run("export", "Rome", out.path).status == 0)
        #expect(tree(out) == ["IMG_0001.jpg", "IMG_0003.jpg", "IMG_0006.jpg", "keep.jpg", "manifest.json"])
    }

    /// Found by an outside attack: a memory's folder the user deleted is made again for it, never
    /// given to another memory of that title (which then held it, and every later run failed).
    @Test func aDeletedFolderIsMadeAgainForItsOwnMemory() throws {
        let box = try seeded()
        let all = box.url.appendingPathComponent("all")
        #expect(try box.run("export", "--all", all.path).status == 0)
        try FileManager.default.removeItem(at: all.appendingPathComponent("Rome"))
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Rome 2").status == 0)
        #expect(try box.run("edit", "Rome 2", "--title", "Rome").status == 0)
        for _ in 0..<2 {
            let result = try box.run("export", "--all", all.path)
            #expect(result.status == 0, "\(result.stderr)")
        }
        struct Index: Decodable { struct Entry: Decodable { var title: String; var folder: String; var photos: Int }; var memories: [Entry] }
        let index = try JSONDecoder().decode(Index.self, from: Data(contentsOf: all.appendingPathComponent("memories.json")))
        #expect(index.memories.map(\.folder).sorted() == ["Rome", "Rome (2)"] && index.memories.map(\.photos).sorted() == [3, 4])
    }

    /// A deleted memory's folder that holds a file of the user's: what the export wrote goes, the
    /// file and its folder stay, said once, and are not looked at again.
    @Test func aDeletedMemorysFolderWithTheUsersFileIsNamedOnce() throws {
        let box = try seeded()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path).status == 0)
        let all = box.url.appendingPathComponent("all")
        #expect(try box.run("export", "--all", all.path, "--html").status == 0)
        try Data("mine".utf8).write(to: all.appendingPathComponent("Paris/notes.txt"))
        #expect(try box.run("delete", "Paris", "--yes").status == 0)
        let first = try box.run("export", "--all", all.path, "--html")
        #expect(first.status == 0 && first.stderr.contains("Paris/notes.txt: not written by the export; left"), "\(first.stderr)")
        #expect(tree(all.appendingPathComponent("Paris")) == ["notes.txt"])
        let second = try box.run("export", "--all", all.path, "--html")
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
    }
}
