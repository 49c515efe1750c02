import Foundation

/// A bound on the memory that decodes running at once may hold, shared by the threads that make
/// thumbnails (`Imaging.thumbnail(of:…, budget:)`).
///
/// Most thumbnail decodes are small (a baseline JPEG at 1/8 scale, a PNG reduced row by row), but
/// some hold the whole image: a progressive JPEG's coefficients (2 bytes per sample), an
/// interlaced PNG, a HEIF or an animated or lossless WebP. Each decode first takes its estimated
/// peak from the budget and gives it back when done; a decode that does not fit waits until it
/// does, and one larger than the whole budget runs alone. So two workers never hold two 24 MP
/// progressive JPEGs' 72 MB at once under a 96 MB budget, and a folder of small photos runs at full
/// parallelism.
///
/// ```swift
/// let budget = DecodeBudget(bytes: 96 << 20)
/// DispatchQueue.concurrentPerform(iterations: 2) { _ in
///     _ = try? Imaging.thumbnail(of: data, budget: budget)
/// }
/// ```
public final class DecodeBudget: @unchecked Sendable {
    /// The bytes the decodes may hold together.
    public let capacity: Int
    private var used = 0
    /// Reservations are served in the order they were asked for, so a large one waiting for room
    /// is not passed again and again by small ones (which would starve it with many workers).
    private var nextTicket = 0
    private var serving = 0
    private var waited: UInt64 = 0
    private let condition = NSCondition()

    /// The seconds decodes have spent waiting for room, summed over threads.
    public var secondsWaited: Double {
        condition.lock()
        defer { condition.unlock() }
        return Double(waited) / 1e9
    }

    /// A budget of `bytes` (at least 1).
    public init(bytes: Int) { capacity = max(1, bytes) }

    /// Waits for its turn and until `bytes` fit (or nothing else is running), takes them, runs
    /// `body`, gives them back.
    func withReservation<R>(_ bytes: Int, _ body: () throws -> R) rethrows -> R {
        let taken = min(max(0, bytes), capacity)
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        if ticket != serving || (used > 0 && used + taken > capacity) {
            let start = DispatchTime.now().uptimeNanoseconds
            while ticket != serving || (used > 0 && used + taken > capacity) { condition.wait() }
            waited += DispatchTime.now().uptimeNanoseconds - start
        }
        used += taken
        serving += 1
        condition.broadcast()
        condition.unlock()
        defer {
            condition.lock()
            used -= taken
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// What the thumbnail decode of an image holds at its peak, estimated from its header: the
    /// decoded pixels at `scale` (a JPEG's DCT scale) or reduced to about `maxSide`, plus whatever
    /// the decoder keeps at full size.
    static func peakBytes(of info: ImageInfo, scale: Int, maxSide: Int) -> Int {
        let pixels = info.width * info.height
        let scaled = (info.width / max(1, scale) + 1) * (info.height / max(1, scale) + 1) * 3
        switch info.format {
        case .jpeg:
            // A JPEG of several scans (progressive, or one scan per component) keeps every
            // coefficient until its last scan: 2 bytes a sample, subsampled chroma counted as it is
            // stored (a 4:2:0 photo holds 3 bytes a pixel, not 6: counted as 6, two workers' large
            // photos waited for each other, ~0.9 s of the corpus's import at two jobs).
            return scaled + info.coefficientBytes
        case .png:
            // Read row by row and reduced by k as it comes (an interlaced one from its last pass):
            // a row, and the reduced image. Decoded whole as RGBA only at full size.
            guard !info.isProgressive || maxSide > 0 else { return pixels * 4 }
            let k = max(1, max(info.width, info.height) / max(1, maxSide))
            return info.width * 8 + (info.width / k + 1) * (info.height / k + 1) * 3
        case .heic, .avif:
            // libheif's planes and the RGB image.
            return pixels * 5
        case .webp:
            // Scaled by the decoder, but a lossless image (ARGB at full size) is not told apart by
            // the header, nor an animation whose first frame fills its canvas: the larger is assumed.
            return pixels * 4
        }
    }
}
