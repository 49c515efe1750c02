import BlobStore
import Foundation
import MemoriesKit
import Testing

@Suite struct ImportTests {
    @Test func importsAFolderOnceAndAgainAddsNothing() throws {
        let box = Sandbox()
        let first = try box.run("import", fixturePhotos.path, "--title", "Rome 2024", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.json(ImportJSON.self)
        #expect(report.imported == 6 && report.duplicates == 1 && report.skipped == 1 && report.rejected.isEmpty)
        #expect(report.memory?.title == "Rome 2024")
        #expect(box.blobFiles().count == 12, "6 originals and 6 thumbnails")
        let again = try box.run("import", fixturePhotos.path, "--title", "Rome 2024", "--json").json(ImportJSON.self)
        #expect(again.imported == 0 && again.duplicates == 7)
        #expect(again.memory?.id == report.memory?.id)
        let list = try box.run("list", "--json").json([ListJSON].self)
        #expect(list.count == 1 && list[0].imageCount == 6)
        #expect(list[0].date.hasPrefix("2024-06-11"), "the date is the earliest capture time")
    }

    @Test func thePhotoInTwoMemoriesIsStoredOnce() throws {
        let box = Sandbox()
        let one = box.copy(fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: "a/one.jpg")
        _ = box.copy(one, to: "b/same.jpg")
        try box.run("import", box.url.appendingPathComponent("a").path, "--title", "A")
        try box.run("import", box.url.appendingPathComponent("b").path, "--title", "B")
        #expect(box.blobFiles().count == 2, "one original and one thumbnail for both memories")
        let b = try box.run("show", "B", "--json").json(ShowJSON.self)
        let digest = try sha256(one)
        #expect(b.images.map(\.filename) == ["same.jpg"] && b.images[0].sha256 == digest)
    }

    @Test func invalidImagesAreRejectedWithTheirReasonAndTheRestImported() throws {
        let box = Sandbox()
        let result = try box.run("import", fixtureImages.path, "--title", "Mixed", "--json")
        #expect(result.status == 2)
        let report = try result.json(ImportJSON.self)
        let reasons = Dictionary(uniqueKeysWithValues: report.rejected.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        #expect(reasons["truncated.jpg"] == "truncated JPEG: premature end of data")
        #expect(reasons["bomb.png"] == "image 50000x50000 exceeds the 100 MP limit")
        #expect(reasons["zero-bytes.jpg"] == "empty file (0 bytes)")
        #expect(reasons["crc.png"] == "corrupt PNG: IDAT: CRC error")
        #expect(reasons["text.jpg"] == "not a JPEG, PNG, HEIC, AVIF or WebP image")
        #expect(reasons["bomb.webp"] == "image 16384x16384 exceeds the 100 MP limit")
        #expect(report.rejected.count == 15)
        #expect(reasons["truncated.heic"]?.hasSuffix("\n") == false)
        #expect(reasons["panorama.heic"] == nil, "a 12000 px wide HEIC within the pixel limit is a photo")
        #expect(report.imported == 41 && report.duplicates == 2 && report.skipped == 1, "EXPECTED.tsv is skipped")
        #expect(report.rejected.allSatisfy { $0.path.hasPrefix(fixtureImages.path) })
        let text = try box.run("import", fixtureImages.appendingPathComponent("bad/truncated.jpg").path, "--into", "Mixed")
        #expect(text.status == 2 && text.stderr.contains("rejected \(fixtureImages.path)/bad/truncated.jpg: truncated JPEG: premature end of data"))
    }

    @Test func theStagesOfAnImportAreReportedWhenAsked() throws {
        let box = Sandbox()
        let result = try box.run(["import", fixturePhotos.path, "--title", "S"], environment: ["MEMORIES_IMPORT_STAGES": "1"])
        #expect(result.status == 0)
        let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("memories: stages: ") })
        for stage in ["read", "validate+thumbnail", "workers: waiting for decode memory", "hash", "workers: waiting for room", "main: waiting for workers", "main: records", "main: save (blobs + SQLite)"] {
            #expect(line.contains(stage + " "), "\(stage): \(line)")
        }
        #expect(!line.contains("validate+thumbnail 0.00 s"), "decoding took some time: \(line)")
        #expect(try !box.run("import", fixturePhotos.path, "--title", "T").stderr.contains("stages"), "only when asked")
    }

    /// An import runs with glibc's transparent-huge-page tunable (it re-executes itself once with
    /// it added to GLIBC_TUNABLES), keeping the user's other tunables and a choice the user made.
    @Test(.enabled(if: ImportTests.hugePagesAvailable, "needs transparent huge pages"))
    func anImportAsksForHugePagesAndKeepsTheUsersTunables() throws {
        let box = Sandbox()
        func heap(_ environment: [String: String]) throws -> String {
            let result = try box.run(["import", fixturePhotos.path, "--title", "S"], environment: environment.merging(["MEMORIES_IMPORT_STAGES": "1"]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("memories: stages: ") })
            return String(try #require(line.split(separator: "; heap: ").last))
        }
        #expect(try heap([:]) == "re-executed yes, GLIBC_TUNABLES glibc.malloc.hugetlb=1")
        #expect(try heap(["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"]) == "re-executed yes, GLIBC_TUNABLES glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1")
        #expect(try heap(["GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"]) == "re-executed no, GLIBC_TUNABLES glibc.malloc.hugetlb=0")
        // Started by naming the dynamic loader, /proc/self/exe is the loader: no re-exec.
        let loader = "/lib64/ld-linux-x86-64.so.2"
        if FileManager.default.isExecutableFile(atPath: loader) {
            let viaLoader = try Self.runStages(URL(fileURLWithPath: loader), [packageRoot.appendingPathComponent(".build/debug/memories").path,
                                               "--library", box.url.appendingPathComponent("viald").path, "import", fixturePhotos.path, "--title", "L"])
            #expect(viaLoader.exited && viaLoader.status == 0 && viaLoader.stderr.contains("heap: re-executed no"), "\(viaLoader.stderr)")
        }
    }

    /// Runs `executable` with MEMORIES_IMPORT_STAGES=1, stopped after a minute if it is still running
    /// (the bug these tests guard against was an endless loop of execs).
    static func runStages(_ executable: URL, _ arguments: [String]) throws -> (exited: Bool, status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["MEMORIES_IMPORT_STAGES": "1"]) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationReason == .exit, process.terminationStatus, stderr)
    }

    static let hugePagesAvailable = !((try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8))?.contains("[never]") ?? true)

    /// A privileged start (here setuid to another user) makes glibc drop the tunable, so the import
    /// must not re-execute itself for it: it did, forever, at full CPU.
    @Test(.enabled(if: getuid() == 0 && ImportTests.hugePagesAvailable, "needs root (to make a setuid copy) and transparent huge pages"))
    func aPrivilegedImportDoesNotReexecuteItself() throws {
        let box = Sandbox()
        let open = box.url.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        for folder in [box.url, open] { chmod(folder.path, 0o777) }
        let binary = open.appendingPathComponent("memories")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent(".build/debug/memories"), to: binary)
        let photo = open.appendingPathComponent("IMG_0001.jpg")
        try FileManager.default.copyItem(at: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"), to: photo)
        chmod(photo.path, 0o644)
        #expect(chown(binary.path, 65534, 65534) == 0)
        #expect(chmod(binary.path, 0o4755) == 0)
        let run = try Self.runStages(binary, ["--library", open.appendingPathComponent("lib").path, "import", photo.path, "--title", "P"])
        #expect(run.exited && run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("heap: re-executed no"), "\(run.stderr)")
    }

    @Test func aProgressBarOnlyOnATerminal() throws {
        let box = Sandbox()
        let plain = try box.run("import", fixturePhotos.path, "--title", "T")
        #expect(!plain.stderr.contains("importing ["), "no progress bar when stderr is not a terminal")
        // script(1) gives the command a pseudo-terminal.
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = "\(packageRoot.path)/.build/debug/memories --library '\(box.url.path)/tty' import '\(fixturePhotos.path)' --title T"
        script.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        script.standardOutput = out
        script.standardInput = FileHandle.nullDevice
        try script.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        #expect(script.terminationStatus == 0)
        #expect(text.contains("importing [") && text.contains("]  8/8  100%"), "\(text.debugDescription)")
    }

    @Test func dryRunChangesNothing() throws {
        let box = Sandbox()
        let report = try box.run("import", fixturePhotos.path, "--dry-run", "--json").json(ImportJSON.self)
        #expect(report.imported == 6 && report.memory == nil)
        #expect(try box.run("list", "--json").stderr.hasPrefix("memories: no library at"))
        #expect(!FileManager.default.fileExists(atPath: box.library.path), "a dry run makes no library")
    }

    @Test func usageErrorsExitWith64() throws {
        let box = Sandbox()
        #expect(try box.run("import").status == 64)
        #expect(try box.run("import", fixturePhotos.path, "--title", "a", "--into", "b").status == 64)
        #expect(try box.run("import", "/no/such/folder").status == 64)
        #expect(try box.run("frobnicate").status == 64)
        #expect(try box.run("list", "--bogus").status == 64)
        #expect(try box.run("import", fixturePhotos.path, "--jobs", "zero").status == 64)
        let help = try box.run("import", "--help")
        #expect(help.status == 0 && help.stdout.hasPrefix("Import photos from folders or files into a memory.\n\nUsage: memories import"))
        for command in ["list", "show", "edit", "remove", "export", "delete", "gc", "verify"] {
            let r = try box.run(command, "--help")
            #expect(r.status == 0 && r.stdout.contains("Usage: memories \(command)"), "\(command) --help")
        }
        let root = try box.run("--help")
        #expect(root.status == 0 && root.stdout.contains("Commands:\n  init        Make a new library") && root.stdout.contains("\n  import      Import photos") && root.stdout.contains("\n  completion "), "\(root.stdout)")
    }

    @Test func theLibraryComesFromTheEnvironmentWhenNotGiven() throws {
        let box = Sandbox()
        let process = box.start(["import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "P"],
                                environment: ["MEMORIES_LIBRARY": box.url.appendingPathComponent("env-lib").path])
        process.process.waitUntilExit()
        #expect(process.process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: box.url.appendingPathComponent("env-lib/library.store").path))
        let environment = ["MEMORIES_LIBRARY": "", "XDG_DATA_HOME": box.url.appendingPathComponent("xdg").path]
        // Reading a library that does not exist creates nothing and says so (a typo in a path is not a new library).
        let list = box.start(["list"], environment: environment)
        let listError = String(decoding: list.err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        list.process.waitUntilExit()
        #expect(list.process.terminationStatus == 1 && listError.contains("no library at \(box.url.path)/xdg/memories"))
        #expect(!FileManager.default.fileExists(atPath: box.url.appendingPathComponent("xdg/memories").path))
        let xdg = box.start(["import", fixturePhotos.appendingPathComponent("Paris").path], environment: environment)
        xdg.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: box.url.appendingPathComponent("xdg/memories/library.store").path))
    }

    @Test func aKilledImportLeavesAHealthyLibraryAndTheRerunCompletesIt() throws {
        let box = Sandbox()
        // 60 distinct photos, so the import takes long enough to be killed part way.
        let source = try Data(contentsOf: fixturePhotos.appendingPathComponent("Rome/IMG_0001.jpg"))
        let folder = box.url.appendingPathComponent("many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<60 {
            var bytes = source
            bytes.append(contentsOf: Array("\(i)".utf8))  // trailing bytes after EOI: a distinct, valid JPEG
            try bytes.write(to: folder.appendingPathComponent(String(format: "p%03d.jpg", i)))
        }
        // Killed early too (before its first photos are committed): no memory without photos, ever.
        for delay in [0.05, 0.1, 0.15, 0.2, 0.3, 0.5] {
            let run = box.start(["--library", box.library.path, "import", folder.path, "--title", "Many", "--jobs", "1"])
            Thread.sleep(forTimeInterval: delay)
            kill(run.process.processIdentifier, SIGKILL)
            run.process.waitUntilExit()
            if FileManager.default.fileExists(atPath: box.library.appendingPathComponent("library.store").path) {
                let verify = try box.run("verify", "--json")
                // Killed before the store's tables were committed: no library yet, said in words.
                if verify.status == 1 && verify.stderr.hasPrefix("memories: no library at \(box.library.path) (") {
                    #expect(try box.run("list").stderr == verify.stderr, "killed at \(delay) s")
                    continue
                }
                #expect(verify.status == 0, "killed at \(delay) s: \(verify.stdout) \(verify.stderr)")
                #expect(try verify.json(VerifyJSON.self).missing.isEmpty)
                let listed = try box.run("list", "--json")
                if listed.status == 0 {
                    #expect(try listed.json([ListJSON].self).allSatisfy { $0.imageCount > 0 }, "killed at \(delay) s: \(listed.stdout)")
                }
            }
        }
        let rerun = try box.run("import", folder.path, "--title", "Many", "--json")
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let show = try box.run("show", "Many", "--json").json(ShowJSON.self)
        #expect(show.images.count == 60)
        #expect(Set(show.images.map(\.sha256)).count == 60)
        _ = try box.run("gc")
        let verify = try box.run("verify", "--json").json(VerifyJSON.self)
        #expect(verify.ok && verify.orphans == 0 && verify.blobsChecked == 61, "60 originals; their identical thumbnails are one blob")
    }
}

/// An import that must wait for another making a new memory says so, and says who holds it when
/// the wait runs out (an import stopped with Ctrl-Z held everyone else for ten silent minutes).
@Suite struct TitleLockTests {
    @Test func anImportWaitingForAnotherSaysSoAndGivesUpInWords() throws {
        let box = Sandbox()
        #expect(try box.run("init").status == 0)
        let holder = try FileLock(path: box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, mode: .exclusive)
        defer { holder.unlock() }
        let library = try Library(directory: box.library)
        library.titleLockTimeout = 1
        var notices: [String] = []
        library.notice = { notices.append($0) }
        var options = ImportOptions()
        options.title = "New"
        #expect(throws: LibraryError.titleLockHeld(box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, seconds: 1)) {
            _ = try library.importPhotos([fixturePhotos.appendingPathComponent("Paris").path], options: options)
        }
        #expect(notices.count == 1 && notices[0].hasPrefix("waiting for another command that is changing a memory's photos"), "\(notices)")
        #expect(try box.run("list", "--json").json([ListJSON].self).isEmpty)
    }

    /// An import adding to a memory saves each batch under titles.lock, as a merge reads and
    /// deletes a memory under it: a merge that read the memory before the import's batch was
    /// committed refuses instead of deleting the memory (its photos were left in no memory).
    @Test func aMergeAndAnImportIntoOneMemoryTakeTurns() throws {
        let box = Sandbox()
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Rome").path, "--title", "A").status == 0)
        #expect(try box.run("import", fixturePhotos.appendingPathComponent("Paris").path, "--title", "B").status == 0)
        let holder = try FileLock(path: box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, mode: .exclusive)
        let library = try Library(directory: box.library)
        library.titleLockTimeout = 1
        var options = ImportOptions()
        options.into = "A"
        #expect(throws: LibraryError.titleLockHeld(box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, seconds: 1)) {
            _ = try library.importPhotos([fixtureImages.appendingPathComponent("good/orientation-1.jpg").path], options: options)
        }
        holder.unlock()
        #expect(try box.run("show", "A", "--json").json(ShowJSON.self).images.count == 4, "nothing committed without the lock")

        // A merge that read A's photos before another process added one refuses, changing nothing.
        let merger = try Library(directory: box.library)
        let a = try merger.resolve("A"), b = try merger.resolve("B")
        #expect(a.memoryImages.count == 4)
        #expect(try box.run("import", fixtureImages.appendingPathComponent("good/orientation-2.jpg").path, "--into", "A").status == 0)
        #expect(throws: LibraryError.changedMeanwhile("A")) { _ = try merger.merge(a, into: b) }
        #expect(try box.run("show", "A", "--json").json(ShowJSON.self).images.count == 5)
        #expect(try box.run("verify").status == 0)
    }

    /// Two removes, each of one of a memory's two photos, each read the memory before the other
    /// saved (second attack, finding 7: both removed, the memory was left with none): the
    /// second counts from the database under the lock and refuses.
    @Test func twoRemovesCannotEmptyAMemory() throws {
        let box = Sandbox()
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-1.jpg"), to: "T/a.jpg")
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-2.jpg"), to: "T/b.jpg")
        #expect(try box.run("import", box.url.appendingPathComponent("T").path, "--title", "Two").status == 0)
        let first = try Library(directory: box.library), second = try Library(directory: box.library)
        let mine = try first.resolve("Two"), theirs = try second.resolve("Two")
        #expect(mine.memoryImages.count == 2 && theirs.memoryImages.count == 2, "both read two photos")
        _ = try first.remove(mine, image: "a.jpg")
        #expect(throws: LibraryError.lastPhoto(memory: "Two", photo: "b.jpg", instead: "`memories delete 'Two'` removes the memory with them")) { _ = try second.remove(theirs, image: "b.jpg") }
        #expect(throws: LibraryError.imageNotFound(memory: "Two", image: "a.jpg")) { _ = try second.remove(theirs, image: "a.jpg") }
        #expect(try box.run("show", "Two", "--json").json(ShowJSON.self).images.map(\.filename) == ["b.jpg"])

        _ = try first.importPhotos([fixtureImages.appendingPathComponent("good/orientation-3.jpg").path], options: { var o = ImportOptions(); o.into = "Two"; return o }())
        // The lock is the one an import making a new memory holds: a remove waits for it, says so.
        let holder = try FileLock(path: box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, mode: .exclusive)
        defer { holder.unlock() }
        second.titleLockTimeout = 1
        var notices: [String] = []
        second.notice = { notices.append($0) }
        #expect(throws: LibraryError.titleLockHeld(box.library.appendingPathComponent(".library_SUPPORT/titles.lock").path, seconds: 1)) {
            _ = try second.remove(theirs, image: "b.jpg")
        }
        #expect(notices.count == 1 && notices[0].hasPrefix("waiting for another command"), "\(notices)")
    }
}
