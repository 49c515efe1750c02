import Foundation

/// What `import --by-event` did: the events that changed, and what was not read.
public struct EventsReport: Encodable, Equatable {
    /// One event that took (or would take) photos.
    public struct Event: Encodable, Equatable {
        /// Whether its memory is new (made by this import, or would be in a dry run).
        public var new: Bool
        /// The title it had before this import gave it a wider one (its title was still the one
        /// an import gave it); nil otherwise.
        public var retitledFrom: String?
        /// The import into it. Its `memory` is nil in a dry run of a new event, and when nothing went in.
        public var report: ImportReport
        /// The title of its memory (or the one a dry run would give).
        public var title: String
    }
    /// The events whose files were read (those that took photos have `report.imported` > 0), in time order.
    public var events: [Event] = []
    /// What the files given to no event came to: unchanged photos of the roll's events (not
    /// read), photos removed from them, and files that are not photos.
    public var unread = ImportReport()
    /// Files that give no capture time: dated by their modification time.
    public var undated = 0
}
