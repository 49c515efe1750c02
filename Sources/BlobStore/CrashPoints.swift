import Foundation

/// Named points in the write protocol where the reliability tests make the process die, to
/// check that a crash at each one leaves a valid store. Set `BLOBSTORE_CRASH_AT` to a point's
/// name and the process exits with status 99 when it gets there. Unset, each point costs one
/// comparison with nil.
enum CrashPoint: String, CaseIterable {
    case tempCreated = "temp-created"
    case tempWritten = "temp-written"
    case tempSynced = "temp-synced"
    case linked = "linked"
    case tempUnlinked = "temp-unlinked"
    case directorySynced = "directory-synced"

    static let armed: CrashPoint? = ProcessInfo.processInfo.environment["BLOBSTORE_CRASH_AT"].flatMap(CrashPoint.init)

    @inline(__always) static func reach(_ point: CrashPoint) {
        if let armed, armed == point { _exit(99) }
    }
}
