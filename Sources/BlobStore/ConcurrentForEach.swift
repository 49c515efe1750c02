import Foundation

/// Calls `body` with every index in `0..<count` on `jobs` threads at once, each thread taking the
/// next index as it finishes one (so slow items do not hold up a fixed share). The first error
/// stops every thread from taking more and is rethrown once all have returned.
///
/// Threads of its own, not `DispatchQueue.concurrentPerform`: on Linux that runs at most one
/// worker per core, and the jobs here mostly wait on a network or a disk (eight S3 downloads
/// at once on two cores).
///
/// ```swift
/// try concurrentForEach(files.count, jobs: 4) { i in try store.put(contentsOf: files[i]) }
/// ```
public func concurrentForEach(_ count: Int, jobs: Int, _ body: (Int) throws -> Void) throws {
    let lock = NSLock()
    var next = 0
    var failure: Error?
    func work() {
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
    let threads = max(1, min(jobs, count))
    // `body` does not escape: the threads reach `work` through a box that lets go of it once every
    // thread has left it (a Thread object may outlive its run a little, and it keeps only the box).
    final class Box: @unchecked Sendable { var work: (() -> Void)? }
    withoutActuallyEscaping(work) { work in
        let box = Box()
        box.work = work
        let finished = DispatchGroup()
        for _ in 1..<threads {
            finished.enter()
            let thread = Thread {
                box.work?()
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        work()  // this thread is one of them
        finished.wait()
        box.work = nil
    }
    if let failure { throw failure }
}
