/// Limits checked before any large allocation, against decompression bombs and hostile files.
public struct ImageLimits: Sendable, Equatable {
    /// Largest accepted width × height (default 100 megapixels).
    public var maxPixels: Int = 100_000_000
    /// Largest number of scans in a progressive JPEG.
    public var maxProgressiveScans: Int = 500
    /// Largest PNG ancillary chunk held in memory.
    public var maxChunkBytes: Int = 16 << 20

    /// Limits of your own (the defaults are `default`'s).
    public init(maxPixels: Int = 100_000_000, maxProgressiveScans: Int = 500, maxChunkBytes: Int = 16 << 20) {
        self.maxPixels = maxPixels
        self.maxProgressiveScans = maxProgressiveScans
        self.maxChunkBytes = maxChunkBytes
    }

    /// 100 megapixels, 500 progressive scans, 16 MB chunks.
    public static let `default` = ImageLimits()
}
