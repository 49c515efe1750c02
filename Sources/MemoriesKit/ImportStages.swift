import Foundation

/// Where an import's time goes, stage by stage: the seconds the worker threads spent in each of
/// theirs (summed over threads) and the main thread's own. `memories import` prints it to stderr
/// with `MEMORIES_IMPORT_STAGES=1`; `scripts/bench-import.sh` shows it beside its figures.
public final class ImportStages: @unchecked Sendable {
    /// The parts of an import whose time is counted.
    public enum Stage: String, CaseIterable, Sendable {
        /// Workers: opening and reading the file.
        case read
        /// Workers: sniffing, decoding (which validates), the thumbnail's resize, colour and encode.
        case thumbnail = "validate+thumbnail"
        /// Workers: waiting for decode memory (`DecodeBudget`) before a large decode.
        case decodeMemory = "workers: waiting for decode memory"
        /// Workers: SHA-256 of the original.
        case hash
        /// Workers: idle because the saves are behind by the most the pipeline may hold.
        case room = "workers: waiting for room"
        /// Main thread: waiting for the workers' batch.
        case waiting = "main: waiting for workers"
        /// Main thread: duplicates, models, relationships, before the save.
        case records = "main: records"
        /// Main thread: the save (blob files written and synced, then the SQLite transaction).
        case save = "main: save (blobs + SQLite)"
    }

    private let lock = NSLock()
    private var seconds: [Stage: Double] = [:]
    private var runs: [Stage: Int] = [:]

    /// Every stage at zero.
    public init() {}

    /// Runs `work`, adding its wall time to `stage`.
    func time<T>(_ stage: Stage, _ work: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            add(stage, since: start)
            lock.withLock { runs[stage, default: 0] += 1 }
        }
        return try work()
    }

    /// Adds the time since `start` (`DispatchTime.now().uptimeNanoseconds`) to `stage`.
    func add(_ stage: Stage, since start: UInt64) {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        lock.withLock { seconds[stage, default: 0] += elapsed }
    }

    /// Moves `seconds` counted under `from` to `to` (a wait measured inside another stage).
    func move(_ seconds: Double, from: Stage, to: Stage) {
        lock.withLock {
            self.seconds[from, default: 0] -= seconds
            self.seconds[to, default: 0] += seconds
        }
    }

    /// The seconds counted for `stage` so far.
    func seconds(_ stage: Stage) -> Double { lock.withLock { seconds[stage] ?? 0 } }

    /// How many times `stage` ran (through `time`, as `timed` runs it): files read, decoded, hashed.
    public func runs(_ stage: Stage) -> Int { lock.withLock { runs[stage] ?? 0 } }

    /// `read 0.41 s (300), validate+thumbnail 6.02 s (300), …`, in the order of `Stage`, with the
    /// number of runs of the workers' stages.
    public var summary: String {
        lock.withLock {
            Stage.allCases.map { stage in
                let count = [.read, .thumbnail, .hash].contains(stage) ? " (\(runs[stage] ?? 0))" : ""
                return "\(stage.rawValue) \(String(format: "%.2f", seconds[stage] ?? 0)) s\(count)"
            }.joined(separator: ", ")
        }
    }
}

/// Times `work` under `stage` when there is a recorder, else just runs it.
func timed<T>(_ stages: ImportStages?, _ stage: ImportStages.Stage, _ work: () throws -> T) rethrows -> T {
    guard let stages else { return try work() }
    return try stages.time(stage, work)
}
