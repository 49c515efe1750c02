import Foundation
import OpenSwiftData

/// A titled, dated set of photos with notes. Shaped like the Memories seed's model.
@Model
public final class Memory {
    /// Stable across edits; shown lower-case, and any unique prefix of 4 or more characters finds it.
    @Attribute(.unique) public var id: UUID
    /// What people call it ("Rome 2024"); not unique: `resolve` asks when two share one.
    public var title: String
    /// When it happened: the earliest photo's capture time unless given with `--date` or `edit`.
    public var date: Date
    /// Free text, searched with the title.
    public var notes: String
    /// When the memory was made; `date` equals it until a date is given or read from its photos.
    public var createdAt: Date = Date()
    /// Its photos; deleting the memory deletes them (and releases their blobs).
    @Relationship(deleteRule: .cascade, inverse: \MemoryImage.memory) public var memoryImages: [MemoryImage]

    /// A memory without photos (the import adds them).
    public init(id: UUID = UUID(), title: String, date: Date, notes: String = "") {
        self.id = id
        self.title = title
        self.date = date
        self.notes = notes
        self.memoryImages = []
    }
}
