// A small tour of the model layer: a budget of expenses stored in SQLite.
//
//   swift run osd-demo [STORE]            adds sample expenses on first run, then lists and filters them
//   swift run osd-demo --autosave-probe STORE   inserts one expense and exits without save()
//                                               (the main context's autosave must keep it)
import Foundation
import OpenSwiftData

enum Category: String, Codable, CaseIterable { case food, transport, housing, fun }

@Model
final class Expense {
    var title: String
    var amount: Decimal
    var category: Category
    var date: Date
    var note: String = ""

    init(title: String, amount: Decimal, category: Category, date: Date = .now) {
        self.title = title
        self.amount = amount
        self.category = category
        self.date = date
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--default-store" {
    // The container an app gets with no configuration (tests: where its store goes).
    let container = try ModelContainer(for: Expense.self)
    container.mainContext.insert(Expense(title: "default", amount: 1, category: .fun))
    try container.mainContext.save()
    exit(0)
}

if arguments.first == "--autosave-probe", arguments.count == 2 {
    let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
    container.mainContext.insert(Expense(title: "autosaved", amount: 1, category: .fun))
    exit(0)  // no save(): the atexit autosave writes it
}

let storeURL = URL(fileURLWithPath: arguments.first ?? "demo-library/budget.store")
let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: storeURL))
let context = container.mainContext

if try context.fetchCount(FetchDescriptor<Expense>()) == 0 {
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01
    let samples: [(String, String, Category, Double)] = [
        ("Groceries", "54.20", .food, 0), ("Train to Rome", "39.90", .transport, 2), ("Rent", "1200.00", .housing, 4),
        ("Gelato", "4.50", .food, 31), ("Museum", "22.00", .fun, 33), ("Taxi", "18.75", .transport, 35),
    ]
    for (title, amount, category, offset) in samples {
        context.insert(Expense(title: title, amount: Decimal(string: amount)!, category: category, date: start + offset * day))
    }
    try context.save()
}

let formatter = DateFormatter()
formatter.dateFormat = "yyyy-MM-dd"
formatter.timeZone = TimeZone(identifier: "UTC")

print("Expenses in \(storeURL.path), newest first:")
for e in try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])) {
    print("  \(formatter.string(from: e.date))  \(e.category.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(e.amount)  \(e.title)")
}

let food = Category.food
let foodTotal = try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category == food }))
    .reduce(Decimal(0)) { $0 + $1.amount }
print("Food total: \(foodTotal)")

let big = Decimal(20)
let expensive = try context.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > big }))
print("Expenses over 20: \(expensive)")
