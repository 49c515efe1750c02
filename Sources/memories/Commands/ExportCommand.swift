import Foundation
import MemoriesKit

enum ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export a memory's photos into a folder."
    static let positionals: [Positional] = [.one("<memory>"), .one("<dest>")]
    static let discussion = """
    <dest> is created if needed and must be empty. Originals are byte-identical copies, checked
    against their SHA-256 first: a damaged photo is refused, never written. File names come from the
    original names, made safe and unique; nothing is ever written outside <dest>. manifest.json
    describes every file.
    """
    static let options: [Option] = [
        .value("format", "F", "original (default), jpeg or png"),
        .value("max-size", "PX", "shrink so the longest side is at most PX (re-encodes)"),
        .value("quality", "Q", "JPEG quality 1–100 (default 85)"),
        .flag("strip-metadata", "remove EXIF (GPS too), XMP and comments: JPEG and PNG without re-encoding, HEIC/AVIF/WebP converted to JPEG"),
        .flag("html", "add index.html, an offline gallery (thumbnails, previews, a lightbox)"),
        .quiet,
        .flag("verbose", short: "v", "also name every file written, one line each"),
        .flag("json", "print the manifest"),
    ]
    static let examples = [
        #"memories export "Rome 2024" ~/rome --html"#,
        #"memories export "Rome 2024" ~/rome-small --format jpeg --max-size 2048 --strip-metadata"#,
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
        let lib = try library()
        let memory = try lib.resolve(arguments.positionals[0])
        let progress = Progress("exporting", enabled: !arguments.has("quiet"))
        let manifest = try lib.export(memory, to: URL(fileURLWithPath: arguments.positionals[1]), options: options) {
            progress.update($0, $1, bytes: $2)
        }
        progress.finish()
        for failure in manifest.failed { Output.error(failure.reason) }
        for warning in manifest.warnings { Output.error(warning.reason) }
        if arguments.has("json") {
            try Output.json(manifest, stamped: false)
        } else if !arguments.has("quiet") {
            if arguments.has("verbose") {
                for file in manifest.files { Output.print("wrote \(Output.escaped(file.file)) (\(Output.escaped(file.originalFilename)))") }
            }
            Output.print("exported \(manifest.files.count) photo\(manifest.files.count == 1 ? "" : "s") of '\(memory.title)' to \(arguments.positionals[1])"
                         + (options.html ? " (open index.html)" : ""))
        }
        return manifest.failed.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
