import BlobStore
import BlobStoreS3
import Foundation
import OpenSwiftData

/// Moving a library's photos between its folder and an S3 bucket (`memories blobs push|pull`).
///
/// Both copy every photo the store references (originals and thumbnails), each confirmed by the
/// side it goes to (the service checks each upload's SHA-256; a pulled file is re-hashed before it
/// gets its name), and only then switch the library over, by writing or removing `blobs.json`.
/// They hold the library's lock exclusive throughout, so no import or gc adds or removes a photo
/// meanwhile. A kill at any point leaves the library where it was, with extra copies on the other
/// side that a re-run finds and skips (so both are resumable and idempotent); the side left
/// keeps its copies (delete them yourself once you no longer want them there).
extension Library {
    /// What `blobs push` or `blobs pull` did.
    public struct BlobMoveReport: Codable, Equatable {
        /// Photos copied by this run.
        public var copied = 0
        /// Photos the other side had already (an earlier, interrupted run).
        public var alreadyThere = 0
        /// The bytes of every photo confirmed at the target.
        public var bytes: Int64 = 0
        /// Where the photos are now.
        public var location = ""
    }

    var supportDirectory: URL { directory.appendingPathComponent(".library_SUPPORT") }

    /// Copies every photo to the bucket `settings` name, then switches the library to it.
    public func pushBlobs(to settings: BlobSettings, jobs: Int = 4, progress: ((Int, Int) -> Void)? = nil) throws -> BlobMoveReport {
        guard let local = container.blobStore else { throw LibraryError.blobsAlreadyThere("this library's photos are in a bucket already") }
        let target = try settings.backend(lockDirectory: supportDirectory)
        let lock = try local.exclusiveLock()
        defer { lock.unlock() }
        guard let identity = try local.owner() else { throw LibraryError.blobsAlreadyThere("the library's photo folder has no owner record") }
        switch try target.owner() {
        case let owner? where owner != identity:
            throw LibraryError.bucketOfAnotherLibrary(settings.url, owner)
        case nil:
            // Files without an owner record (lost, or another tool's): this library's gc would
            // later call all of them unused. An empty prefix is claimed before anything is copied,
            // so that an interrupted push finds it its own when run again.
            if try target.hasBlobs() { throw LibraryError.bucketOfAnotherLibrary(settings.url, "no owner record, but it holds files") }
            do {
                try target.setOwner(identity)
            } catch BlobStoreError.ownedByAnother(_, let owner) {
                throw LibraryError.bucketOfAnotherLibrary(settings.url, owner)
            }
        default:
            break  // this library's: an interrupted push, resumed
        }
        let digests = try container.referencedBlobDigests().sorted()
        var report = BlobMoveReport(location: settings.url)
        let counts = NSLock()
        var done = 0
        try concurrentForEach(digests.count, jobs: jobs) { i in
            let digest = digests[i]
            let file = local.root.appendingPathComponent("sha256/\(digest.prefix)/\(digest.hex)")
            let put = try target.put(contentsOf: file)
            // The file must still be the photo it is named for: a damaged one is not pushed.
            guard put.digest == digest else { throw BlobStoreError.corrupt(digest, actual: put.digest) }
            counts.lock()
            if put.isNew { report.copied += 1 } else { report.alreadyThere += 1 }
            report.bytes += put.size
            done += 1
            let d = done
            counts.unlock()
            progress?(d, digests.count)
        }
        // The switch, in an order a kill cannot hurt: the bucket made writable (a pull may have
        // marked it moved), the folder marked moved (so processes that opened the library before
        // now refuse to write there), and only then blobs.json.
        try target.setMoved(nil)
        try local.setMoved(settings.url)
        try settings.write(to: directory)
        return report
    }

    /// Copies every photo from the library's bucket into its folder, then switches it back.
    public func pullBlobs(jobs: Int = 4, progress: ((Int, Int) -> Void)? = nil) throws -> BlobMoveReport {
        guard let remote = container.blobBackend as? S3BlobStore else {
            throw LibraryError.blobsAlreadyThere("this library's photos are in its folder already")
        }
        let local = try BlobStore(root: supportDirectory)
        let lock = try local.exclusiveLock()
        defer { lock.unlock() }
        guard let identity = try remote.owner() else { throw LibraryError.blobsAlreadyThere("the bucket has no owner record") }
        if let owner = try local.owner(), owner != identity {
            throw LibraryError.bucketOfAnotherLibrary(supportDirectory.path, owner)
        }
        let digests = try container.referencedBlobDigests().sorted()
        var report = BlobMoveReport(location: supportDirectory.path)
        let counts = NSLock()
        var done = 0
        try concurrentForEach(digests.count, jobs: jobs) { i in
            let digest = digests[i]
            let data = try remote.read(digest)  // re-hashed
            let outcome = try local.ensure(digest, from: data)
            counts.lock()
            if outcome == .intact { report.alreadyThere += 1 } else { report.copied += 1 }
            report.bytes += Int64(data.count)
            done += 1
            let d = done
            counts.unlock()
            progress?(d, digests.count)
        }
        try local.setOwner(identity)
        // The bucket marked moved first (processes that opened the library before refuse to
        // upload there), the folder made writable, then blobs.json removed.
        try remote.setMoved(supportDirectory.path)
        try local.setMoved(nil)
        // The switch: without blobs.json the library's photos are its folder's again.
        let settings = directory.appendingPathComponent(BlobSettings.fileName)
        guard unlink(settings.path) == 0 || errno == ENOENT else {
            throw BlobStoreError.io(path: settings.path, operation: "remove", errno: errno)
        }
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        return report
    }
}
