import Foundation
import MemoriesKit

enum ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export a memory's photos into a folder."
    static let positionals: [Positional] = [.optional("<memory>"), .one("<dest>")]
    static let discussion = """
    <dest> is created if needed. Originals are byte-identical copies, checked against their SHA-256
    first: a damaged photo is refused, never written. File names come from the original names, made
    safe and unique; nothing is ever written outside <dest>. manifest.json describes every file.

    Exporting a memory again into its folder, with the same options, updates it: new photos are
    written, those no longer in the memory deleted (only while they are as the export wrote them;
    a changed file is left and named), the rest left untouched, and the manifest and gallery
    replaced. Any other folder that is not empty is refused. --all exports every memory into a
    folder of its own under <dest>, with index.html listing them, and updates them the same way.
    """
    static let options: [Option] = [
        .value("format", "F", "original (default), jpeg or png"),
        .value("max-size", "PX", "shrink so the longest side is at most PX (re-encodes)"),
        .value("quality", "Q", "JPEG quality 1–100 (default 85)"),
        .flag("strip-metadata", "remove EXIF (GPS too), XMP and comments: JPEG and PNG without re-encoding, HEIC/AVIF/WebP converted to JPEG"),
        .flag("html", "add index.html, an offline gallery (thumbnails, previews, a lightbox)"),
        .flag("all", "export every memory, each into its own folder under <dest> (no <memory>)"),
        .quiet,
        .flag("verbose", short: "v", "also name every file written, one line each"),
        .flag("json", "print the manifest"),
    ]
    static let examples = [
        #"memories export "Rome 2024" ~/rome --html"#,
        #"memories export "Rome 2024" ~/rome-small --format jpeg --max-size 2048 --strip-metadata"#,
        "memories export --all ~/Memories --html          # again next month: only what changed"
    ]
    static let exitStatus = "0 everything exported, 1 some photos could not be (listed on stderr), 64 usage error."

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        var options = ExportOptions()
        if let format = arguments.value("format") {
            guard let f = ExportOptions.Format(rawValue: format) else { throw UsageError(message: "--format must be original, jpeg or png") }
            options.format = f
        }
        options.maxSize = try arguments.int("max-size", in: 1...65535)
        options.quality = try arguments.int("quality", in: 1...100) ?? 85
        options.stripMetadata = arguments.has("strip-metadata")
        options.html = arguments.has("html")
        let all = arguments.has("all")
        if all && arguments.positionals.count != 1 {
            throw UsageError(message: "--all exports every memory: give only <dest>, not a memory")
        }
        if !all && arguments.positionals.count != 2 {
            throw UsageError(message: "missing <dest> (or --all to export every memory into <dest>)")
        }
        let lib = try library()
        let destination = arguments.positionals[all ? 0 : 1]
        let progress = Progress("exporting", enabled: !arguments.has("quiet"))
        if all {
            let report = try lib.exportAll(to: URL(fileURLWithPath: destination), options: options) { progress.update($0, $1, bytes: $2) }
            progress.finish()
            var failed = false
            for entry in report.memories {
                guard let manifest = entry.manifest else { continue }
                failed = failed || !manifest.failed.isEmpty
                show(manifest, title: entry.title, destination: destination + "/" + entry.folder, arguments: arguments, options: options, summary: false)
            }
            for path in report.leftAlone { Output.error("\(Output.escaped(path)): changed since it was exported; left as it is (its memory was deleted)") }
            for path in report.notWritten ?? [] { Output.error("\(Output.escaped(path)): not written by the export; left, with its folder (its memory was deleted)") }
            if arguments.has("json") {
                try Output.json(report, stamped: false)
            } else if !arguments.has("quiet") {
                let photos = report.memories.reduce(0) { $0 + $1.photos }
                Output.print("exported \(report.memories.count) memor\(report.memories.count == 1 ? "y" : "ies") (\(photos) photos) to \(Output.escaped(destination)) (open index.html)"
                             + (report.removedFolders.isEmpty ? "" : "; removed the folders of \(report.removedFolders.count) deleted memor\(report.removedFolders.count == 1 ? "y" : "ies")"))
            }
            return failed ? ExitCode.failure : ExitCode.success
        }
        let memory = try lib.resolve(arguments.positionals[0])
        let manifest = try lib.export(memory, to: URL(fileURLWithPath: destination), options: options) {
            progress.update($0, $1, bytes: $2)
        }
        progress.finish()
        show(manifest, title: memory.title, destination: destination, arguments: arguments, options: options, summary: true)
        if arguments.has("json") { try Output.json(manifest, stamped: false) }
        return manifest.failed.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// Prints one memory's export: failures and warnings on stderr; unless --quiet or --json, the
    /// files (with --verbose), what an update deleted and left, and (with `summary`) a line of counts.
    static func show(_ manifest: ExportManifest, title: String, destination: String, arguments: Arguments, options: ExportOptions, summary: Bool) {
        for failure in manifest.failed { Output.error(failure.reason) }
        for warning in manifest.warnings { Output.error(warning.reason) }
        for path in manifest.leftAlone ?? [] {
            Output.error("\(Output.escaped(destination))/\(Output.escaped(path)): changed since it was exported; left as it is")
        }
        guard !arguments.has("json") && !arguments.has("quiet") else { return }
        if arguments.has("verbose") {
            let unchanged = Set(manifest.unchanged ?? [])
            for file in manifest.files where !unchanged.contains(file.file) {
                Output.print("wrote \(Output.escaped(file.file)) (\(Output.escaped(file.originalFilename)))")
            }
            for path in manifest.deleted ?? [] { Output.print("deleted \(Output.escaped(path))") }
        }
        guard summary else { return }
        let deleted = (manifest.deleted ?? []).filter { !$0.contains("/") }.count
        Output.print("exported \(manifest.files.count) photo\(manifest.files.count == 1 ? "" : "s") of '\(Output.escaped(title))' to \(Output.escaped(destination))"
                     + (manifest.deleted == nil ? "" : " (updated: \(deleted) deleted)") + (options.html ? " (open index.html)" : ""))
    }
}
