import BlobStore
import Foundation
import Imaging
import OpenSwiftData

/// What `repair` did, as printed with `--json`.
public struct RepairReport: Codable, Equatable {
    /// A stored file rewritten from a matching file.
    public struct Restored: Codable, Equatable {
        /// Its SHA-256.
        public var sha256: String
        /// The file its bytes were read from.
        public var from: String
    }
    /// A damaged or missing stored file no file given could restore.
    public struct Unrestored: Codable, Equatable {
        /// Its SHA-256.
        public var sha256: String
        /// What is wrong with it, in words.
        public var problem: String
        /// The photos (file name in 'memory') that use it.
        public var usedBy: [String]
    }
    /// Damaged or missing originals rewritten from a matching file.
    public var restored: [Restored] = []
    /// Damaged or missing stored files that no file given matched.
    public var unrestored: [Unrestored] = []
    /// Files read and hashed.
    public var filesRead = 0
}

extension Library {
    /// Finds every damaged or missing stored file (as `verify` does), then reads the files under
    /// `paths` and rewrites each damaged original from a file whose SHA-256 matches it. Reports
    /// what it restored and what it could not.
    public func repair(from paths: [String], maxFileSize: Int64 = ImportOptions.defaultMaxFileSize, progress: ((Int, Int) -> Void)? = nil) throws -> RepairReport {
        let check = try container.verifyExternalStorage()
        var damaged: [BlobDigest: String] = [:]
        for digest in check.missing { damaged[digest] = "missing" }
        for digest in check.corrupt { damaged[digest] = "damaged (its content no longer matches its SHA-256)" }
        var report = RepairReport()
        if !damaged.isEmpty {
            var files: [FileWalker.Entry] = []
            FileWalker().walk(paths, visit: { files.append($0) }, problem: { _ in })
            for (index, file) in files.enumerated() {
                progress?(index + 1, files.count)
                guard case .image(let data, _, _) = ImportFile.read(file, maxSize: maxFileSize) else { continue }
                report.filesRead += 1
                let digest = SHA256.digest(data)
                guard damaged[digest] != nil else { continue }
                _ = try blobs.ensure(digest, from: data)
                damaged[digest] = nil
                report.restored.append(.init(sha256: digest.hex, from: file.display))
            }
        }
        // A damaged thumbnail is made again from its photo, when that is intact (stored anew under
        // its own digest; the damaged one is released).
        for digest in damaged.keys.sorted() {
            for owner in try thumbnailOwners(digest.hex) {
                guard let image = context.model(for: PersistentIdentifier(entityName: String(describing: MemoryImage.self), primaryKey: owner.key)) as? MemoryImage,
                      let original = context.externalDigest(of: image, \.imageData), damaged[original] == nil,
                      let photo = try? blobs.readVerified(original),
                      let thumbnail = try? Imaging.thumbnail(of: photo, maxSide: 256, quality: 80) else { continue }
                image.thumbnailData = thumbnail.jpeg
                try context.save()
                damaged[digest] = nil
                report.restored.append(.init(sha256: digest.hex, from: "the photo \(owner.description) (thumbnail made again)"))
            }
        }
        for (digest, problem) in damaged.sorted(by: { $0.key < $1.key }) {
            let hex = digest.hex
            let images = try context.fetch(FetchDescriptor<MemoryImage>(predicate: #Predicate { $0.sha256 == hex }))
            let thumbnails = try thumbnailOwners(hex)
            let what = !images.isEmpty ? problem : !thumbnails.isEmpty ? "\(problem); a thumbnail whose photo is damaged too" : "\(problem); a file no photo uses"
            report.unrestored.append(.init(sha256: hex, problem: what,
                                           usedBy: images.map { "\($0.filename) in '\($0.memory?.title ?? "?")'" } + thumbnails.map { "thumbnail of \($0.description)" }))
        }
        return report
    }
}
