import Foundation

/// Calls `body` with every index in `0..<count` on `jobs` threads at once, each thread taking the
/// next index as it finishes one (so slow items do not hold up a fixed share). The first error
/// stops every thread from taking more and is rethrown once all have returned.
///
/// ```swift
/// try concurrentForEach(files.count, jobs: 4) { i in try store.put(contentsOf: files[i]) }
/// ```
public func concurrentForEach(_ count: Int, jobs: Int, _ body: (Int) throws -> Void) throws {
    let lock = NSLock()
    var next = 0
    var failure: Error?
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
        while true {
            lock.lock()
            let index = next
            next += 1
            let stop = failure != nil
            lock.unlock()
            guard index < count, !stop else { return }
            do {
                try body(index)
            } catch {
                lock.lock()
                if failure == nil { failure = error }
                lock.unlock()
            }
        }
    }
    if let failure { throw failure }
}
