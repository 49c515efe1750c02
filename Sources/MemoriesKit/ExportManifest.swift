import Foundation

/// How `export` writes a memory's photos (the `export` command's options).
public struct ExportOptions {
    /// The files' format: the originals byte for byte, or re-encoded.
    public enum Format: String { case original, jpeg, png }
    /// `original` (default): byte-identical copies, unless `maxSize` or `stripMetadata` asks for changes.
    public var format = Format.original
    /// Shrinks photos whose longest side is larger (re-encoding them).
    public var maxSize: Int?
    /// JPEG quality 1–100 for re-encoded photos.
    public var quality = 85
    /// Removes EXIF (GPS too), XMP and comments: JPEG and PNG without re-encoding, other formats as JPEG.
    public var stripMetadata = false
    /// Adds `index.html`, an offline gallery, with `thumbs/` and `previews/`.
    public var html = false
    /// The defaults: originals, no gallery.
    public init() {}
}

/// What an export wrote; also written as `manifest.json` in the folder.
public struct ExportManifest: Codable, Equatable {
    /// One photo written.
    public struct File: Codable, Equatable {
        /// Its name in the folder (made safe and unique).
        public var file: String
        /// With `--html`: its gallery thumbnail, relative to the folder.
        public var thumbnail: String?
        /// The name it was imported under.
        public var originalFilename: String
        /// The original's SHA-256 (of the stored original, whatever format was written).
        public var sha256: String
        /// The written file's format: "jpeg", "png", "heic", "avif" or "webp".
        public var format: String
        /// The written file's width in pixels, as stored.
        public var width: Int
        /// The written file's height in pixels, as stored.
        public var height: Int
        /// The written file's size.
        public var bytes: Int
        /// The capture time, ISO 8601 with the offset it was taken at (nil with `--strip-metadata`).
        public var takenAt: String?
        /// The photo's caption, if it has one.
        public var caption: String?
        /// With `--html`: the gallery's 1,280 px JPEG of the photo (upright, sRGB) and its size.
        public var preview: String?
        /// The preview's width.
        public var previewWidth: Int?
        /// The preview's height.
        public var previewHeight: Int?
    }
    /// A photo that was not exported, or one with a warning.
    public struct Failure: Codable, Equatable {
        /// The name it was imported under.
        public var originalFilename: String
        /// Why, in words.
        public var reason: String
    }
    /// The memory exported.
    public var memory: MemoryDetail.Header
    /// When, ISO 8601 in the user's time zone.
    public var exportedAt: String
    /// The `format` option: "original", "jpeg" or "png".
    public var format: String
    /// Every photo written, in display order.
    public var files: [File]
    /// Photos not exported (damaged in the library, or not convertible).
    public var failed: [Failure]
    /// Photos exported, with something to know: a damaged thumbnail replaced in the gallery.
    public var warnings: [Failure]
    /// The version that wrote it: "memories 0.5.0" (absent from manifests of before 0.5.0).
    public var generator: String? = MemoriesVersion.generator
    /// The options it was written with, beside `format` (absent from manifests before 0.6.0): an
    /// export into a folder exported before with the same ones updates it.
    public var maxSize: Int?
    /// See `maxSize`.
    public var quality: Int?
    /// See `maxSize`.
    public var stripMetadata: Bool?
    /// See `maxSize`.
    public var html: Bool?
    /// The SHA-256 of each file written (photos, thumbnails, previews), by its path in the folder
    /// (absent from manifests before 0.6.0): an update deletes a file only while it has it.
    public var checksums: [String: String]?
    /// With an update: the files it deleted (photos no longer in the memory, or written again),
    /// and those it left because they changed since they were written. Not in `manifest.json`.
    public var deleted: [String]?
    /// See `deleted`.
    public var leftAlone: [String]?
    /// With an update: the photos' files it left as they were (not written again). Not in `manifest.json`.
    public var unchanged: [String]?

    /// Whether it was written with `options` (an export with them can update it).
    func matches(_ options: ExportOptions) -> Bool {
        format == options.format.rawValue && maxSize == options.maxSize && quality == options.quality
            && stripMetadata == options.stripMetadata && html == options.html
    }
}

extension MemoryDetail {
    /// A memory without its photos, as the export manifest names it.
    public struct Header: Codable, Equatable {
        /// Its id, lower-case.
        public var id: String
        /// Its title.
        public var title: String
        /// Its date, ISO 8601 in the user's time zone; absent with `--strip-metadata` (it is most
        /// often its first photo's capture time).
        public var date: String?
        /// Its notes.
        public var notes: String
    }
}
