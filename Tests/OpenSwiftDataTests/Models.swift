import Foundation
import OpenSwiftData

enum Mood: String, Codable { case happy, sad }
enum Level: Int, Codable { case low = 1, high = 3 }
struct Location: Codable, Equatable { var lat: Double; var lon: Double }

/// One property of every supported value type.
@Model final class Sample {
    var text: String = ""
    var flag: Bool = false
    var i: Int = 0
    var i8: Int8 = 0
    var i16: Int16 = 0
    var i32: Int32 = 0
    var i64: Int64 = 0
    var u: UInt = 0
    var u8: UInt8 = 0
    var u16: UInt16 = 0
    var u32: UInt32 = 0
    var u64: UInt64 = 0
    var d: Double = 0
    var f: Float = 0
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid: UUID = UUID()
    var url: URL = URL(string: "https://example.com")!
    var data: Data = Data()
    var decimal: Decimal = 0
    var mood: Mood = .happy
    var level: Level = .low
    var location: Location = Location(lat: 0, lon: 0)
    var tags: [String] = []
    var scores: [Int] = []
    var optText: String?
    var optInt: Int?
    var optDate: Date?
    var optDecimal: Decimal?
    var optMood: Mood?
    var optLocation: Location?
    var optData: Data?
    var optUUID: UUID?
    var optURL: URL?
    var optBool: Bool?
    var optDouble: Double?
    init() {}
}

/// A small model for context and predicate tests.
@Model final class Item {
    @Attribute(.unique) var name: String
    var rank: Int
    var price: Decimal = 0
    var note: String?
    var created: Date
    var mood: Mood = .happy
    var tags: [String] = []
    @Transient var scratch: Int = 0

    init(name: String, rank: Int, note: String? = nil, created: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        self.name = name
        self.rank = rank
        self.note = note
        self.created = created
    }
}
