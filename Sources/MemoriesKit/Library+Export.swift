import BlobStore
import BlobStoreS3
import Foundation
import Imaging
import OpenSwiftData

extension Library {
    /// Writes a memory's photos into `destination` (created if needed; must be empty and not a
    /// symbolic link), with `manifest.json` and, with `html`, an offline `index.html` gallery.
    /// Every file is written through `ExportFolder` (see its design notes): relative to the folder
    /// opened at the start, under a temporary name until complete. Originals are copied byte for
    /// byte from verified blobs: a damaged blob produces no file and is listed in `failed`.
    /// - Throws: `ExportError` when the destination cannot be written (the export stops there),
    ///   `LibraryError.notADirectory` / `.destinationNotEmpty`.
    /// `progress` is told after each photo: photos done, photos in all, bytes written so far.
    ///
    /// A folder this tool exported the same memory into before, with the same options, is updated
    /// in place (`ExportUpdate`): photos no longer in the memory are deleted, new ones written,
    /// the others left untouched, and the manifest and gallery replaced whole.
    public func export(_ memory: Memory, to destination: URL, options: ExportOptions,
                       progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil) throws -> ExportManifest {
        let folder = try ExportFolder(creating: destination.standardizedFileURL.path)
        let previous = try folder.entries().isEmpty ? nil : try ExportUpdate.previous(in: folder, of: memory, options: options)
        return try export(memory, into: folder, options: options, previous: previous, progress: progress)
    }

    /// Writes the export into an opened folder (the part of `export(_:to:options:)` after opening
    /// it), updating the export `previous` describes when there is one.
    func export(_ memory: Memory, into dest: ExportFolder, options: ExportOptions, previous: ExportManifest? = nil,
                progress: ((Int, Int, Int64) -> Void)? = nil) throws -> ExportManifest {
        let thumbs = options.html ? try ExportFolder(subfolder: "thumbs", of: dest) : nil
        let previews = options.html ? try ExportFolder(subfolder: "previews", of: dest) : nil
        var previewNames = FileNames()
        var names = FileNames()
        var thumbNames = FileNames()
        var manifest = ExportManifest(
            memory: .init(id: memory.id.uuidString.lowercased(), title: memory.title,
                          date: options.stripMetadata ? nil : Display.iso(memory.date), notes: memory.notes),
            exportedAt: Display.iso(Date()), format: options.format.rawValue, files: [], failed: [], warnings: [],
            maxSize: options.maxSize, quality: options.quality, stripMetadata: options.stripMetadata, html: options.html)
        let all = images(of: memory)
        var checksums: [String: String] = [:]
        var unchanged: [String] = []
        // An update: what stays, deleted first (checked against the manifest), and every name
        // in the folders taken, so that nothing there is written over.
        // A first export writes its manifest, empty, before anything else: one that is killed is
        // then continued as an update by the next.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if previous == nil {
            var empty = manifest
            empty.checksums = [:]
            try dest.write("manifest.json", try encoder.encode(empty))
        }
        let update = try ExportUpdate(previous: previous ?? manifest, photos: all, folder: dest, thumbs: thumbs, previews: previews)
        for name in try dest.entries() { names.reserve(name) }
        for name in try thumbs?.entries() ?? [] { thumbNames.reserve(name) }
        for name in try previews?.entries() ?? [] { previewNames.reserve(name) }
        // A bucket's object is called damaged only once two downloads agreed on its wrong bytes.
        let place = blobs is S3BlobStore ? "the bucket \(blobs.locationDescription)" : "the library"
        var writtenBytes: Int64 = 0
        for (index, image) in all.enumerated() {
            defer { progress?(index + 1, all.count, writtenBytes) }
            if var kept = update.keep[image.sha256] {
                // Its words and date as they are now (`edit --photo` may have changed them).
                kept.caption = image.caption
                kept.takenAt = options.stripMetadata ? nil : image.takenAt.map(Display.iso)
                manifest.files.append(kept)
                for path in [kept.file, kept.thumbnail, kept.preview].compactMap({ $0 }) { checksums[path] = update.checksums[path] }
                unchanged.append(kept.file)
                writtenBytes += Int64(kept.bytes)
                continue
            }
            func fail(_ reason: String) {
                manifest.failed.append(.init(originalFilename: image.filename,
                                             reason: LibraryError.damagedImage(filename: image.filename, reason: reason, place: place).localizedDescription))
            }
            // The original is the blob the row's imageData is stored as (OpenSwiftData says which);
            // the sha256 column, which search and dedupe use, must name the same one.
            guard let digest = context.externalDigest(of: image, \.imageData) else {
                fail("the library has no stored original for it")
                continue
            }
            guard digest.hex == image.sha256 else {
                fail("its stored original (\(digest.hex)) is not the photo its SHA-256 column names (\(image.sha256))")
                continue
            }
            // An original that must be shrunk or stripped but has no encoder here (HEIC, AVIF, WebP) becomes a JPEG.
            let convertsOriginal = options.format == .original && (options.maxSize != nil || options.stripMetadata)
                && !["jpeg", "png"].contains(image.format)
            let jpg = ImageFormat.jpeg.fileExtension
            let ext: String? = options.format == .original ? (convertsOriginal ? jpg : nil) : (options.format == .png ? ImageFormat.png.fileExtension : jpg)
            var name = names.claim(image.filename, extension: ext)
            // What a killed export wrote under the name it gives first, if it is what this one writes.
            let fresh = FileNames.first(image.filename, extension: ext)
            func adopted(_ sha256: String) -> Bool {
                guard ExportUpdate.adopt(fresh, in: dest, among: update.unlisted, sha256: sha256) else { return false }
                name = fresh
                return true
            }
            /// Writes the file under `name`; a medium that refuses the name (FAT through fusefat
            /// refuses any name that is not ASCII) gets its plain-ASCII form, and `name` says which.
            func writing(_ write: (String) throws -> Void) throws {
                do {
                    try write(name)
                } catch let error as ExportError where error.refusesName {
                    guard let plain = names.plain(for: name) else { throw error }
                    try write(plain)
                    manifest.warnings.append(.init(originalFilename: image.filename,
                                                   reason: "\(image.filename): the destination refused the name '\(name)' (\(error.code.map(ExportError.reason) ?? "")); written as '\(plain)'"))
                    name = plain
                }
            }
            var written = image.byteCount
            var width = image.width, height = image.height
            var original: Data?
            var writtenFormat = options.format == .original ? (convertsOriginal ? "jpeg" : image.format) : options.format.rawValue
            do {
                if options.format == .original && options.maxSize == nil && options.stripMetadata {
                    // Metadata removed without re-encoding where the format allows it (JPEG, PNG).
                    let bytes = try blobs.readVerified(digest)
                    original = bytes
                    let stripped = try Imaging.strippingMetadata(bytes, limits: .default)
                    let sha256 = SHA256.digest(stripped.data).hex
                    if !adopted(sha256) { try writing { try dest.write($0, stripped.data) } }
                    checksums[name] = sha256
                    let info = try Imaging.probe(stripped.data)
                    (written, width, height) = (stripped.data.count, info.width, info.height)
                    writtenFormat = stripped.format.rawValue
                    if let note = stripped.note { manifest.warnings.append(.init(originalFilename: image.filename, reason: "\(image.filename): \(note)")) }
                } else if options.format == .original && options.maxSize == nil {
                    // Streamed; the hash is checked after the last chunk, before the file gets its name.
                    if !adopted(digest.hex) { try writing { try dest.write($0) { sink in try blobs.readVerified(digest, chunk: sink) } } }
                    checksums[name] = digest.hex
                } else {
                    let bytes = try blobs.readVerified(digest)
                    original = bytes
                    let output: Imaging.OutputFormat = options.format == .png ? .png : .jpeg(quality: options.quality, progressive: false)
                    let keepFormat = options.format == .original ? (image.format == "png" ? Imaging.OutputFormat.png : output) : output
                    let data = try Imaging.reencode(bytes, as: keepFormat, maxSide: options.maxSize, keepMetadata: !options.stripMetadata)
                    let info = try Imaging.probe(data)
                    let sha256 = SHA256.digest(data).hex
                    if !adopted(sha256) { try writing { try dest.write($0, data) } }
                    checksums[name] = sha256
                    (written, width, height) = (data.count, info.width, info.height)
                }
            } catch let error as BlobStoreError where error.isDamage {
                fail(error.localizedDescription)
                continue
            } catch let error as ImageError {
                manifest.failed.append(.init(originalFilename: image.filename,
                                             reason: "\(image.filename) could not be converted and was not exported: \(error.localizedDescription) (\(Self.advice(error, options)))"))
                continue
            }
            var thumbName: String?
            if let thumbs {
                var warning: String?
                if let thumbnail = try galleryThumbnail(of: image, stored: context.externalDigest(of: image, \.thumbnailData),
                                                        original: original, warning: &warning) {
                    let sha256 = SHA256.digest(thumbnail).hex, fresh = FileNames.first(name, extension: ImageFormat.jpeg.fileExtension)
                    var t = fresh
                    if !ExportUpdate.adopt(fresh, in: thumbs, among: update.unlistedThumbs, sha256: sha256) {
                        t = thumbNames.claim(name, extension: ImageFormat.jpeg.fileExtension)
                        try thumbs.write(t, thumbnail)
                    }
                    thumbName = "thumbs/" + t
                    checksums[thumbName!] = sha256
                }
                if let warning { manifest.warnings.append(.init(originalFilename: image.filename, reason: warning)) }
            }
            var preview: (name: String, width: Int, height: Int)?
            if let previews {
                // What the gallery's lightbox shows: never the original (a 12 MP file, or a HEIC no browser shows).
                if let made = try? Imaging.thumbnail(of: try original ?? blobs.readVerified(digest), maxSide: 1280, quality: 82) {
                    let sha256 = SHA256.digest(made.jpeg).hex, fresh = FileNames.first(name, extension: ImageFormat.jpeg.fileExtension)
                    var p = fresh
                    if !ExportUpdate.adopt(fresh, in: previews, among: update.unlistedPreviews, sha256: sha256) {
                        p = previewNames.claim(name, extension: ImageFormat.jpeg.fileExtension)
                        try previews.write(p, made.jpeg)
                    }
                    preview = ("previews/" + p, made.width, made.height)
                    checksums["previews/" + p] = sha256
                }
            }
            writtenBytes += Int64(written)
            manifest.files.append(.init(file: name, thumbnail: thumbName, originalFilename: image.filename, sha256: image.sha256,
                                        format: writtenFormat, width: width, height: height, bytes: written,
                                        takenAt: options.stripMetadata ? nil : image.takenAt.map(Display.iso), caption: image.caption,
                                        preview: preview?.name, previewWidth: preview?.width, previewHeight: preview?.height))
        }
        manifest.checksums = checksums
        // The files first, synced; then the manifest that lists them, replacing the old whole.
        try thumbs?.sync()
        try previews?.sync()
        try dest.sync()
        try dest.replace("manifest.json", try encoder.encode(manifest))
        if options.html { try dest.replace("index.html", Data(Gallery.html(manifest).utf8)) }
        try dest.sync()
        if previous != nil {
            (manifest.deleted, manifest.leftAlone, manifest.unchanged) = (update.deleted, update.leftAlone, unchanged)
        }
        return manifest
    }

    /// What to do about a photo that could not be converted. Never `--format original` when the
    /// metadata was to be removed: that copy keeps the GPS position the user asked to drop.
    static func advice(_ error: ImageError, _ options: ExportOptions) -> String {
        if case .tooLarge(let detail) = error, detail.hasPrefix("a JPEG holds at most") {
            return "export it with --format png, or smaller with --max-size \(Imaging.jpegLargestSide)"
        }
        if options.stripMetadata {
            return "its metadata could not be removed, so it was left out; without --strip-metadata, --format original copies it as it is, metadata and all"
        }
        return "export it with --format original"
    }

    // MARK: Thumbnails

    /// The gallery's thumbnail of `image`: the stored one, verified; when that is damaged or
    /// missing, one made from the verified original (with a `warning` when the stored one was
    /// damaged). nil only when no thumbnail can be made: the gallery then shows the photo itself.
    func galleryThumbnail(of image: MemoryImage, stored: BlobDigest?, original: Data?, warning: inout String?) throws -> Data? {
        if let stored {
            do {
                return try blobs.readVerified(stored)
            } catch let error as BlobStoreError where error.isDamage {
                warning = "the thumbnail of \(image.filename) is damaged in the library (\(error.localizedDescription)); "
                    + "the gallery uses one made from the photo (run `memories verify`)"
            }
        }
        do {
            guard let digest = context.externalDigest(of: image, \.imageData) else { return nil }
            return try Imaging.thumbnail(of: try original ?? blobs.readVerified(digest), maxSide: 256, quality: 80).jpeg
        } catch {
            warning = (warning.map { $0 + "; " } ?? "") + "no thumbnail of \(image.filename) could be made (\(error.localizedDescription)); the gallery shows the photo itself"
            return nil
        }
    }
}

extension BlobStoreError {
    /// A problem of the stored content itself (as opposed to the system failing to read it).
    var isDamage: Bool {
        switch self {
        case .corrupt, .missing: return true
        default: return false
        }
    }
}
