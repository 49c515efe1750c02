import Foundation
import OpenSwiftData

/// Each memory's photo count and byte total, kept by triggers in `memory_stats` inside the same
/// transactions as the rows they count, so that `list` reads 20,000 rows instead of aggregating a
/// million. A library made before the table existed gets it filled from its rows when it is next
/// opened for writing; a read-only open of such a library counts the rows instead.
enum MemoryStats {
    static let table = "memory_stats"

    static func install(on context: ModelContext) throws { try context.installOnce(table, LibrarySQL.createStats(table)) }

    static func exists(in context: ModelContext) throws -> Bool { try context.tableExists(table) }
}
