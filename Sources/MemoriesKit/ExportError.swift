import Foundation

/// Failures writing an export's destination (never the library's fault), naming the file and
/// saying what really happened: a full disk, a permission, a read-only file system, a symbolic link.
public enum ExportError: Error, Equatable, LocalizedError {
    /// A system call on the destination failed with `errno`; `operation` is a phrase such as
    /// "writing" or "creating the folder", `path` the file or folder meant.
    case destination(path: String, operation: String, errno: Int32)
    /// The destination, or a folder the export creates in it, is a symbolic link: export refuses
    /// to write through one.
    case symbolicLink(path: String)

    /// The errno of a failed system call on the destination.
    var code: Int32? {
        if case .destination(_, _, let code) = self { return code }
        return nil
    }

    /// Whether writing a file failed in a way a medium gives for a name it will not hold
    /// (fusefat: EPERM for a name that is not ASCII; exFAT: ENOENT for a forbidden character;
    /// others EINVAL, EILSEQ, ENAMETOOLONG), so that another name may succeed.
    var refusesName: Bool {
        guard case .destination(_, "writing", let code) = self else { return false }
        return [EPERM, EACCES, EINVAL, EILSEQ, ENOENT, ENAMETOOLONG].contains(code)
    }

    /// What went wrong, naming the file and what to do.
    public var errorDescription: String? {
        switch self {
        case .destination(let path, let operation, let code):
            let stopped = operation == "writing" ? "; the export stopped (the files already written are complete)" : ""
            return "\(Self.reason(code)) \(operation) \(path)\(stopped). \(Self.advice(code))"
        case .symbolicLink(let path):
            return "\(path) is a symbolic link; export writes only into a real folder (give the folder it points to, or a new one)"
        }
    }

    /// What an errno means, said plainly, with its name: "disk full (ENOSPC)".
    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "disk full (ENOSPC)"
        case EDQUOT: return "disk quota exceeded (EDQUOT)"
        case EACCES: return "permission denied (EACCES)"
        case EPERM: return "permission denied (EPERM)"
        case EROFS: return "read-only file system (EROFS)"
        case EIO: return "input/output error (EIO)"
        case EEXIST: return "already exists (EEXIST)"
        case ENOENT: return "no such file or folder (ENOENT)"
        case ENOTDIR: return "not a folder (ENOTDIR)"
        case ELOOP: return "symbolic link refused (ELOOP)"
        case EFBIG: return "over the file size limit (EFBIG: `ulimit -f`)"
        case ENOTCONN, ECONNABORTED, ENODEV, ENXIO, ESHUTDOWN:
            return "the destination went away (\(String(cString: strerror(code))): unplugged or unmounted?)"
        default: return "\(String(cString: strerror(code))) (errno \(code))"
        }
    }

    static func advice(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: return "Free some space, then export again into an empty folder."
        case EACCES, EPERM, EROFS: return "Export into a folder you can write to."
        case ENOTCONN, ECONNABORTED, ENODEV, ENXIO, ESHUTDOWN: return "Plug the disk in or mount it again, then export again into an empty folder."
        default: return "Export again into an empty folder."
        }
    }
}
