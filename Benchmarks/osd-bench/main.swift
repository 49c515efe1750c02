// OpenSwiftData against the SQLite C API, side by side in one run.
//
//   swift run -c release osd-bench [ROWS=100000] [REPS=3]
//
// The workload mirrors ../shared/bench/sqlite_bench.c: rows (UUID text id, title, date, 0–400
// characters of notes) generated before any clock starts; then, on a fresh store each repetition:
//   insert        create the models, insert them, save (one transaction)  | C: BEGIN, bind/step/reset, COMMIT
//   fetch_sorted  reopen, fetch every model sorted by date                | C: SELECT … ORDER BY date, copy columns out
//   fetch_1pct    fetch the models whose date lies in 1% of the span      | C: the same WHERE, copy columns out
//   walk_10k      fetch 10,000 parents and walk each one's 10 children   | C: two SELECTs, children grouped by parent
//   cascade_1k    delete 1,000 parents and their 10,000 children, save     | C: DELETE children, DELETE parents, one transaction
// Each figure prints the median time of both and the ratio (OpenSwiftData / C API); the relationship
// figures also print how many SQL statements OpenSwiftData ran. Every timed phase starts on a
// trimmed heap (see `startClock`). OSD_BENCH_CLOCK=cpu times by thread CPU time instead of the wall
// clock; OSD_BENCH_PROFILE=model or =c repeats one side's sorted fetch alone (see `profileFetch`).
import CSQLite
import Foundation
import OpenSwiftData

@Model final class Entry {
    @Attribute(.unique) var id: String
    var title: String
    var date: Date
    var notes: String

    init(id: String, title: String, date: Date, notes: String) {
        self.id = id
        self.title = title
        self.date = date
        self.notes = notes
    }
}

@Model final class Parent {
    var name: String
    @Relationship(deleteRule: .cascade) var children: [Child] = []
    init(name: String) { self.name = name }
}

@Model final class Child {
    var label: String
    var value: Int
    var parent: Parent?
    init(label: String, value: Int) {
        self.label = label
        self.value = value
    }
}

struct Row { var id: String; var title: String; var date: Double; var notes: String }

var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
func next() -> UInt64 {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27
    return rng &* 2_685_821_657_736_338_717
}

let words = ["beach", "mountain", "birthday", "garden", "city", "harbour", "snow", "forest",
             "market", "concert", "wedding", "river", "sunset", "museum", "train", "picnic"]
let date0 = 1.5e9, span = 2e8

func makeRows(_ n: Int) -> [Row] {
    (0..<n).map { i in
        let title = "Day \(i): \(words[Int(next() % 16)]) and \(words[Int(next() % 16)])"
        let date = date0 + Double(next() % UInt64(span)) + Double(next() % 1000) / 1000
        let length = Int(next() % 401)
        let notes = String((0..<length).map { _ in next() % 7 == 0 ? " " : Character(UnicodeScalar(UInt8(97 + next() % 26))) })
        return Row(id: UUID().uuidString, title: title, date: date, notes: notes)
    }
}

/// Wall-clock time, or with OSD_BENCH_CLOCK=cpu this thread's CPU time (steadier on a shared,
/// throttled machine: time spent waiting for a CPU is not counted, on either side).
let clock = ProcessInfo.processInfo.environment["OSD_BENCH_CLOCK"] == "cpu" ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC
func now() -> Double {
    var t = timespec()
    clock_gettime(clock, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// OSD_BENCH_HEAP=untrimmed: no trimming (see `startClock`).
let trimsHeap = ProcessInfo.processInfo.environment["OSD_BENCH_HEAP"] != "untrimmed"
/// glibc's `malloc_trim` (declared in malloc.h, which the Glibc module does not import).
let mallocTrim = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim"), to: (@convention(c) (Int) -> Int32).self)

/// The start of a timed phase, on a trimmed heap (`malloc_trim`): each side pays for the memory it
/// touches, as a fresh process would. Without it (OSD_BENCH_HEAP=untrimmed), a side often ran in
/// pages the other had just freed, mostly the C side in ours (we free more); on this VM a page fault
/// costs ~2.5 µs, and the ~11,000 of a sorted fetch moved either side's time by ~30 ms (15–25%).
func startClock() -> Double {
    if trimsHeap { _ = mallocTrim(0) }
    faultsAtStart = minorFaults()
    return now()
}
var faultsAtStart = 0

/// This process's minor page faults so far (the first touch of each fresh page of memory).
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_minflt
}

/// Records the phase `name` that began at `start`: its time, and its page faults under `name.faults`.
func stopClock(_ start: Double, _ name: String, into result: inout [String: Double]) {
    result[name] = now() - start
    result[name + ".faults"] = Double(minorFaults() - faultsAtStart)
}

func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
}

// MARK: C API

func exec(_ db: OpaquePointer?, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
}

func openC(_ path: String) -> OpaquePointer? {
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    exec(db, "PRAGMA journal_mode=WAL")
    exec(db, "PRAGMA synchronous=NORMAL")
    return db
}

struct Out { var id: String; var title: String; var date: Double; var notes: String }

func fetchC(_ db: OpaquePointer?, _ sql: String, _ lo: Double?, _ hi: Double?) -> [Out] {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, sql, -1, &st, nil)
    if let lo, let hi { sqlite3_bind_double(st, 1, lo); sqlite3_bind_double(st, 2, hi) }
    var out: [Out] = []
    while sqlite3_step(st) == SQLITE_ROW {
        out.append(Out(id: String(cString: sqlite3_column_text(st, 0)), title: String(cString: sqlite3_column_text(st, 1)),
                       date: sqlite3_column_double(st, 2), notes: String(cString: sqlite3_column_text(st, 3))))
    }
    sqlite3_finalize(st)
    return out
}

func insertC(_ db: OpaquePointer?, _ rows: [Row]) {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO entries(id,title,date,notes) VALUES(?,?,?,?)", -1, &st, nil)
    exec(db, "BEGIN")
    for r in rows {
        sqlite3_bind_text(st, 1, r.id, -1, csqlite_transient())
        sqlite3_bind_text(st, 2, r.title, -1, csqlite_transient())
        sqlite3_bind_double(st, 3, r.date)
        sqlite3_bind_text(st, 4, r.notes, -1, csqlite_transient())
        guard sqlite3_step(st) == SQLITE_DONE else { fatalError("step") }
        sqlite3_reset(st)
    }
    exec(db, "COMMIT")
    sqlite3_finalize(st)
}

func runC(_ rows: [Row], path: String, lo: Double, hi: Double) -> [String: Double] {
    removeStore(path)
    var db = openC(path)
    exec(db, "CREATE TABLE entries(id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, date REAL NOT NULL, notes TEXT NOT NULL)")
    var t = startClock()
    insertC(db, rows)
    var result: [String: Double] = [:]
    stopClock(t, "insert", into: &result)
    sqlite3_close(db)
    db = openC(path)
    t = startClock()
    let all = fetchC(db, "SELECT id,title,date,notes FROM entries ORDER BY date", nil, nil)
    stopClock(t, "fetch_sorted", into: &result)
    precondition(all.count == rows.count)
    t = startClock()
    let slice = fetchC(db, "SELECT id,title,date,notes FROM entries WHERE date >= ?1 AND date < ?2 ORDER BY date", lo, hi)
    stopClock(t, "fetch_1pct", into: &result)
    precondition(slice.count > rows.count / 200)
    sqlite3_close(db)
    removeStore(path)
    return result
}

// MARK: OpenSwiftData

func runModel(_ rows: [Row], path: String, lo: Double, hi: Double) throws -> [String: Double] {
    removeStore(path)
    var result: [String: Double] = [:]
    do {
        let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        let t = startClock()
        for r in rows {
            context.insert(Entry(id: r.id, title: r.title, date: Date(timeIntervalSince1970: r.date), notes: r.notes))
        }
        let t1 = now()
        try context.save()
        stopClock(t, "insert", into: &result)
        if ProcessInfo.processInfo.environment["OSD_BENCH_PHASES"] != nil {
            print("  insert phases: objects+insert \(String(format: "%.3f", t1 - t)) s, save \(String(format: "%.3f", now() - t1)) s")
        }
    }
    let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    let context = ModelContext(container)
    var t = startClock()
    let all = try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.date)]))
    stopClock(t, "fetch_sorted", into: &result)
    precondition(all.count == rows.count)
    let from = Date(timeIntervalSince1970: lo), to = Date(timeIntervalSince1970: hi)
    let fresh = ModelContext(container)
    t = startClock()
    let slice = try fresh.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.date >= from && $0.date < to }, sortBy: [SortDescriptor(\.date)]))
    stopClock(t, "fetch_1pct", into: &result)
    precondition(slice.count > rows.count / 200)
    _ = all.count
    removeStore(path)
    return result
}

/// OSD_BENCH_PROFILE=insert: only OpenSwiftData's insert and save, in `insertModels` (for
/// `valgrind --tool=callgrind --toggle-collect='*insertModels*'`).
func profileInsert(_ rows: [Row]) throws {
    let path = dir + "/osd-bench-profile.store"
    removeStore(path)
    defer { removeStore(path) }
    let context = ModelContext(try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path))))
    let t = now()
    try insertModels(rows, into: context)
    print("model\tinsert\t\(String(format: "%.4f", now() - t))\t\(rows.count) rows")
}

@inline(never) func insertModels(_ rows: [Row], into context: ModelContext) throws {
    for r in rows { context.insert(Entry(id: r.id, title: r.title, date: Date(timeIntervalSince1970: r.date), notes: r.notes)) }
    try context.save()
}

/// OSD_BENCH_PROFILE=model or =c: only that side's sorted fetch, repeated on one store, each
/// time with its minor page faults (for `perf record`, and to see what the heap's state costs).
func profileFetch(_ side: String, _ rows: [Row], reps: Int) throws {
    let path = dir + "/osd-bench-profile.store"
    removeStore(path)
    defer { removeStore(path) }
    var fetch: () throws -> [Any]  // freed after the clock stops, as in the benchmark
    if side == "c" {
        let db = openC(path)
        exec(db, "CREATE TABLE entries(id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, date REAL NOT NULL, notes TEXT NOT NULL)")
        insertC(db, rows)
        sqlite3_close(db)
        let reopened = openC(path)
        fetch = { fetchC(reopened, "SELECT id,title,date,notes FROM entries ORDER BY date", nil, nil) }
    } else {
        do {
            let context = ModelContext(try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path))))
            for r in rows { context.insert(Entry(id: r.id, title: r.title, date: Date(timeIntervalSince1970: r.date), notes: r.notes)) }
            try context.save()
        }
        let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        fetch = { try ModelContext(container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.date)])) }
    }
    for _ in 0..<reps {
        let faults = minorFaults()
        let t = startClock()
        let fetched = try fetch()
        print("\(side)\tfetch_sorted\t\(String(format: "%.4f", now() - t))\t\(fetched.count) rows\t\(minorFaults() - faults) page faults")
    }
}

let args = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let n = args.first ?? 100_000
let reps = args.count > 1 ? args[1] : 3
let rows = makeRows(n)
let dir = FileManager.default.temporaryDirectory.path
if let side = ProcessInfo.processInfo.environment["OSD_BENCH_PROFILE"] {
    if side == "insert" { try profileInsert(rows) } else { try profileFetch(side, rows, reps: reps) }
    exit(0)
}
let lo = date0 + 0.5 * span, hi = lo + 0.01 * span
var samples: [String: (model: [Double], c: [Double])] = [:]
print("# OpenSwiftData vs SQLite \(String(cString: sqlite3_libversion())) C API, \(n) rows, \(reps) repetitions, WAL, synchronous=NORMAL, heap \(trimsHeap ? "trimmed" : "untrimmed") before each phase")
for rep in 0..<reps {
    // Alternate which side runs first, so neither always pays for the other's dirty pages.
    var c: [String: Double] = [:], m: [String: Double] = [:]
    if rep % 2 == 0 {
        c = runC(rows, path: dir + "/osd-bench-c.db", lo: lo, hi: hi)
        m = try runModel(rows, path: dir + "/osd-bench-model.store", lo: lo, hi: hi)
    } else {
        m = try runModel(rows, path: dir + "/osd-bench-model.store", lo: lo, hi: hi)
        c = runC(rows, path: dir + "/osd-bench-c.db", lo: lo, hi: hi)
    }
    for key in c.keys { samples[key, default: ([], [])].c.append(c[key]!); samples[key, default: ([], [])].model.append(m[key]!) }
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
print("figure\tOpenSwiftData_s\tC_API_s\tratio\tpage_faults(OpenSwiftData/C)")
for key in ["insert", "fetch_sorted", "fetch_1pct"] {
    let m = median(samples[key]!.model), c = median(samples[key]!.c)
    let faults = "\(Int(median(samples[key + ".faults"]!.model)))/\(Int(median(samples[key + ".faults"]!.c)))"
    print("\(key)\t\(String(format: "%.4f", m))\t\(String(format: "%.4f", c))\t\(String(format: "%.2f", m / c))x\t\(faults)")
}

// MARK: Relationships

func buildFamilies(_ path: String) throws {
    removeStore(path)
    let container = try ModelContainer(for: Parent.self, Child.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    let context = ModelContext(container)
    for p in 0..<10_000 {
        let parent = Parent(name: String(format: "p%05d", p))
        context.insert(parent)
        for c in 0..<10 {
            let child = Child(label: "c\(c)", value: p * 10 + c)
            parent.children.append(child)
        }
    }
    try context.save()
}

func copyStore(_ from: String, _ to: String) {
    removeStore(to)
    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: from + suffix) {
        try! FileManager.default.copyItem(atPath: from + suffix, toPath: to + suffix)
    }
}

func walkModel(_ path: String) throws -> (Double, Int, Int) {
    let container = try ModelContainer(for: Parent.self, Child.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    let context = ModelContext(container)
    var statements = 0
    context.traceSQL { _ in statements += 1 }
    let t = startClock()
    var sum = 0
    let parents = try context.fetch(FetchDescriptor<Parent>())
    for parent in parents {
        for child in parent.children { sum += child.value }
    }
    let elapsed = now() - t
    // The models are freed after the clock stops, as the C side's structs are.
    withExtendedLifetime(parents) {}
    return (elapsed, statements, sum)
}

func walkC(_ path: String) -> (Double, Int) {
    let db = openC(path)
    let t = startClock()
    struct P { var pk: Int64; var name: String; var children: [(String, Int)] = [] }
    var parents: [Int64: Int] = [:]
    var list: [P] = []
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT _pk, name FROM Parent", -1, &st, nil)
    while sqlite3_step(st) == SQLITE_ROW {
        parents[sqlite3_column_int64(st, 0)] = list.count
        list.append(P(pk: sqlite3_column_int64(st, 0), name: String(cString: sqlite3_column_text(st, 1))))
    }
    sqlite3_finalize(st)
    sqlite3_prepare_v2(db, "SELECT label, value, parent FROM Child ORDER BY parent, _pk", -1, &st, nil)
    while sqlite3_step(st) == SQLITE_ROW {
        if let i = parents[sqlite3_column_int64(st, 2)] {
            list[i].children.append((String(cString: sqlite3_column_text(st, 0)), Int(sqlite3_column_int64(st, 1))))
        }
    }
    sqlite3_finalize(st)
    var sum = 0
    for p in list { for c in p.children { sum += c.1 } }
    let elapsed = now() - t
    sqlite3_close(db)
    return (elapsed, sum)
}

func cascadeModel(_ path: String) throws -> (Double, Int) {
    let container = try ModelContainer(for: Parent.self, Child.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    let context = ModelContext(container)
    var statements = 0
    context.traceSQL { _ in statements += 1 }
    let t = startClock()
    let limit = "p01000"
    for parent in try context.fetch(FetchDescriptor<Parent>(predicate: #Predicate { $0.name < limit })) { context.delete(parent) }
    try context.save()
    let elapsed = now() - t
    let remaining = try context.fetchCount(FetchDescriptor<Child>())
    precondition(remaining == 90_000)
    return (elapsed, statements)
}

func cascadeC(_ path: String) -> Double {
    let db = openC(path)
    exec(db, "PRAGMA foreign_keys=ON")
    let t = startClock()
    exec(db, "BEGIN IMMEDIATE")
    exec(db, "DELETE FROM Child WHERE parent IN (SELECT _pk FROM Parent WHERE name < 'p01000')")
    exec(db, "DELETE FROM Parent WHERE name < 'p01000'")
    exec(db, "COMMIT")
    let elapsed = now() - t
    sqlite3_close(db)
    return elapsed
}

let families = dir + "/osd-bench-families.store"
try buildFamilies(families)
// OSD_BENCH_PROFILE_REL=walk or =cascade: only that OpenSwiftData figure, repeated (for `perf record`).
if let figure = ProcessInfo.processInfo.environment["OSD_BENCH_PROFILE_REL"] {
    for _ in 0..<reps {
        let copy = dir + "/osd-bench-fam-p.store"
        copyStore(families, copy)
        let elapsed = figure == "walk" ? try walkModel(copy).0 : try cascadeModel(copy).0
        print("\(figure)\t\(String(format: "%.4f", elapsed))")
        removeStore(copy)
    }
    exit(0)
}
var walk: (m: [Double], c: [Double]) = ([], []), cascade: (m: [Double], c: [Double]) = ([], [])
var walkStatements = 0, cascadeStatements = 0
for _ in 0..<reps {
    let copyM = dir + "/osd-bench-fam-m.store", copyC = dir + "/osd-bench-fam-c.store"
    copyStore(families, copyM)
    copyStore(families, copyC)
    let (wm, ws, sumM) = try walkModel(copyM)
    let (wc, sumC) = walkC(copyC)
    precondition(sumM == sumC)
    walk.m.append(wm); walk.c.append(wc); walkStatements = ws
    let (cm, cs) = try cascadeModel(copyM)
    cascade.m.append(cm); cascade.c.append(cascadeC(copyC)); cascadeStatements = cs
    removeStore(copyM); removeStore(copyC)
}
removeStore(families)
for (name, pair, statements) in [("walk_10k", walk, walkStatements), ("cascade_1k", cascade, cascadeStatements)] {
    let m = median(pair.m), c = median(pair.c)
    print("\(name)\t\(String(format: "%.4f", m))\t\(String(format: "%.4f", c))\t\(String(format: "%.2f", m / c))x\t(\(statements) SQL statements)")
}
