import Foundation
import OpenSwiftData

/// A titled, dated set of photos with notes. Shaped like the Memories seed's model.
@Model
public final class Memory {
    @Attribute(.unique) public var id: UUID
    public var title: String
    public var date: Date
    public var notes: String
    public var createdAt: Date = Date()
    @Relationship(deleteRule: .cascade, inverse: \MemoryImage.memory) public var memoryImages: [MemoryImage]

    public init(id: UUID = UUID(), title: String, date: Date, notes: String = "") {
        self.id = id
        self.title = title
        self.date = date
        self.notes = notes
        self.memoryImages = []
    }
}
