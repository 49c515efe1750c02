import Foundation

/// An export into a folder this tool exported the same memory into before, with the same options:
/// what its manifest says stays, what goes, and what is left alone.
///
/// - A photo still in the memory whose file is there at the size the manifest gives (with its
///   thumbnail and preview, for a gallery) stays untouched.
/// - Every other file the manifest lists (a photo no longer in the memory, or one whose file is
///   missing or of another size) is deleted, but only while its SHA-256 is the one the manifest
///   recorded: a file changed since it was written is left alone and named. A path the manifest
///   gives that is not a plain name in the folder or its `thumbs`/`previews` is never touched.
/// - Deleting comes first, then writing; the manifest is replaced last (a first export writes an
///   empty one before anything else, so a killed one is continued like an update). A file a killed
///   export wrote is not in the manifest: one found under the very name this export would first
///   give it, with the very bytes it would write there (`adopt`), is taken as written; anything
///   else not listed is never written over, deleted or taken (a copy the user made of an exported
///   photo under another name stays the user's).
struct ExportUpdate {
    /// What stays, by the photo's SHA-256.
    var keep: [String: ExportManifest.File] = [:]
    /// The recorded SHA-256 of the files that stay, by path.
    var checksums: [String: String] = [:]
    /// Names in the folder, its `thumbs` and its `previews` that the manifest does not list.
    var unlisted: Set<String> = []
    /// See `unlisted`.
    var unlistedThumbs: Set<String> = []
    /// See `unlisted`.
    var unlistedPreviews: Set<String> = []
    /// Paths deleted.
    var deleted: [String] = []
    /// Paths left because they changed since they were written.
    var leftAlone: [String] = []

    /// The largest `manifest.json` read.
    static let manifestLimit = 64 << 20

    /// The manifest of the export in `folder`, when it is this memory's and was written with
    /// `options`; otherwise the folder is refused, with why.
    static func previous(in folder: ExportFolder, of memory: Memory, options: ExportOptions) throws -> ExportManifest {
        guard let size = folder.size(of: "manifest.json"), size <= manifestLimit, let data = folder.read("manifest.json", limit: manifestLimit),
              let manifest = try? JSONDecoder().decode(ExportManifest.self, from: data), manifest.generator != nil else {
            throw LibraryError.destinationNotEmpty(folder.path)
        }
        guard manifest.memory.id == memory.id.uuidString.lowercased() else {
            throw LibraryError.exportOfAnotherMemory(folder.path, title: manifest.memory.title)
        }
        guard manifest.matches(options), manifest.checksums != nil else {
            throw LibraryError.exportedOtherwise(folder.path, described: describe(manifest))
        }
        return manifest
    }

    /// "--format original --html", as the export that wrote `manifest` was asked.
    static func describe(_ manifest: ExportManifest) -> String {
        guard manifest.checksums != nil else { return "an earlier version of memories" }
        var words = ["--format \(manifest.format)"]
        if let side = manifest.maxSize { words.append("--max-size \(side)") }
        if manifest.format != "original" || manifest.maxSize != nil, let quality = manifest.quality { words.append("--quality \(quality)") }
        if manifest.stripMetadata == true { words.append("--strip-metadata") }
        if manifest.html == true { words.append("--html") }
        return words.joined(separator: " ")
    }

    /// Plans the update of `previous` to `photos`, and deletes what goes.
    init(previous: ExportManifest, photos: [MemoryImage], folder: ExportFolder, thumbs: ExportFolder?, previews: ExportFolder?) throws {
        let wanted = Set(photos.map(\.sha256))
        let recorded = previous.checksums ?? [:]
        /// The folder and name a manifest's path stands for; nil for anything else.
        func locate(_ path: String) -> (folder: ExportFolder, name: String)? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            func plain(_ name: String) -> Bool {
                !name.isEmpty && name != "." && name != ".." && !ExportFolder.isPartial(name) && !name.contains("\0")
            }
            if parts.count == 1, plain(parts[0]), !FileNames.reserved.contains(parts[0]) { return (folder, parts[0]) }
            if parts.count == 2, plain(parts[1]) {
                if parts[0] == "thumbs", let thumbs { return (thumbs, parts[1]) }
                if parts[0] == "previews", let previews { return (previews, parts[1]) }
            }
            return nil
        }
        var listed = Set<String>()
        for file in previous.files {
            let paths = [file.file, file.thumbnail, file.preview].compactMap { $0 }
            listed.insert(file.file)
            let located = paths.compactMap(locate)
            if wanted.contains(file.sha256), keep[file.sha256] == nil, located.count == paths.count,
               folder.size(of: file.file) == file.bytes, located.allSatisfy({ $0.folder.size(of: $0.name) != nil }) {
                keep[file.sha256] = file
                for path in paths { checksums[path] = recorded[path] }
                continue
            }
            for (path, place) in zip(paths, paths.map(locate)) {
                guard let place, place.folder.size(of: place.name) != nil else { continue }
                if let expected = recorded[path], place.folder.sha256(of: place.name) == expected {
                    try place.folder.remove(place.name)
                    deleted.append(path)
                } else {
                    leftAlone.append(path)
                }
            }
        }
        // What is there that the manifest does not list: a killed export's files, or the user's.
        func others(_ folder: ExportFolder?, listed: Set<String>) throws -> Set<String> {
            Set(try folder?.entries() ?? []).filter { !listed.contains($0) && !ExportFolder.isPartial($0) && !FileNames.reserved.contains($0) }
        }
        unlisted = try others(folder, listed: listed)
        unlistedThumbs = try others(thumbs, listed: Set(previous.files.compactMap { $0.thumbnail.map { String($0.dropFirst("thumbs/".count)) } }))
        unlistedPreviews = try others(previews, listed: Set(previous.files.compactMap { $0.preview.map { String($0.dropFirst("previews/".count)) } }))
    }

    /// Whether the file `fresh` in `folder`, which the manifest does not list (`among`), holds the
    /// bytes whose SHA-256 is `sha256`: what a killed export wrote there, taken as written.
    static func adopt(_ fresh: String, in folder: ExportFolder?, among unlisted: Set<String>?, sha256: String) -> Bool {
        guard let folder, unlisted?.contains(fresh) == true else { return false }
        return folder.sha256(of: fresh) == sha256
    }
}
