import CImaging

/// Limits checked before any large allocation, against decompression bombs and hostile files.
public struct ImageLimits: Sendable, Equatable {
    /// Largest accepted width × height (default 100 megapixels); for an animation, its canvas.
    public var maxPixels: Int = 100_000_000
    /// Largest number of scans in a progressive JPEG.
    public var maxProgressiveScans: Int = 500
    /// Largest PNG ancillary chunk held in memory.
    public var maxChunkBytes: Int = 16 << 20
    /// Most frames an animation may have (default 10,000: over five minutes at 30 frames a second).
    public var maxFrames: Int = 10_000
    /// Largest canvas width × height × frames of an animation (default 10 gigapixels: 40 seconds
    /// of 4K at 30 frames a second), what a viewer composites to play it once.
    public var maxAnimationPixels: Int = 10_000_000_000
    /// Largest whole-image working memory a decoder may need beside its output (default 192 MB):
    /// a JPEG of several scans keeps all its coefficients until the last (a 64-megapixel 4:2:0
    /// progressive photo: 192 MB), a lossless WebP all its pixels as ARGB (50 megapixels), a lossy one with transparency its alpha plane (40).
    public var maxWorkingBytes: Int = 192 << 20
    /// Largest scans × coefficients a JPEG of several scans may make its decoder read (default 10
    /// billion: a 64-megapixel progressive photo of 100 scans; real ones have about 10).
    public var maxScanWork: Int = 10_000_000_000

    /// Limits of your own (the defaults are `default`'s).
    public init(maxPixels: Int = 100_000_000, maxProgressiveScans: Int = 500, maxChunkBytes: Int = 16 << 20,
                maxFrames: Int = 10_000, maxAnimationPixels: Int = 10_000_000_000, maxWorkingBytes: Int = 192 << 20,
                maxScanWork: Int = 10_000_000_000) {
        self.maxPixels = maxPixels
        self.maxProgressiveScans = maxProgressiveScans
        self.maxChunkBytes = maxChunkBytes
        self.maxFrames = maxFrames
        self.maxAnimationPixels = maxAnimationPixels
        self.maxWorkingBytes = maxWorkingBytes
        self.maxScanWork = maxScanWork
    }

    /// 100 megapixels, 500 progressive scans, 16 MB chunks, 10,000 frames, 10 gigapixels an
    /// animation, 192 MB of working memory, 10 billion scan coefficients.
    public static let `default` = ImageLimits()

    /// The same limits as the C wrapper takes them.
    var c: img_limits {
        img_limits(max_pixels: Int64(maxPixels), max_scans: Int32(maxProgressiveScans), max_chunk: maxChunkBytes,
                   max_frames: Int32(clamping: maxFrames), max_animation_pixels: Int64(maxAnimationPixels),
                   max_working_bytes: Int64(maxWorkingBytes), max_scan_work: Int64(maxScanWork))
    }
}
