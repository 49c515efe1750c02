import Foundation
import Testing
@testable import MemoriesKit

/// Batches are bounded by bytes as well as by count, so an import's memory does not grow with the
/// size of its photos.
@Suite struct BatchTests {
    @Test func aBatchStopsAtItsByteBudgetButAlwaysTakesOneFile() {
        var options = ImportOptions()
        options.batchSize = 4
        options.batchBytes = 100
        options.maxFileSize = 1000
        let sizes: [Int64] = [30, 30, 30, 30, 30, 500, 10, 10, 5000, 10, 10, 10, 10, 10]
        var ends: [Int] = []
        var start = 0
        while start < sizes.count {
            let end = Library.batchEnd(sizes, from: start, options: options)
            #expect(end > start)
            ends.append(end)
            start = end
        }
        // 30+30+30 (a fourth would pass 100); 30 alone before 500; 500 alone (over budget, still taken);
        // 10+10+5000 (over maxFileSize: refused unread, counts as nothing)+10 (four files);
        // then the rest, four at the most.
        #expect(ends == [3, 5, 6, 10, 14])
    }

    /// Files of these sizes, prepared by `workers` threads through a pipeline whose lead is
    /// `limit` bytes, taken by batches as the import takes them: returns what the work saw.
    func runPipeline(sizes: [Int64], limit: Int64, workers: Int, batchBytes: Int64,
                     saveDelay: useconds_t = 0, stages: ImportStages? = nil) -> (order: [String], mostHeld: Int64, mostAtOnce: Int) {
        let files = sizes.indices.map { FileWalker.Entry(path: [], display: "f\($0)", name: "f\($0)", size: sizes[$0]) }
        let lock = NSLock()
        var held: Int64 = 0, mostHeld: Int64 = 0, atOnce = 0, mostAtOnce = 0
        let pipeline = PreparePipeline(files: files, sizes: sizes, jobs: workers, limit: limit, stages: stages) { file in
            lock.withLock {
                held += file.size
                mostHeld = max(mostHeld, held)
                atOnce += 1
                mostAtOnce = max(mostAtOnce, atOnce)
            }
            usleep(UInt32(200 + file.size % 7 * 300))  // uneven work, so workers overtake each other
            lock.withLock { atOnce -= 1 }
            return .skipped(file.display, "", source: nil)
        }
        var options = ImportOptions()
        options.batchBytes = batchBytes
        options.batchSize = 24
        var order: [String] = []
        var start = 0
        while start < files.count {
            let batch = start..<Library.batchEnd(sizes, from: start, options: options)
            start = batch.upperBound
            for case .skipped(let path, _, _) in pipeline.take(batch) { order.append(path) }
            usleep(saveDelay)
            lock.withLock { held -= sizes[batch].reduce(0, +) }
            pipeline.release(batch)
        }
        pipeline.stop()
        return (order, mostHeld, mostAtOnce)
    }

    /// The workers run ahead of the saves by at most the limit (a file larger than it goes alone),
    /// never wait for a batch boundary, and the results come back in the files' order.
    @Test func thePipelineRunsAheadWithinItsLimitAndKeepsTheOrder() {
        let sizes: [Int64] = (0..<200).map { [10, 40, 25, 5, 60, 33][$0 % 6] } + [500] + (0..<50).map { _ in 20 }
        let run = runPipeline(sizes: sizes, limit: 100, workers: 3, batchBytes: 50, saveDelay: 300)
        #expect(run.order == sizes.indices.map { "f\($0)" })
        #expect(run.mostHeld <= 500, "only the oversize file may pass the limit, and alone: \(run.mostHeld)")
        let small = runPipeline(sizes: sizes.filter { $0 < 100 }, limit: 100, workers: 3, batchBytes: 50, saveDelay: 300)
        #expect(small.mostHeld <= 100, "\(small.mostHeld)")
        #expect(small.mostAtOnce > 1, "the workers overlap")
        // One worker, a limit smaller than any file, a batch of one: still all of them, in order.
        let tight = runPipeline(sizes: [30, 30, 30, 30], limit: 10, workers: 1, batchBytes: 1)
        #expect(tight.order == ["f0", "f1", "f2", "f3"] && tight.mostHeld == 30)
    }

    /// The time workers sit idle because the saves are behind is counted (the import's stages
    /// show it): none when the limit never bites, some when every file waits for a slow save.
    @Test func theWorkersTimeWaitingForRoomIsCounted() {
        let roomy = ImportStages(), tight = ImportStages()
        _ = runPipeline(sizes: Array(repeating: 10, count: 20), limit: 1_000, workers: 2, batchBytes: 500, stages: roomy)
        _ = runPipeline(sizes: Array(repeating: 10, count: 20), limit: 10, workers: 2, batchBytes: 10, saveDelay: 5_000, stages: tight)
        #expect(roomy.seconds(.room) == 0)
        #expect(tight.seconds(.room) > 0)
        #expect(tight.summary.contains("workers: waiting for room "))
    }

    /// `stop` returns only when no worker is preparing a file, and no file is started after it.
    @Test func stoppingThePipelineWaitsForTheWorkersAndStartsNothingMore() {
        let files = (0..<100).map { FileWalker.Entry(path: [], display: "f\($0)", name: "f\($0)", size: 1) }
        let lock = NSLock()
        var started = 0, running = 0
        let pipeline = PreparePipeline(files: files, sizes: files.map(\.size), jobs: 2, limit: 1_000) { file in
            lock.withLock { started += 1; running += 1 }
            usleep(2_000)
            lock.withLock { running -= 1 }
            return .skipped(file.display, "", source: nil)
        }
        _ = pipeline.take(0..<3)
        pipeline.stop()
        let (afterStop, stillRunning) = lock.withLock { (started, running) }
        #expect(stillRunning == 0)
        usleep(20_000)
        #expect(lock.withLock { started } == afterStop && afterStop < 100)
    }

    @Test func anImportInBatchesOfOneStoresEverythingOnce() throws {
        let box = Sandbox()
        let library = try Library(directory: box.library)
        var options = ImportOptions()
        options.title = "One by one"
        options.batchBytes = 1
        let report = try library.importPhotos([fixturePhotos.path], options: options)
        #expect(report.rejected.isEmpty && report.imported > 0)
        let rows = try library.context.query(#"SELECT count(*), count(DISTINCT "sha256") FROM "MemoryImage""#).first
        #expect(rows?[0] == .integer(Int64(report.imported)) && rows?[1] == .integer(Int64(report.imported)))
    }

    /// A photo repeated in the folders is "repeated in these folders" whichever batches its copies
    /// fall in; "already in this memory" is only what the memory had before (a copy saved by an
    /// earlier batch of the same import was counted as the memory's).
    @Test func repeatsAcrossBatchesAreCountedAsRepeats() throws {
        let box = Sandbox()
        let folder = box.url.appendingPathComponent("in")
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-1.jpg"), to: "in/a.jpg")
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-2.jpg"), to: "in/b.jpg")
        _ = box.copy(fixtureImages.appendingPathComponent("good/orientation-1.jpg"), to: "in/c.jpg")
        let library = try Library(directory: box.library)
        var options = ImportOptions()
        options.title = "T"
        options.batchBytes = 1
        let first = try library.importPhotos([folder.path], options: options)
        #expect(first.imported == 2 && first.repeatedInFolders == 1 && first.alreadyInMemory == 0)
        options.title = nil
        options.into = "T"
        let again = try library.importPhotos([folder.path], options: options)
        #expect(again.imported == 0 && again.alreadyInMemory == 3 && again.repeatedInFolders == 0)
    }
}
