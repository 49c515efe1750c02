import Foundation
import Testing
import OpenSwiftData

@Suite struct ValueTypeTests {
    /// A column holding a value of the wrong type (written by another program) is a typed error
    /// naming the model and property, for the directly read primitives and the codec-read ones alike.
    @Test(arguments: [
        ("rank", "'seven'", "text(\"seven\")"), ("name", "x'6869'", "blob(2 bytes)"),
        ("created", "'yesterday'", "text(\"yesterday\")"), ("price", "x'00'", "blob(1 bytes)"),
    ])
    func aStoredValueOfTheWrongTypeIsACorruptValueError(property: String, sqlValue: String, stored: String) throws {
        let dir = TemporaryDirectory()
        let c = try container(Item.self, at: dir.store())
        c.mainContext.insert(Item(name: "a", rank: 1))
        try c.mainContext.save()
        try c.mainContext.execute("UPDATE Item SET \(property) = \(sqlValue)")
        let reader = ModelContext(c)
        #expect(throws: ModelError.corruptValue(model: "Item", property: property, stored: stored)) {
            try reader.fetch(FetchDescriptor<Item>())
        }
    }

    @Test func everyValueTypeRoundTripsThroughAReopenedStore() throws {
        let dir = TemporaryDirectory()
        let id = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
        let decimal = Decimal(string: "12345678901234567890.123456789")!
        do {
            let c = try container(Sample.self, at: dir.store())
            let s = Sample()
            s.text = "héllo \"quoted\" 🎉"; s.flag = true
            s.i = .min; s.i8 = .min; s.i16 = .max; s.i32 = .min; s.i64 = .max
            s.u = .max; s.u8 = .max; s.u16 = .max; s.u32 = .max; s.u64 = .max
            s.d = 0.1 + 0.2; s.f = 3.14159; s.date = date; s.uuid = id
            s.url = URL(string: "file:///tmp/a%20b.jpg")!; s.data = Data([0, 1, 2, 255])
            s.decimal = decimal; s.mood = .sad; s.level = .high
            s.location = Location(lat: 41.9, lon: 12.5); s.tags = ["a", "b"]; s.scores = [3, 1]
            s.optText = "x"; s.optInt = nil; s.optDate = date; s.optDecimal = Decimal(string: "-0.001")
            s.optMood = .happy; s.optLocation = nil; s.optData = Data(); s.optUUID = id; s.optURL = nil
            s.optBool = false; s.optDouble = nil
            c.mainContext.insert(s)
            try c.mainContext.save()
        }
        let c = try container(Sample.self, at: dir.store())
        let s = try #require(try c.mainContext.fetch(FetchDescriptor<Sample>()).first)
        #expect(s.text == "héllo \"quoted\" 🎉" && s.flag)
        #expect(s.i == .min && s.i8 == .min && s.i16 == .max && s.i32 == .min && s.i64 == .max)
        #expect(s.u == .max && s.u8 == .max && s.u16 == .max && s.u32 == .max && s.u64 == .max)
        #expect(s.d == 0.1 + 0.2 && s.f == 3.14159)
        #expect(s.date == date && s.uuid == id)
        #expect(s.url == URL(string: "file:///tmp/a%20b.jpg")! && s.data == Data([0, 1, 2, 255]))
        #expect(s.decimal == decimal)
        #expect(s.mood == .sad && s.level == .high)
        #expect(s.location == Location(lat: 41.9, lon: 12.5) && s.tags == ["a", "b"] && s.scores == [3, 1])
        #expect(s.optText == "x" && s.optInt == nil && s.optDate == date && s.optDecimal == Decimal(string: "-0.001"))
        #expect(s.optMood == .happy && s.optLocation == nil && s.optData == Data() && s.optUUID == id && s.optURL == nil)
        #expect(s.optBool == false && s.optDouble == nil)
    }

    @Test func columnsHaveTheDocumentedStoredForms() throws {
        let dir = TemporaryDirectory()
        let c = try container(Sample.self, at: dir.store())
        let s = Sample()
        s.mood = .sad; s.level = .high; s.decimal = Decimal(string: "1.50")!; s.tags = ["a"]
        s.date = Date(timeIntervalSinceReferenceDate: 10)
        c.mainContext.insert(s)
        try c.mainContext.save()
        let row = try SQLiteProbe(dir.store()).row("SELECT mood, level, decimal, tags, date, typeof(uuid), flag FROM Sample")
        #expect(row == ["sad", "3", "1.5", "[\"a\"]", "10.0", "text", "0"])
    }

    @Test func decimalComparisonsAndSortingAreNumeric() throws {
        let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        for (name, price) in [("a", "9.5"), ("b", "10.25"), ("c", "100"), ("d", "-2"), ("e", "0.1")] {
            let item = Item(name: name, rank: 0)
            item.price = Decimal(string: price)!
            context.insert(item)
        }
        try context.save()
        let sorted = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.price)]))
        #expect(sorted.map(\.name) == ["d", "e", "a", "b", "c"])
        let limit = Decimal(string: "9.75")!
        let above = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.price > limit }, sortBy: [SortDescriptor(\.price)]))
        #expect(above.map(\.name) == ["b", "c"])
    }

    @Test func enumPredicatesUseTheRawValue() throws {
        let c = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        let sad = Item(name: "s", rank: 1)
        sad.mood = .sad
        context.insert(sad)
        context.insert(Item(name: "h", rank: 2))
        try context.save()
        let wanted = Mood.sad
        let found = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.mood == wanted }))
        #expect(found.map(\.name) == ["s"])
    }
}
