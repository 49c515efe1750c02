import Foundation

/// The import's workers: `jobs` threads read, validate, thumbnail and hash the files in order,
/// running ahead of the saving thread by at most `limit` bytes of originals.
///
/// The saving thread takes the results a batch at a time (`take`) and gives the batch's bytes
/// back once it is saved (`release`). Workers never wait for a batch boundary: when one is busy
/// with a large photo, the other goes on with the next files (with batches prepared as a whole,
/// the other worker sat idle at the end of every batch: ~15% of the wall time at two jobs).
///
/// Memory: the originals held at once (being prepared, prepared, being saved) stay within `limit`,
/// except that a file is always taken when nothing is held (one larger than the limit goes alone).
/// Workers take files in order, so the batch the saving thread waits for is always taken first
/// and the limit can never hold it back (a batch is at most `limit / 2` bytes, or one file).
final class PreparePipeline: @unchecked Sendable {
    private let files: [FileWalker.Entry]
    private let sizes: [Int64]
    private let limit: Int64
    private let work: (FileWalker.Entry) -> Library.PreparedFile
    private let stages: ImportStages?
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var results: [Library.PreparedFile?]
    private var next = 0
    private var held: Int64 = 0
    private var stopped = false
    private var running = 0

    /// Starts `jobs` workers on `files`, whose `sizes` count against `limit` (0 for a file that is
    /// refused unread).
    init(files: [FileWalker.Entry], sizes: [Int64], jobs: Int, limit: Int64, stages: ImportStages? = nil,
         work: @escaping (FileWalker.Entry) -> Library.PreparedFile) {
        precondition(files.count == sizes.count)
        self.files = files
        self.sizes = sizes
        self.limit = limit
        self.work = work
        self.stages = stages
        results = Array(repeating: nil, count: files.count)
        let workers = max(1, min(jobs, files.count))
        running = workers
        for _ in 0..<workers {
            // Threads of their own, not Dispatch's pool: a worker waiting for room blocks its
            // thread, and the pool's few threads are the save's too.
            let thread = Thread { [self] in run() }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The results of `range`, in order, waiting for those still being prepared.
    func take(_ range: Range<Int>) -> [Library.PreparedFile] {
        condition.lock()
        defer { condition.unlock() }
        var taken: [Library.PreparedFile] = []
        taken.reserveCapacity(range.count)
        for index in range {
            while results[index] == nil { condition.wait() }
            taken.append(results[index].take()!)
        }
        return taken
    }

    /// The originals of `range` are saved (or dropped): workers may run that much further ahead.
    func release(_ range: Range<Int>) {
        condition.lock()
        held -= sizes[range].reduce(0, +)
        condition.broadcast()
        condition.unlock()
    }

    /// Hands out no more files and waits for the workers to finish the ones they took.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopped && next < files.count {
            let size = sizes[next]
            if held > 0 && held + size > limit {
                let start = DispatchTime.now().uptimeNanoseconds
                condition.wait()
                stages?.add(.room, since: start)
                continue
            }
            let index = next
            next += 1
            held += size
            condition.unlock()
            let result = work(files[index])
            condition.lock()
            results[index] = result
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
