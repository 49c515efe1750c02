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
}
