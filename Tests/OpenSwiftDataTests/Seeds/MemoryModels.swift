import Foundation
import OpenSwiftData
import UIKit

@Model
final class Memory {
    @Attribute(.unique) var id: UUID
    var title: String
    var date: Date
    var notes: String
    @Relationship(deleteRule: .cascade) var memoryImages: [MemoryImage]

    init(id: UUID = UUID(), title: String, date: Date, notes: String, images: [UIImage]) {
        self.id = id
        self.title = title
        self.date = date
        self.notes = notes
        self.memoryImages = images.map { MemoryImage(image: $0) }
    }

    var images: [UIImage] {
        return memoryImages.compactMap { $0.image }
    }
}

@Model
final class MemoryImage {
    @Attribute(.unique) var id: UUID
    @Attribute(.externalStorage) var imageData: Data?
    var memory: Memory?

    init(id: UUID = UUID(), image: UIImage) {
        self.id = id
        self.imageData = image.pngData()
    }

    var image: UIImage? {
        guard let data = imageData else { return nil }
        return UIImage(data: data)
    }
}
