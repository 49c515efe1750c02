import Foundation

/// Failures of journal operations, each saying what to do.
public enum LibraryError: Error, Equatable, LocalizedError {
    case memoryNotFound(String, closest: [String] = [])
    case ambiguousMemory(String, candidates: [String])
    case imageNotFound(memory: String, image: String)
    /// `remove` with a photo query that names several photos of the memory: the query and them.
    case ambiguousImage(String, memory: String, candidates: [String])
    case notADirectory(String)
    case destinationNotEmpty(String)
    /// The folder holds the export of another memory (its title).
    case exportOfAnotherMemory(String, title: String)
    /// The folder holds this memory's export, written with other options (as described).
    case exportedOtherwise(String, described: String)
    /// A photo whose stored bytes are missing or damaged: its name, why, and where it is kept
    /// ("the library", or the bucket's location).
    case damagedImage(filename: String, reason: String, place: String = "the library")
    case invalidDate(String)
    /// No library at this folder; `photosLeft` when its photo folder is there without a store.
    case noLibrary(String, photosLeft: Bool)
    /// The memory an import was adding to was deleted meanwhile (by another process).
    case memoryDeletedDuringImport(String)
    /// `blobs.json` cannot be read: its path and why.
    case badSettings(String, String)
    /// `memories init` on a folder that already holds a library.
    case libraryExists(String)
    /// `init --blobs` on a folder whose store an earlier init left unfinished (empty).
    case unfinishedStore(String)
    /// `library.store` is a symbolic link to nothing (a disk not mounted, a moved file): the
    /// store's path and where the link points.
    case danglingStore(String, target: String)
    /// Another command held `titles.lock` (an import making a new memory, or a remove) for the whole wait: its path, seconds.
    case titleLockHeld(String, seconds: Int)
    /// `remove` of a memory's last photo: a memory holds at least one.
    /// A removal or move that would take a memory's last photo: the memory, the photo, and what
    /// to do instead.
    case lastPhoto(memory: String, photo: String, instead: String)
    /// A removal or move that names every photo of the memory: its title, how many, what instead.
    case wouldEmpty(memory: String, photos: Int, instead: String)
    /// A move or merge from a memory into itself.
    case sameMemory(String)
    /// A memory whose photos changed between reading them and changing them (another process).
    case changedMeanwhile(String)
    /// A new memory's title that another memory has.
    case titleTaken(String)
    /// `.library_SUPPORT` is a symbolic link to nothing: its path and where the link points.
    case danglingPhotoFolder(String, target: String)
    /// `.library_SUPPORT` is not a folder (a file, a pipe): its path and what it is.
    case photoFolderNotAFolder(String, kind: String)
    /// `library.store` is not a file (a folder, a pipe, a device): its path and what it is.
    case storeNotAFile(String, kind: String)
    /// `blobs push` or `pull` with nothing to move: why.
    case blobsAlreadyThere(String)
    /// The place photos would move to belongs to another library: where, and its owner.
    case bucketOfAnotherLibrary(String, String)
    /// A writing open of a library whose folder or store belongs to another user: the path, that
    /// user's name and uid.
    case ownedByAnother(String, owner: String, uid: Int)
    /// The library's folder is too deep for this system's paths: its path and length in bytes.
    case pathTooLong(String, bytes: Int)
    /// A batch of an import could not be stored in the bucket: the photo the service failed on
    /// (nil when it was a thumbnail), the batch's photos, the photos added before, and why.
    case batchNotStored(photo: String?, photos: Int, added: Int, reason: String)
    /// The library's photo store (its folder, or its bucket prefix with the owner record) is gone
    /// while its store records photos: the library, the place, and how many photos it records.
    case photoStoreMissing(String, place: String, photos: Int)

    /// What went wrong, in words, with what to do.
    public var errorDescription: String? {
        switch self {
        case .memoryNotFound(let query, let closest):
            let hint = closest.isEmpty ? "" : "; did you mean " + closest.map { "'\($0)'" }.joined(separator: " or ") + "?"
            return "no memory matches '\(query)'\(hint) (give an id, a unique id prefix, or the title; `memories list` shows them)"
        case .ambiguousMemory(let query, let candidates):
            return "'\(query)' matches several memories (by title or id); give more of the id:\n" + candidates.map { "  " + $0 }.joined(separator: "\n")
        case .ambiguousImage(let query, let memory, let candidates):
            return "'\(query)' matches several photos of memory \(memory) (by file name or id); give more of the id:\n"
                + candidates.map { "  " + $0 }.joined(separator: "\n")
        case .imageNotFound(let memory, let image):
            return "memory \(memory) has no image matching '\(image)' (give its id, id prefix or file name)"
        case .notADirectory(let path):
            return "\(path) exists and is not a folder"
        case .destinationNotEmpty(let path):
            return "\(path) is not empty; export into a new or empty folder"
        case .exportOfAnotherMemory(let path, let title):
            return "\(path) holds the export of another memory ('\(title)'); export into a new or empty folder"
        case .exportedOtherwise(let path, let described):
            return "\(path) holds this memory's export made with \(described); export again with those options to update it, or into a new folder"
        case .damagedImage(let filename, let reason, let place):
            return "\(filename) is damaged in \(place) and was not exported: \(reason) (run `memories verify`)"
        case .noLibrary(let path, let photosLeft):
            return photosLeft
                ? "\(path)/library.store is missing or empty, but \(path)/.library_SUPPORT holds photos: restore library.store from a backup "
                    + "(a library.store.backup-* file beside it, if any); nothing was changed"
                : "no library at \(path) (`memories import` creates one; `--library` or `$MEMORIES_LIBRARY` chooses another)"
        case .memoryDeletedDuringImport(let title):
            return "memory '\(title)' was deleted (or merged into another) while this import was adding to it; the photos of the batch in progress were not added. "
                + "Run the import again to make a new memory"
        case .badSettings(let path, let reason):
            return "\(path) cannot be read (\(reason)); it says where this library's photos are: restore it from a backup"
        case .blobsAlreadyThere(let reason):
            return "nothing to move: \(reason)"
        case .bucketOfAnotherLibrary(let place, let owner):
            return "\(place) holds the photos of another library (\(owner)); nothing was copied. Choose another bucket or prefix"
        case .libraryExists(let path):
            return "\(path) already holds a library; choose another folder with --library"
        case .unfinishedStore(let path):
            return "\(path) holds an unfinished library (an empty library.store: an init stopped before it wrote anything). "
                + "An init that keeps photos in a bucket does not take it up (an import may be making it in this folder): "
                + "remove \(path)/library.store, then run the same init again; nothing was changed"
        case .danglingStore(let path, let target):
            return "\(path) is a symbolic link to \(target), which does not exist or cannot be followed (a disk not mounted, a file moved?): "
                + "make it reachable again, or remove the link to start a new library there; nothing was changed"
        case .titleLockHeld(let path, let seconds):
            return "another command held \(path) for \(seconds) seconds while changing a memory's photos (an import making a new memory, or a remove): "
                + "it may be stopped (Ctrl-Z, kill -STOP). Resume or end it (`fuser \(path)` names it), then run this command again; nothing was changed"
        case .wouldEmpty(let memory, let photos, let instead):
            return "these \(photos) photos are all of '\(memory)', and a memory holds at least one: nothing was changed. \(instead)"
        case .lastPhoto(let memory, let photo, let instead):
            return "\(photo) is the last photo of '\(memory)', and a memory holds at least one: nothing was changed. \(instead)"
        case .changedMeanwhile(let title):
            return "'\(title)' gained or lost photos while this command read them (another command is changing it): nothing was changed; run it again"
        case .sameMemory(let title):
            return "'\(title)' is the memory the photos are in already: nothing was changed"
        case .titleTaken(let title):
            return "a memory titled '\(title)' exists: choose another title, or `memories move … --to '\(title)'`"
        case .danglingPhotoFolder(let path, let target):
            return "the library's photo folder \(path) is a symbolic link to \(target), which does not exist or cannot be followed "
                + "(a disk not mounted, a folder moved?): make it reachable again; nothing was changed"
        case .photoFolderNotAFolder(let path, let kind):
            return "the library's photo folder \(path) is a \(kind), not a folder: move it away and put the folder back "
                + "(from a backup, or `memories repair FOLDER…` with the folders the photos came from); nothing was changed"
        case .storeNotAFile(let path, let kind):
            return "\(path) is a \(kind), not a library's store file: move it away (a library's store is a file); nothing was changed"
        case .ownedByAnother(let path, let owner, let uid):
            return "\(path) belongs to \(owner) (uid \(uid)), not to you: they could read the photos, places and notes you put in this "
                + "library, or change them, whatever its modes. Nothing was written. Keep your library in a folder of your own "
                + "(--library), or, if it is yours, give it back to you (chown -R)"
        case .pathTooLong(let path, let bytes):
            return "the library's folder \(path.count > 120 ? String(path.prefix(60)) + "…" + String(path.suffix(40)) : path) is \(bytes) bytes long: "
                + "too long for this system: SQLite opens a store only within \(Library.longestPath) bytes of path, its journal's name "
                + "included (\(Library.longestPath - Library.longestFileWithin) for the folder), and a name may have \(Library.longestName). "
                + "Nothing was changed; choose a folder nearer the root with --library"
        case .batchNotStored(let photo, let photos, let added, let reason):
            return "\(photo ?? "a thumbnail of this batch") could not be stored in the bucket: \(reason). "
                + "The \(photos) photo\(photos == 1 ? "" : "s") of this batch \(photos == 1 ? "was" : "were") not added; "
                + (added == 0 ? "none was added before. " : "the \(added) added before are kept. ") + "Run the same import again to add the rest"
        case .photoStoreMissing(let path, let place, let photos):
            return "the photos of the library at \(path) are kept in \(place), which is gone (moved, deleted, or not mounted): "
                + "its \(photos) photo\(photos == 1 ? "" : "s") would all be missing. Nothing was changed and nothing was made in its place. "
                + "Restore \(place) from a backup (or mount it), or run `memories repair FOLDER…` with the folders the photos came from; "
                + "`memories verify` lists what is missing"
        case .invalidDate(let text):
            return "'\(text)' is not a date; use YYYY-MM-DD or an ISO 8601 date-time"
        }
    }
}
