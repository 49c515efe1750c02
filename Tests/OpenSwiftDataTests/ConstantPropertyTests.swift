import Foundation
import OpenSwiftData
import Testing

struct Origin: Codable, Equatable {
    var device: String
    var version: Int
}

@Model final class Receipt {
    let id = UUID()
    let origin = Origin(device: "phone", version: 1)
    let number: Int
    let memo: String?
    var total: Double
    init(number: Int, memo: String?, total: Double) {
        self.number = number
        self.memo = memo
        self.total = total
    }
}

@Suite struct ConstantStorageTests {
    @Test func aFetchedModelHasTheRowsValuesNotFreshDefaults() throws {
        let dir = TemporaryDirectory()
        let receipt = Receipt(number: 7, memo: nil, total: 12.5)
        do {
            let context = ModelContext(try container(Receipt.self, at: dir.store()))
            context.insert(receipt)
            try context.save()
        }
        let rows = try SQLiteProbe(dir.store()).rows(#"SELECT "id", "number", "memo" FROM "Receipt""#)
        #expect(rows == [[receipt.id.uuidString, "7", "NULL"]])
        let context = ModelContext(try container(Receipt.self, at: dir.store()))
        let fetched = try #require(try context.fetch(FetchDescriptor<Receipt>()).first)
        #expect(fetched !== receipt)
        #expect(fetched.id == receipt.id && fetched.number == 7 && fetched.memo == nil && fetched.origin == receipt.origin)
    }

    @Test func aSaveAfterInsertionNeverWritesAConstant() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Receipt.self, at: dir.store()))
        let receipt = Receipt(number: 1, memo: "m", total: 1)
        context.insert(receipt)
        try context.save()
        var statements: [String] = []
        context.traceSQL { statements.append($0) }
        receipt.total = 2
        try context.save()
        let updates = statements.filter { $0.hasPrefix("UPDATE") }
        #expect(updates.count == 1)
        #expect(updates.allSatisfy { $0.contains(#""total""#) && !$0.contains(#""id""#) && !$0.contains(#""number""#) })
        #expect(try SQLiteProbe(dir.store()).row(#"SELECT "number", "total" FROM "Receipt""#) == ["1", "2.0"])
    }

    @Test func constantsFilterSortAndAnUnsavedOneIsSeenByAFetch() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Receipt.self, at: dir.store()))
        for n in [3, 1, 2] { context.insert(Receipt(number: n, memo: n == 2 ? "two" : nil, total: 0)) }
        let found = try context.fetch(FetchDescriptor<Receipt>(predicate: #Predicate { $0.number > 1 }, sortBy: [SortDescriptor(\.number)]))
        #expect(found.map(\.number) == [2, 3])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Receipt>(predicate: #Predicate { $0.memo == "two" })) == 1)
    }
}

@Model final class Badge {
    @Attribute(.unique) var code: String
    let issued: Date
    let serial = UUID()
    var holder: String
    init(code: String, issued: Date, holder: String) {
        self.code = code
        self.issued = issued
        self.holder = holder
    }
}

@Suite struct ConstantEdgeTests {
    @Test func aFetchWithPropertiesToFetchStillReadsTheConstants() throws {
        let dir = TemporaryDirectory()
        let issued = Date(timeIntervalSince1970: 1_000)
        let badge = Badge(code: "A", issued: issued, holder: "Ann")
        do {
            let context = ModelContext(try container(Badge.self, at: dir.store()))
            context.insert(badge)
            try context.save()
        }
        let context = ModelContext(try container(Badge.self, at: dir.store()))
        var descriptor = FetchDescriptor<Badge>()
        descriptor.propertiesToFetch = [\.holder]
        let found = try #require(try context.fetch(descriptor).first)
        #expect(found.issued == issued && found.serial == badge.serial && found.holder == "Ann" && found.code == "A")
    }

    @Test func anUpsertGivesTheObjectAlreadyStandingForTheRowTheNewConstants() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try container(Badge.self, at: dir.store()))
        let first = Badge(code: "A", issued: Date(timeIntervalSince1970: 1), holder: "Ann")
        context.insert(first)
        try context.save()
        let second = Badge(code: "A", issued: Date(timeIntervalSince1970: 2), holder: "Bob")
        context.insert(second)
        try context.save()
        #expect(first.holder == "Bob" && first.issued == Date(timeIntervalSince1970: 2) && first.serial == second.serial)
        #expect(try SQLiteProbe(dir.store()).scalar(#"SELECT "serial" FROM "Badge""#) == second.serial.uuidString)
    }
}
