import Foundation
import Testing

/// What a terminal shows after `text` is written to it, `width` columns wide: the lines, and how
/// many times a line was too long and wrapped.
func render(_ text: String, width: Int) -> (lines: [String], wraps: Int) {
    var screen: [[Character]] = [[]]
    var row = 0, col = 0, wraps = 0
    var chars = Array(text)
    var i = 0
    func put(_ c: Character) {
        if col >= width {
            wraps += 1
            row += 1
            col = 0
        }
        while screen.count <= row { screen.append([]) }
        while screen[row].count < col { screen[row].append(" ") }
        if col < screen[row].count { screen[row][col] = c } else { screen[row].append(c) }
        col += 1
    }
    while i < chars.count {
        let c = chars[i]
        if c == "\r" { col = 0 }
        else if c == "\n" { row += 1; col = 0; while screen.count <= row { screen.append([]) } }
        else if c == "\u{1B}", i + 2 < chars.count, chars[i + 1] == "[" {
            var j = i + 2
            while j < chars.count, !chars[j].isLetter { j += 1 }
            if j < chars.count, chars[j] == "K" || chars[j] == "J", row < screen.count, col < screen[row].count { screen[row].removeSubrange(col...) }
            if j < chars.count, chars[j] == "J", row + 1 < screen.count { screen.removeSubrange((row + 1)...) }
            if j < chars.count, chars[j] == "A" { row = max(0, row - (Int(String(chars[(i + 2)..<j])) ?? 1)) }
            i = j
        } else { put(c) }
        i += 1
    }
    chars = []
    return (screen.map { String($0) }, wraps)
}

@Suite struct ProgressTests {
    /// Runs `memories` with stderr on a pseudo-terminal of `columns`; returns what the terminal got.
    /// `resizeTo`: once the first progress line has come, the terminal is made that wide and the
    /// program told (SIGWINCH, as the kernel tells a terminal's foreground programs).
    /// `interrupt`: one draw after the resize, the program gets SIGTERM (SIGINT may be ignored by
    /// whatever started the tests, and would then be ignored by the program too).
    func runOnTerminal(_ box: Sandbox, columns: Int, _ args: [String], resizeTo: Int? = nil,
                       interrupt: Bool = false) throws -> (status: Int32, terminal: String, signaled: Bool) {
        // /dev/ptmx by hand (posix_openpt is not in Swift's Glibc module): unlock, then ask its number.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        #expect(master >= 0 && ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0 && ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0)
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        #expect(ioctl(master, UInt(TIOCSWINSZ), &size) == 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        #expect(slave >= 0)
        let (process, _, _) = box.start(["--library", box.library.path] + args, environment: ["MEMORIES_PROGRESS_INTERVAL": "0"],
                                         stderr: FileHandle(fileDescriptor: slave, closeOnDealloc: false))
        close(slave)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var resized = resizeTo == nil, interrupted = false
        while true {
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }  // EIO once the child has closed the terminal
            output.append(contentsOf: buffer[0..<n])
            if !resized, let narrow = resizeTo, String(decoding: output, as: UTF8.self).contains("%") {
                // What was drawn before the resize is read first, so that it comes before the marker
                // (left in the terminal's buffer, it read as drawn after it).
                var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                while poll(&ready, 1, 0) > 0 && ready.revents & Int16(POLLIN) != 0 {
                    let m = read(master, &buffer, buffer.count)
                    if m <= 0 { break }
                    output.append(contentsOf: buffer[0..<m])
                }
                var size = winsize(ws_row: 24, ws_col: UInt16(narrow), ws_xpixel: 0, ws_ypixel: 0)
                #expect(ioctl(master, UInt(TIOCSWINSZ), &size) == 0)
                output.append(contentsOf: Array("<RESIZED>".utf8))
                kill(process.processIdentifier, SIGWINCH)
                resized = true
            } else if resized, interrupt, !interrupted, let narrow = resizeTo,
                      let after = String(decoding: output, as: UTF8.self).components(separatedBy: "<RESIZED>").last,
                      // Stopped once a draw at the new width has come (one already under way at the
                      // resize may still arrive at the old width).
                      after.components(separatedBy: "\r").contains(where: { $0.hasPrefix("importing") && $0.contains("%")
                          && $0.replacingOccurrences(of: "\u{1B}[K", with: "").count < narrow }) {
                kill(process.processIdentifier, SIGTERM)
                interrupted = true
            }
        }
        process.waitUntilExit()
        close(master)
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), process.terminationReason == .uncaughtSignal)
    }

    @Test(arguments: [40, 120])
    func importProgressFitsTheTerminalAndLeavesNoStaleLines(_ columns: Int) throws {
        let box = Sandbox()
        let (status, terminal, _) = try runOnTerminal(box, columns: columns, ["import", fixtureImages.appendingPathComponent("good").path, "--title", "P"])
        #expect(status == 0)
        let draws = terminal.components(separatedBy: "\r").filter { $0.hasPrefix("importing") }
        #expect(draws.count >= 10, "one draw per photo: \(draws.count)")
        #expect(draws.contains { $0.contains("/") && $0.contains("%") })
        for draw in draws {
            let visible = draw.replacingOccurrences(of: "\u{1B}[K", with: "")
            #expect(visible.count < columns, "a progress line never reaches the last column: \(visible)")
        }
        // The messages before it may wrap (a long path); the progress lines left nothing behind.
        let screen = render(terminal, width: columns)
        #expect(!screen.lines.contains { $0.contains("importing") }, "the progress line is gone: \(screen.lines)")
        #expect(render(terminal.replacingOccurrences(of: box.library.path, with: "LIB"), width: columns).wraps == 0)
        #expect(terminal.contains("created a new library"))
        if columns >= 120 {
            #expect(draws.last?.contains("MB") == true || draws.last?.contains("KB") == true, "bytes shown when there is room: \(draws.last ?? "")")
        }
    }

    @Test(arguments: [40, 120])
    func exportAndVerifyProgressFitTheTerminalToo(_ columns: Int) throws {
        let box = Sandbox()
        #expect(try box.run("import", fixtureImages.appendingPathComponent("good").path, "--title", "P").status == 0)
        for (label, args) in [("exporting", ["export", "P", box.url.appendingPathComponent("out").path, "--format", "jpeg"]), ("verifying", ["verify"])] {
            let (status, terminal, _) = try runOnTerminal(box, columns: columns, args)
            #expect(status == 0, "\(args)")
            let draws = terminal.components(separatedBy: "\r").filter { $0.hasPrefix(label) }
            #expect(draws.count >= 5, "\(label): \(draws.count) draws")
            #expect(draws.allSatisfy { $0.replacingOccurrences(of: "\u{1B}[K", with: "").count < columns }, "\(label)")
            #expect(!render(terminal, width: columns).lines.contains { $0.contains(label) }, "\(label): the progress line is gone")
            let quiet = try runOnTerminal(box, columns: columns, args.first == "export" ? ["export", "P", box.url.appendingPathComponent("q").path, "-q"] : ["verify", "-q"])
            #expect(quiet.status == 0 && !quiet.terminal.contains(label), "\(label) -q draws nothing")
        }
    }

    @Test func aResizeIsFollowedAtTheNewWidthAndSignalsStillStopTheImport() throws {
        let box = Sandbox()
        let (status, terminal, signaled) = try runOnTerminal(box, columns: 120, ["import", fixturePhotos.path, fixtureImages.path, "--title", "P"],
                                                             resizeTo: 40, interrupt: true)
        let after = try #require(terminal.components(separatedBy: "<RESIZED>").last)
        let draws = after.components(separatedBy: "\r").filter { $0.hasPrefix("importing") }.map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
        // A draw already under way when the size changed may arrive at the old width, and one
        // finished between the last read and the resize: two at most; every later one fits.
        let wide = draws.prefix(while: { $0.count >= 40 })
        #expect(wide.count <= 2 && draws.count > wide.count && draws.dropFirst(wide.count).allSatisfy { $0.count < 40 }, "\(draws)")
        #expect(terminal.range(of: #"\e\[[0-9]*A"#, options: .regularExpression) == nil, "the cursor never moves up over lines that are not ours")
        // SIGWINCH changed nothing about the other signals (no handler blocks them): SIGTERM ends the import.
        #expect(signaled && status == SIGTERM, "status \(status), signaled \(signaled): \(terminal.suffix(300))")
    }

    @Test func nothingIsDrawnWhenStderrIsNotATerminal() throws {
        let box = Sandbox()
        let result = try box.run(["import", fixtureImages.appendingPathComponent("good").path, "--title", "P"], environment: ["MEMORIES_PROGRESS_INTERVAL": "0"])
        #expect(result.status == 0 && !result.stderr.contains("importing") && !result.stderr.contains("\r"))
    }
}
