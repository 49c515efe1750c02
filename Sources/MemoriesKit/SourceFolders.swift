import Foundation
import OpenSwiftData

/// Which memory each folder was imported into when the memory's title came from the folder's name
/// (`source_folder`, beside the model's tables): importing that folder again continues its memory,
/// and another folder of the same name makes a memory of its own instead of joining it (two
/// folders named "Anna's birthday", 2020 and 2023, became one memory of both). A memory's rows go
/// with it (a trigger on its table).
enum SourceFolders {
    static let table = "source_folder"

    static func install(on context: ModelContext) throws { try context.installOnce(table, LibrarySQL.createSourceFolders(table)) }

    static func exists(in context: ModelContext) throws -> Bool { try context.tableExists(table) }

    /// The key of the memory `folder` (its real path, as bytes) was imported into, if any.
    static func memory(of folder: Data, in context: ModelContext) throws -> Int64? {
        guard try exists(in: context) else { return nil }
        return try context.query("SELECT memory FROM \(table) WHERE path = ?", [.blob(folder)]).first?.first?.int64Value
    }

    /// The folders linked to the memory whose key is `memory`, other than `except` (real paths).
    static func folders(of memory: Int64, except folder: Data, in context: ModelContext) throws -> [Data] {
        guard try exists(in: context) else { return [] }
        return try context.query("SELECT path FROM \(table) WHERE memory = ? AND path != ?", [.integer(memory), .blob(folder)]).compactMap {
            guard case .blob(let path)? = $0.first else { return nil }
            return path
        }
    }

    /// Of `folders`, the one that is gone (nothing at its path: moved, renamed, or on a disk not
    /// mounted), or that is `folder` itself reached by another path (a second mount point, a bind
    /// mount); nil when one of them is another folder that is there.
    static func goneOrSame(_ folders: [Data], as folder: Data) -> Data? {
        var own = stat()
        guard stat(Array(folder) + [0], &own) == 0 else { return nil }
        var found: Data?
        for other in folders {
            var info = stat()
            let bytes = other.map { CChar(bitPattern: $0) } + [0]
            if stat(bytes, &info) != 0 {
                guard errno == ENOENT || errno == ENOTDIR else { return nil }
            } else if info.st_dev != own.st_dev || info.st_ino != own.st_ino {
                return nil
            }
            found = found ?? other
        }
        return found
    }

    /// Whether any folder is linked to the memory whose key is `memory`, other than `except`.
    static func isLinked(_ memory: Int64, except folder: Data, in context: ModelContext) throws -> Bool {
        guard try exists(in: context) else { return false }
        return try !context.query("SELECT 1 FROM \(table) WHERE memory = ? AND path != ? LIMIT 1", [.integer(memory), .blob(folder)]).isEmpty
    }

    /// Links the folders of memory `source` to `target` (a merge; run in the caller's transaction).
    static func carry(from source: Int64, to target: Int64, in context: ModelContext) throws {
        guard try exists(in: context) else { return }
        try context.execute("UPDATE \(table) SET memory = ? WHERE memory = ?", [.integer(target), .integer(source)])
    }

    /// Links `folder` to the memory whose key is `memory`.
    static func link(_ folder: Data, to memory: Int64, in context: ModelContext) throws {
        try context.execute("INSERT OR REPLACE INTO \(table) (path, memory) VALUES (?, ?)", [.blob(folder), .integer(memory)])
    }
}
