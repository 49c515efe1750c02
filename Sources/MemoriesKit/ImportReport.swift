import Foundation

/// What `import` did, as printed with `--json`.
public struct ImportReport: Codable, Equatable {
    /// The memory the photos went into.
    public struct MemoryRef: Codable, Equatable {
        /// Its id, lower-case.
        public var id: String
        /// Its title.
        public var title: String
    }
    /// A file not imported, and why.
    public struct Rejection: Codable, Equatable {
        /// The path as given (for messages).
        public var path: String
        /// Why, in words: the decoder's reason for a damaged photo, the kind of file for a skipped one.
        public var reason: String
    }
    /// nil when nothing went in and the memory made for it was removed again.
    public var memory: MemoryRef?
    /// Photos added.
    public var imported = 0
    /// Photos not added again: `alreadyInMemory` plus `repeatedInFolders`.
    public var duplicates = 0
    /// Files not read at all: unchanged since the library last read them, and photos the memory
    /// holds or files that are not photos (counted there too).
    public var unchanged = 0
    /// The title the photos would have gone under, when it is another folder's memory's (they
    /// went into `memory`, titled apart); nil otherwise.
    public var titledApartFrom: String?
    /// The folder the memory was imported from, when that folder is gone (moved, renamed) and
    /// this one, of the same name, was taken as it; nil otherwise.
    public var continuedFrom: String?
    /// Files whose photo was removed from the memory earlier, and was not added back.
    public var removedEarlier = 0
    /// Photos the memory held before this import.
    public var alreadyInMemory = 0
    /// Photos found more than once in what was imported (the same bytes under two names).
    public var repeatedInFolders = 0
    /// Files that are not photos (videos, GIFs, hidden files…), skipped.
    public var skipped = 0
    /// Every skipped file with the reason (a video, a GIF, hidden, not an image…).
    public var skippedFiles: [Rejection] = []
    /// Photos that could not be imported (damaged, too large, unreadable), with the reason.
    public var rejected: [Rejection] = []
    /// Photos whose stored copy was damaged or missing and was rewritten from the file imported.
    public var repaired: [String] = []
    /// Photos already in the memory whose stored thumbnail was missing or damaged and was made
    /// again from the file imported.
    public var thumbnailsRemade: [String] = []
    /// Photos imported whose file gives a capture time outside the years 1–9999 (after its
    /// offset), which was not used: the path, and what was not used and what the photo went by.
    public var unusableDates: [Rejection] = []
}
