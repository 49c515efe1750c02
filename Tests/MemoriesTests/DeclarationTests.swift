import Foundation
import Testing

/// The help pages, docs/cli.md, the completions and the man page say what the program accepts:
/// the commands' declarations are read back from `memories completion bash`, which is generated
/// from them, and every option must be in the command's --help and in its section of docs/cli.md.
@Suite struct DeclarationTests {
    /// Command name → its long and short options, as the generated bash completion lists them.
    func declarations(_ box: Sandbox) throws -> [String: [String]] {
        let script = try box.run("completion", "bash").stdout
        var found: [String: [String]] = [:]
        for line in script.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let paren = trimmed.firstIndex(of: ")"), trimmed.contains("words=\""), !trimmed.hasPrefix("*") else { continue }
            let name = String(trimmed[..<paren])
            let words = trimmed.split(separator: "\"")[1].split(separator: " ").map(String.init)
            found[name] = words.filter { !["--help", "-h", "--library"].contains($0) }
        }
        return found
    }

    @Test func everyOptionIsInItsHelpAndInDocs() throws {
        let box = Sandbox()
        let commands = try declarations(box)
        #expect(commands.count == 16, "\(commands.keys.sorted())")
        let docs = try String(contentsOf: packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let sections = docs.components(separatedBy: "\n### ").dropFirst()
        for (name, options) in commands {
            let help = try box.run(name, "--help")
            #expect(help.status == 0 && help.stdout.contains("Examples:"), "\(name) --help has examples")
            let section = sections.first { $0.prefix { $0 != "\n" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(name) }
            #expect(section != nil, "docs/cli.md has a section for \(name)")
            // The usage line, as the help wraps it: continuation lines are indented to its start.
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let usage = lines.firstIndex { $0.hasPrefix("Usage: ") }.map { start in
                ([lines[start].dropFirst(7)] + lines[(start + 1)...].prefix { $0.hasPrefix("       ") }.map { $0.dropFirst(7) }).joined(separator: " ")
            }
            #expect(usage != nil && section?.contains("\n\(usage!)\n") == true, "docs/cli.md's \(name) section has the usage line \(usage ?? "")")
            for option in options {
                #expect(help.stdout.contains(option), "\(name) --help names \(option)")
                #expect(section?.contains(option) == true, "docs/cli.md's \(name) section names \(option)")
            }
        }
    }

    @Test func bashCompletesCommandsAndOptions() throws {
        let box = Sandbox()
        let script = box.url.appendingPathComponent("memories.bash")
        try box.run("completion", "bash").stdout.write(to: script, atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> String {
            let bash = Process()
            bash.executableURL = URL(fileURLWithPath: "/bin/bash")
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            bash.arguments = ["-c", "source '\(script.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _memories; echo \"${COMPREPLY[*]}\""]
            let out = Pipe()
            bash.standardOutput = out
            try bash.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            bash.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try complete(["memories", "imp"]) == "import")
        #expect(try complete(["memories", "import", "--dr"]) == "--dry-run")
        #expect(try complete(["memories", "--library", "x", "export", "--strip"]) == "--strip-metadata")
        #expect(try complete(["memories", "gc", "-"]).contains("-n"))
    }

    /// zsh parses its script; fish completes from its own, descriptions and apostrophes kept.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") && FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"),
                   "needs zsh and fish (scripts/setup.sh --tests)"))
    func zshAndFishReadTheirCompletions() throws {
        let box = Sandbox()
        func shell(_ path: String, _ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let zsh = box.url.appendingPathComponent("_memories"), fish = box.url.appendingPathComponent("memories.fish")
        let zshText = try box.run("completion", "zsh").stdout, fishText = try box.run("completion", "fish").stdout
        try zshText.write(to: zsh, atomically: true, encoding: .utf8)
        try fishText.write(to: fish, atomically: true, encoding: .utf8)
        let parsed = try shell("/usr/bin/zsh", ["-n", zsh.path])
        #expect(parsed.0 == 0, "\(parsed.1)")
        #expect(zshText.contains(#"'\''"#), "an apostrophe in a help text is quoted, not dropped")
        let commands = try shell("/usr/bin/fish", ["--no-config", "-c", "source '\(fish.path)'; complete -C 'memories imp'"])
        #expect(commands.0 == 0 && commands.1.hasPrefix("import\t"), "\(commands.1)")
        let options = try shell("/usr/bin/fish", ["--no-config", "-c", "source '\(fish.path)'; complete -C 'memories export x y --str'"])
        #expect(options.1.hasPrefix("--strip-metadata\t"), "\(options.1)")
        let all = try shell("/usr/bin/fish", ["--no-config", "-c", "source '\(fish.path)'; complete -C 'memories show x --'"])
        #expect(all.0 == 0 && all.1.contains("--json"), "\(all.1)")
        #expect(!fishText.contains("memorys"), "no apostrophe dropped")
    }

    @Test func theManPageIsValidRoff() throws {
        let box = Sandbox()
        let page = box.url.appendingPathComponent("memories.1")
        try box.run("help", "--man").stdout.write(to: page, atomically: true, encoding: .utf8)
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-ww", "-z", page.path]
        let err = Pipe()
        groff.standardError = err
        try groff.run()
        let warnings = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        #expect(groff.terminationStatus == 0 && warnings.isEmpty, "\(warnings)")
        let text = try String(contentsOf: page, encoding: .utf8)
        for section in ["IMPORT", "EXPORT", "GC", "COMPLETION"] { #expect(text.contains(".SH \(section)")) }
    }

    /// scripts/install.sh puts the binary, its man page and the three completions under a prefix.
    @Test func installPutsTheBinaryManPageAndCompletionsUnderThePrefix() throws {
        let box = Sandbox()
        let prefix = box.url.appendingPathComponent("prefix")
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/bin/bash")
        install.arguments = [packageRoot.appendingPathComponent("scripts/install.sh").path, prefix.path]
        install.environment = ProcessInfo.processInfo.environment.merging(
            ["MEMORIES_BIN": packageRoot.appendingPathComponent(".build/debug/memories").path]) { $1 }
        let out = Pipe()
        install.standardOutput = out
        try install.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        install.waitUntilExit()
        #expect(install.terminationStatus == 0 && said.hasPrefix("installed memories "), "\(said)")
        let expected = ["share/man/man1/memories.1": try box.run("help", "--man").stdout,
                        "share/bash-completion/completions/memories": try box.run("completion", "bash").stdout,
                        "share/zsh/site-functions/_memories": try box.run("completion", "zsh").stdout,
                        "share/fish/vendor_completions.d/memories.fish": try box.run("completion", "fish").stdout]
        for (path, text) in expected {
            let file = prefix.appendingPathComponent(path)
            #expect(!text.isEmpty && (try? String(contentsOf: file, encoding: .utf8)) == text, "\(path)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/memories").path))
    }
}
