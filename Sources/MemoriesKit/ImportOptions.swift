import Foundation
import Imaging

/// What `import` is asked to do.
public struct ImportOptions {
    /// The memory's title: a new memory, or the one with exactly this title (default: the folder's name).
    public var title: String?
    /// An existing memory (id, id prefix or title) to add the photos to.
    public var into: String?
    /// The memory's date (default: its earliest photo's capture time).
    public var date: Date?
    /// The new memory's notes.
    public var notes: String?
    /// Reads, validates and reports; stores nothing.
    public var dryRun = false
    /// Reads every file, even those the library's record of imported files says are unchanged
    /// since it last read them (and proves their stored copies whole, repairing them).
    public var rehash = false
    /// The title a folder's name gives (`import --by-folder`: its name, or its path below the
    /// tree where names repeat): used as a default title is, the folder linked to its memory.
    public var folderTitle: String?
    /// The memory of one event of a camera roll (`importEvents`), which decides where the photos
    /// go instead of the title: the event's memory, or a new one linked to the roll.
    var event: EventTarget?
    /// Whether folders inside the ones given are imported too (`--by-folder` imports each alone).
    public var subfolders = true
    /// Adds photos removed from the memory earlier (and forgets that they were); otherwise an
    /// import leaves them out and counts them (`ImportReport.removedEarlier`).
    public var includeRemoved = false
    /// Decoding and hashing threads (default: the core count). SQLite sees one writer.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Images committed per transaction, at most.
    public var batchSize = 24
    /// A batch holds at most this many bytes of originals (a file over `maxFileSize` counts as
    /// nothing: it is refused unread), and always one file: two batches are in memory at once (one
    /// stored while the next is decoded), so this bounds the import's memory, not the photo count.
    public var batchBytes: Int64 = 24 << 20
    /// What the decodes running at once may hold together (`DecodeBudget`): with the two batches
    /// of originals (48 MB) and the program's own (~36 MB), this bounds the import's memory at any
    /// `jobs`, under 200 MB. (At 128 MB with 32 MB batches, two 22-megapixel progressive photos
    /// decoding at once took the import to 198-209 MB.) A single decode larger than this runs alone.
    public var decodeBytes = 112 << 20
    /// The thumbnail's longest side in pixels.
    public var thumbnailSide = 256
    /// What a photo may declare before it is refused unread (decompression bombs).
    public var limits = ImageLimits.default
    /// A photo larger than this is rejected with its size, unread (files that are not photos are
    /// skipped whatever their size, after reading their first bytes).
    public var maxFileSize: Int64 = ImportOptions.defaultMaxFileSize

    /// The bytes a file of `size` holds in memory while imported: none when it is over
    /// `maxFileSize` (refused unread). Batches and the workers' lead are bounded by it.
    func heldBytes(_ size: Int64) -> Int64 { size <= maxFileSize ? size : 0 }
    /// 512 MiB.
    public static let defaultMaxFileSize: Int64 = 512 << 20
    /// Where the time goes, when set (`MEMORIES_IMPORT_STAGES=1` in the command line program).
    public var stages: ImportStages?

    /// The defaults: a memory titled after the folder, every core.
    public init() {}
}
