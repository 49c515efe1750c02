import BlobStore
import Foundation
@testable import MemoriesKit
import Testing

/// Whether FUSE exFAT and FAT32 media can be made here (see `RemovableMediaTests`).
let removableMediaAvailable: Bool = getuid() == 0 && access("/dev/fuse", R_OK | W_OK) == 0 && access("/dev/loop-control", R_OK | W_OK) == 0
    && ["/usr/sbin/mkfs.exfat", "/usr/sbin/mount.exfat-fuse", "/usr/sbin/mkfs.vfat", "/usr/bin/fusefat", "/usr/sbin/losetup"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

/// Exports onto the file systems of USB sticks, through FUSE as a desktop mounts them: exFAT
/// (exfat-fuse on a loop device) and FAT32 (fusefat on an image). Names are made safe for them,
/// a name the medium still refuses gets a plain form, the gallery's links match what was written,
/// and a medium that goes away is said as such. Skipped, saying why, without root, /dev/fuse,
/// loop devices or the tools (scripts/setup.sh --tests installs them).
@Suite(.enabled(if: removableMediaAvailable, "needs root, /dev/fuse, a loop device, exfat-fuse, exfatprogs, fusefat and dosfstools (scripts/setup.sh --tests)"))
struct RemovableMediaTests {
    /// Runs a tool through the shell (system(3)), returning its status and what it printed. Not
    /// Foundation's Process: a FUSE daemon the tool starts keeps the descriptor Process watches for
    /// its child's end, and waitUntilExit never returns.
    @discardableResult
    static func tool(_ path: String, _ args: [String]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = ([path] + args).map(quoted).joined(separator: " ") + " </dev/null >\(quoted(log.path)) 2>&1"
        let status = system(command)
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// A 64 MB file system of `kind` ("exfat" or "fat32") mounted at `at`; the closure it returns unmounts it.
    static func medium(_ kind: String, in box: Sandbox, at mountPoint: URL) throws -> () -> Void {
        let image = box.url.appendingPathComponent("\(kind).img")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: image.path, contents: nil))
        #expect(truncate(image.path, 64 << 20) == 0)
        if kind == "exfat" {
            #expect(try tool("/usr/sbin/mkfs.exfat", [image.path]).status == 0)
            let loop = try tool("/usr/sbin/losetup", ["-f", "--show", image.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let mounted = try tool("/usr/sbin/mount.exfat-fuse", [loop, mountPoint.path])
            #expect(mounted.status == 0, "\(mounted.output)")
            return { _ = try? tool("/usr/bin/umount", [mountPoint.path]); _ = try? tool("/usr/sbin/losetup", ["-d", loop]) }
        }
        #expect(try tool("/usr/sbin/mkfs.vfat", ["-F", "32", image.path]).status == 0)
        let mounted = try tool("/usr/bin/fusefat", ["-o", "rw+", image.path, mountPoint.path])
        #expect(mounted.status == 0, "\(mounted.output)")
        return { _ = try? tool("/usr/bin/umount", [mountPoint.path]) }
    }

    /// Photos named as phones, chats and people name them: characters Windows, exFAT and FAT
    /// forbid, a device name, names that differ only in case or in Unicode normalization, and
    /// names that are not ASCII. Each a distinct photo (bytes after its end differ).
    static func hostileFolder(_ box: Sandbox) throws -> (URL, [String]) {
        let names = ["a:b.jpg", "what?.jpg", "say \"cheese\".jpg", "pipe|star*.jpg", "<tag>.jpg", "CON.jpg", "lpt1.JPG", "dots....jpg",
                     "Case.jpg", "case.jpg", "été.jpg", "e\u{301}te\u{301}.jpg", "東京.jpg", "Ærø.jpg",
                     // One name to exFAT's upcase table, two to full upper-casing with normalization.
                     "\u{1FB3}.jpg", "\u{1FBC}.jpg", "I\u{307}stanbul.jpg", "i\u{307}stanbul.jpg"]
        let folder = box.url.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
        for (i, name) in names.enumerated() {
            try (source + Data("\(i)".utf8)).write(to: folder.appendingPathComponent(name))
        }
        return (folder, names)
    }

    struct Manifest: Decodable {
        struct File: Decodable { var file: String; var thumbnail: String?; var preview: String?; var originalFilename: String; var sha256: String }
        struct Note: Decodable { var originalFilename: String; var reason: String }
        var files: [File]
        var warnings: [Note]
    }

    @Test(arguments: ["exfat", "fat32"])
    func aMemoryWithHostileNamesExportsWholeToAUSBStick(_ kind: String) throws {
        let box = Sandbox()
        let (folder, names) = try Self.hostileFolder(box)
        let imported = try box.run("import", folder.path, "--title", "Names")
        #expect(imported.status == 0, "\(imported.stderr)")
        let mountPoint = box.url.appendingPathComponent("stick")
        let unmount = try Self.medium(kind, in: box, at: mountPoint)
        defer { unmount() }
        let out = mountPoint.appendingPathComponent("Names")
        let exported = try box.run("export", "Names", out.path, "--html")
        #expect(exported.status == 0, "\(kind): \(exported.stderr)")
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.files.count == names.count, "\(kind): every photo")
        #expect(Set(manifest.files.map(\.originalFilename)) == Set(names))
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        for file in manifest.files {
            #expect(written.contains(file.file), "\(kind): \(file.file) is on the medium")
            #expect(try sha256(out.appendingPathComponent(file.file)) == file.sha256, "\(kind): \(file.file) byte for byte")
            #expect(!file.file.contains { "<>:\"|?*\\".contains($0) }, "\(file.file)")
            #expect(!FileNames.deviceNames.contains(String(file.file.split(separator: ".")[0]).uppercased()), "\(file.file)")
            for link in [file.thumbnail, file.preview].compactMap({ $0 }) {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(link).path), "\(kind): the gallery's \(link)")
            }
        }
        // The gallery's links (the lightbox's original too), decoded, are the files as written, and each is on the medium.
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        let attributes = try NSRegularExpression(pattern: "(?:href|src|srcset|data-original)=\"([^\"]+)\"")
        var links = Set<String>()
        for match in attributes.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            let value = String(html[Range(match.range(at: 1), in: html)!]).replacingOccurrences(of: "&amp;", with: "&")
            for part in value.split(separator: ",") {
                guard let link = part.trimmingCharacters(in: .whitespaces).split(separator: " ").first?.removingPercentEncoding,
                      !link.hasPrefix("#"), !link.hasPrefix("data:") else { continue }
                links.insert(link)
            }
        }
        for file in manifest.files {
            #expect(links.contains(file.file), "\(kind): index.html links \(file.file)")
        }
        for link in links {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(link).path), "\(kind): the gallery links \(link), which is not there")
        }
        if kind == "fat32" {
            // Debian's fusefat takes no name that is not ASCII: those got their plain forms, each said.
            #expect(written.contains("ete.jpg") && written.contains("dong jing.jpg") && written.contains("AEro.jpg"), "\(written.sorted())")
            #expect(manifest.warnings.contains { $0.reason.contains("the destination refused the name '東京.jpg'") && $0.reason.hasSuffix("written as 'dong jing.jpg'") },
                    "\(manifest.warnings.map(\.reason))")
        }
    }

    /// A medium whose file system stopped (its FUSE daemon killed: as an unplugged stick) is said
    /// as such, with what to do.
    @Test func aMediumThatWentAwayIsSaidAsSuch() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "Paris").status == 0)
        let mountPoint = box.url.appendingPathComponent("stick")
        let unmount = try Self.medium("fat32", in: box, at: mountPoint)
        defer { unmount() }
        _ = try Self.tool("/usr/bin/pkill", ["-KILL", "-f", "fusefat.*\(box.url.path)"])
        usleep(200_000)
        let exported = try box.run("export", "Paris", mountPoint.appendingPathComponent("Paris").path)
        #expect(exported.status == 1)
        #expect(exported.stderr.contains("the destination went away (Transport endpoint is not connected: unplugged or unmounted?)"), "\(exported.stderr)")
        #expect(exported.stderr.contains("Plug the disk in or mount it again, then export again into an empty folder."), "\(exported.stderr)")
    }

    /// A library kept on a USB stick's file system, which cannot hold one, is said as such with
    /// where to keep it: exFAT has no hard links, fusefat cannot map SQLite's shared memory. A
    /// library whose medium went away is said as such too, not as "no library".
    @Test func aLibraryOnAMediumThatCannotHoldOneIsSaidAsSuch() throws {
        let box = Sandbox()
        let paris = fixturePhotos.appendingPathComponent("Paris").path
        for (kind, words) in [("exfat", "the file system holding the library cannot make hard links"),
                              ("fat32", "the file system holding the library cannot keep SQLite's shared-memory file")] {
            let mountPoint = box.url.appendingPathComponent("stick-\(kind)")
            let unmount = try Self.medium(kind, in: box, at: mountPoint)
            defer { unmount() }
            let imported = try box.run(["--library", mountPoint.appendingPathComponent("library").path, "import", paris, "--title", "Paris"])
            #expect(imported.status == 1)
            #expect(imported.stderr.contains(words) && imported.stderr.contains("Keep the library on a Linux file system (ext4, btrfs, xfs)"),
                    "\(kind): \(imported.stderr)")
            if kind == "fat32" {
                _ = try Self.tool("/usr/bin/pkill", ["-KILL", "-f", "fusefat.*\(box.url.path)"])
                usleep(200_000)
                let listed = try box.run(["--library", mountPoint.appendingPathComponent("library").path, "list"])
                #expect(listed.status == 1 && listed.stderr.contains("the disk holding the library went away (Transport endpoint is not connected)"),
                        "\(listed.stderr)")
            }
        }
    }

    /// A card read through FUSE is read again at every sync (fusefat wrote a photo's bytes in place
    /// and kept its size, times and inode: the record was trusted, and the new photo never read).
    @Test func aSyncFromAFUSEMediumReadsEveryFile() throws {
        let box = Sandbox()
        let card = box.url.appendingPathComponent("card")
        let unmount = try Self.medium("fat32", in: box, at: card)
        defer { unmount() }
        #expect(!FileWalker.keepsTimes(Array(card.path.utf8CString)) && FileWalker.keepsTimes(Array(box.url.path.utf8CString)))
        let dcim = card.appendingPathComponent("DCIM")
        try FileManager.default.createDirectory(at: dcim, withIntermediateDirectories: true)
        let source = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
        for i in 0..<2 { try (source + Data("\(i)".utf8)).write(to: dcim.appendingPathComponent("P\(i).JPG")) }
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try box.run("import", dcim.path, "--title", "Card").status == 0)
        Thread.sleep(forTimeInterval: 2.2)
        let again = try box.run("import", dcim.path, "--title", "Card", "--json").json(SyncJSON.self)
        #expect(again.unchanged == 0 && again.alreadyInMemory == 2, "\(again)")
        // The last byte rewritten in place: the same size; a new photo all the same.
        let handle = try FileHandle(forWritingTo: dcim.appendingPathComponent("P1.JPG"))
        try handle.seek(toOffset: UInt64(source.count))
        try handle.write(contentsOf: Data("7".utf8))
        try handle.close()
        let changed = try box.run("import", dcim.path, "--title", "Card", "--json").json(SyncJSON.self)
        #expect(changed.imported == 1, "\(changed)")
    }
}

