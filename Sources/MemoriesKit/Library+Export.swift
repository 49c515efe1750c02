import BlobStore
import Foundation
import Imaging
import OpenSwiftData

public struct ExportOptions {
    public enum Format: String { case original, jpeg, png }
    public var format = Format.original
    public var maxSize: Int?
    public var quality = 85
    public var stripMetadata = false
    public var html = false
    public init() {}
}

/// What an export wrote; also written as `manifest.json` in the folder.
public struct ExportManifest: Codable, Equatable {
    public struct File: Codable, Equatable {
        public var file: String
        public var thumbnail: String?
        public var originalFilename: String
        public var sha256: String
        public var format: String
        public var width: Int
        public var height: Int
        public var bytes: Int
        public var takenAt: String?
    }
    public struct Failure: Codable, Equatable {
        public var originalFilename: String
        public var reason: String
    }
    public var memory: MemoryDetail.Header
    public var exportedAt: String
    public var format: String
    public var files: [File]
    public var failed: [Failure]
}

extension MemoryDetail {
    public struct Header: Codable, Equatable {
        public var id: String
        public var title: String
        public var date: String
        public var notes: String
    }
}

extension Library {
    /// Writes a memory's photos into `destination` (created if needed; must be empty), with
    /// `manifest.json` and, with `html`, an offline `index.html` gallery. Every name written is one
    /// sanitized path component inside `destination`. Originals are copied byte for byte from
    /// verified blobs: a damaged blob produces no file and is listed in `failed`.
    public func export(_ memory: Memory, to destination: URL, options: ExportOptions) throws -> ExportManifest {
        let dest = destination.standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dest.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw LibraryError.notADirectory(dest.path) }
            guard try FileManager.default.contentsOfDirectory(atPath: dest.path).isEmpty else { throw LibraryError.destinationNotEmpty(dest.path) }
        } else {
            try FileManager.default.createDirectory(at: dest, withIntermediateDirectories: true)
        }
        let thumbs = dest.appendingPathComponent("thumbs")
        if options.html { try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: false) }
        var names = FileNames()
        var thumbNames = FileNames()
        var manifest = ExportManifest(
            memory: .init(id: memory.id.uuidString.lowercased(), title: memory.title, date: Formats.iso(memory.date), notes: memory.notes),
            exportedAt: Formats.iso(Date()), format: options.format.rawValue, files: [], failed: [])
        for image in try images(of: memory) {
            guard let digest = BlobDigest(hex: image.sha256) else { continue }
            let ext: String? = options.format == .original ? nil : (options.format == .png ? "png" : "jpg")
            let name = names.claim(image.filename, extension: ext)
            let target = dest.appendingPathComponent(name)
            precondition(target.deletingLastPathComponent().standardizedFileURL.path == dest.path, "export name escaped its folder")
            do {
                var written = image.byteCount
                var width = image.width, height = image.height
                if options.format == .original && options.maxSize == nil {
                    try blobs.export(digest, to: target)
                } else {
                    let original = try blobs.read(digest, verify: true)
                    let output: Imaging.OutputFormat = options.format == .png ? .png : .jpeg(quality: options.quality, progressive: false)
                    let keepFormat = options.format == .original ? (image.format == "png" ? Imaging.OutputFormat.png : output) : output
                    let data = try Imaging.reencode(original, as: keepFormat, maxSide: options.maxSize, keepMetadata: !options.stripMetadata)
                    try writeNew(data, to: target)
                    written = data.count
                    let info = try Imaging.probe(data)
                    (width, height) = (info.width, info.height)
                }
                var thumbName: String?
                if options.html, let thumbnail = image.thumbnailData, !thumbnail.isEmpty {
                    let t = thumbNames.claim(name, extension: "jpg")
                    try writeNew(thumbnail, to: thumbs.appendingPathComponent(t))
                    thumbName = "thumbs/" + t
                }
                manifest.files.append(.init(file: name, thumbnail: thumbName, originalFilename: image.filename, sha256: image.sha256,
                                            format: options.format == .original ? image.format : options.format.rawValue,
                                            width: width, height: height, bytes: written, takenAt: image.takenAt.map(Formats.iso)))
            } catch let error as BlobStoreError {
                manifest.failed.append(.init(originalFilename: image.filename,
                                             reason: LibraryError.damagedImage(filename: image.filename, reason: error.localizedDescription).localizedDescription))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try writeNew(try encoder.encode(manifest), to: dest.appendingPathComponent("manifest.json"))
        if options.html { try writeNew(Data(Gallery.html(manifest).utf8), to: dest.appendingPathComponent("index.html")) }
        return manifest
    }

    /// Writes a new file (never through an existing name or symbolic link), synced.
    func writeNew(_ data: Data, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path]) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try handle.write(contentsOf: data)
        try handle.synchronize()
    }
}
