import Foundation

/// What can go wrong in a blob store, naming the blob or file.
public enum BlobStoreError: Error, Equatable, LocalizedError {
    /// No blob with this digest.
    case missing(BlobDigest)
    /// The blob's content no longer hashes to its name.
    case corrupt(BlobDigest, actual: BlobDigest)
    /// A system call failed on a path.
    case io(path: String, operation: String, errno: Int32)
    /// The store's lock could not be taken within the time allowed.
    case lockTimeout(path: String)
    /// The blobs were moved to another store (the place named) since this one was opened, or a
    /// move was interrupted: nothing may be written here any more.
    case moved(to: String)
    /// The place's owner record names another store: claimed by it first.
    case ownedByAnother(place: String, owner: String)

    /// What went wrong, naming the blob or file.
    public var errorDescription: String? {
        switch self {
        case .missing(let d): return "blob \(d) is missing from the store"
        case .corrupt(let d, let actual): return "blob \(d) is corrupt: its content hashes to \(actual)"
        case .io(let path, let operation, let code): return "\(operation) \(path): \(String(cString: strerror(code)))"
        case .lockTimeout(let path): return "timed out waiting for the lock \(path)"
        case .ownedByAnother(let place, let owner):
            return "\(place) belongs to another store (\(owner)): it claimed the place first"
        case .moved(let place):
            return "the photos were moved to \(place) (while this ran, or by a move that did not finish); nothing was written. "
                + "Run the command again; `memories blobs push` or `pull` finishes an interrupted move"
        }
    }

    /// Whether the failure is a folder that could not be listed (opened or read).
    public var isListing: Bool {
        if case .io(_, let operation, _) = self { return operation == "opendir" || operation == "readdir" }
        return false
    }

    /// Whether the failure is a full disk or quota.
    public var isOutOfSpace: Bool {
        if case .io(_, _, let code) = self { return code == ENOSPC || code == EDQUOT }
        return false
    }
}

/// Throws `.io` with the current errno when `result` is -1.
@discardableResult
func check(_ result: Int32, _ operation: String, _ path: String) throws -> Int32 {
    if result == -1 { throw BlobStoreError.io(path: path, operation: operation, errno: errno) }
    return result
}
