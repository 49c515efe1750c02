import Foundation
import OpenSwiftData

/// A fresh temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("osd-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func store(_ name: String = "test.store") -> URL { url.appendingPathComponent(name) }
}

func container(_ types: any PersistentModel.Type..., at url: URL, policy: ModelConfiguration.UniquenessPolicy = .upsert) throws -> ModelContainer {
    let schema = Schema(types)
    return try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: url, uniquenessPolicy: policy)])
}

import CSQLite

/// Reads a store file directly through the C API, to check what is really on disk.
struct SQLiteProbe {
    let url: URL
    init(_ url: URL) { self.url = url }

    func rows(_ sql: String) throws -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw ProbeError.open }
        defer { sqlite3_close_v2(db) }
        // A container's last connection closing checkpoints its WAL under an exclusive lock, and a
        // background trash prune may be reading: wait as the library's own connections do.
        sqlite3_busy_timeout(db, 10_000)
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else {
            throw ProbeError.sql(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(stmt) }
        var result: [[String]] = []
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(stmt)).map { i in
                sqlite3_column_type(stmt, i) == SQLITE_NULL ? "NULL" : String(cString: sqlite3_column_text(stmt, i))
            })
            rc = sqlite3_step(stmt)
        }
        // A step that failed (busy, corrupt) is an error, not the end of the rows.
        guard rc == SQLITE_DONE else { throw ProbeError.sql(String(cString: sqlite3_errmsg(db))) }
        return result
    }

    /// Runs SQL that returns no rows (a trigger to make writes fail, say), read-write.
    func execute(_ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw ProbeError.open }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 10_000)
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw ProbeError.sql(String(cString: sqlite3_errmsg(db))) }
    }

    func row(_ sql: String) throws -> [String] { try rows(sql).first ?? [] }
    func scalar(_ sql: String) throws -> String { try row(sql).first ?? "" }

    enum ProbeError: Error { case open, sql(String) }
}

/// The package's build folder, where `swift build` puts the executables.
func productURL(_ name: String) -> URL {
    var dir = URL(fileURLWithPath: #filePath)
    while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
        dir.deleteLastPathComponent()
    }
    for config in ["debug", "release"] {
        let url = dir.appendingPathComponent(".build/\(config)/\(name)")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return dir.appendingPathComponent(".build/debug/\(name)")
}

struct ProcessResult {
    var exitCode: Int32
    var stdout: String
    var stderr: String
}

/// Runs one of the package's executables and waits for it.
func runProduct(_ name: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = productURL(name)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(exitCode: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
}
