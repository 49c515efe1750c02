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

    public var errorDescription: String? {
        switch self {
        case .missing(let d): return "blob \(d) is missing from the store"
        case .corrupt(let d, let actual): return "blob \(d) is corrupt: its content hashes to \(actual)"
        case .io(let path, let operation, let code): return "\(operation) \(path): \(String(cString: strerror(code)))"
        case .lockTimeout(let path): return "timed out waiting for the lock \(path)"
        }
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
