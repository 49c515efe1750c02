import Foundation
import OpenSwiftData

/// One photo of a memory: its original bytes and thumbnail in the blob store, and what people
/// search and sort by.
@Model
public final class MemoryImage {
    // A photo is in a memory once, whatever runs at the same time: two imports of one folder
    // into one memory meet here, and the second's insert becomes an update of the first's row.
    #Unique<MemoryImage>([\.memory, \.sha256])

    /// Stable across edits; shown lower-case, and `remove` accepts a unique prefix.
    @Attribute(.unique) public var id: UUID
    /// The original file, byte for byte (its blob is named by `sha256`).
    @Attribute(.externalStorage) public var imageData: Data?
    /// A JPEG thumbnail, upright, 256 px on its longest side.
    @Attribute(.externalStorage) public var thumbnailData: Data?
    public var memory: Memory?
    /// The original file name (last path component, as imported).
    public var filename: String
    /// The original's SHA-256 in lower-case hex: the name of its blob (`imageData` is stored as it).
    public var sha256: String
    /// "jpeg", "png", "heic", "avif" or "webp" (`ImageFormat`'s raw value).
    public var format: String
    /// As the decoder gives it: for JPEG, PNG and WebP as stored, before the EXIF orientation;
    /// for HEIC and AVIF as displayed (their rotation applied), with `orientation` 1.
    public var width: Int
    /// See `width`.
    public var height: Int
    /// The original's size in bytes.
    public var byteCount: Int
    /// The capture time: EXIF DateTimeOriginal (+ SubSecTimeOriginal) at OffsetTimeOriginal, else
    /// the XMP date; read as UTC when the file gives no offset.
    public var takenAt: Date?
    /// The offset from UTC the photo was taken at, in seconds east (nil: the file does not say).
    public var takenAtOffset: Int?
    /// The file's modification time when it was imported: shown beside, never taken for, the capture time.
    public var fileModifiedAt: Date?
    /// EXIF orientation 1–8 (1 for HEIC and AVIF, whose decoder turns the pixels itself).
    public var orientation: Int = 1
    /// EXIF Make, as the camera wrote it.
    public var cameraMake: String?
    /// EXIF Model, as the camera wrote it.
    public var cameraModel: String?
    /// When the photo was imported.
    public var importedAt: Date = Date()
    /// What the photo shows, in the user's words (`edit --photo NAME --caption`); nil when none
    /// was given.
    public var caption: String?

    /// A photo row; the import fills the rest, `imageData` and `thumbnailData` included.
    public init(id: UUID = UUID(), filename: String, sha256: String, format: String, width: Int, height: Int, byteCount: Int) {
        self.id = id
        self.filename = filename
        self.sha256 = sha256
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }
}
