// pocket-budget: the Pocket Budget seed app's data layer as a command-line program.
// Expense.swift is the seed's model code, unchanged (`import SwiftData` is this package's module on Linux).
//
//   pocket-budget [--store PATH] add TITLE AMOUNT CATEGORY [--date YYYY-MM-DD] [--note N]
//   pocket-budget [--store PATH] edit ID [--title T] [--amount A] [--category C] [--date D] [--note N]
//   pocket-budget [--store PATH] delete ID
//   pocket-budget [--store PATH] list [--since YYYY-MM-DD] [--category C]     newest first
//   pocket-budget [--store PATH] totals                                        per month, exact Decimal
//   pocket-budget [--store PATH] make-v1-store                                 a store of the model before `note`
//   pocket-budget [--store PATH] import-csv FILE [--workers N]                 title,amount,category,YYYY-MM-DD lines,
//                                                                              by N @ModelActor importers at once (default 4)
// ID is the number `list` shows. The store defaults to $BUDGET_STORE, else ./budget.store.
import Foundation
import SwiftData

func fail(_ message: String, _ code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("pocket-budget: \(message)\n".utf8))
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: "--\(name)") else { return nil }
    guard i + 1 < args.count else { fail("--\(name) needs a value", 64) }
    let value = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return value
}
let storeURL = URL(fileURLWithPath: option("store") ?? ProcessInfo.processInfo.environment["BUDGET_STORE"] ?? "budget.store")

func day(_ text: String) -> Date {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyy-MM-dd"
    guard let date = f.date(from: text) else { fail("'\(text)' is not a date (YYYY-MM-DD)", 64) }
    return date
}
func show(_ date: Date) -> String {
    let f = DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyy-MM-dd"
    return f.string(from: date)
}
func amount(_ text: String) -> Decimal {
    guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { fail("'\(text)' is not an amount", 64) }
    return value
}
func category(_ text: String) -> Category {
    guard let c = Category(rawValue: text.lowercased()) else { fail("category must be one of \(Category.allCases.map(\.rawValue).joined(separator: ", "))", 64) }
    return c
}

guard let command = args.first else { fail("usage: pocket-budget [--store PATH] add|edit|delete|list|totals|make-v1-store …", 64) }
args.removeFirst()

do {
    if command == "make-v1-store" {
        let old = try ModelContainer(for: BudgetV1.Expense.self, configurations: ModelConfiguration(url: storeURL))
        let samples: [(String, String, Category, String)] = [("Rent", "1200.00", .housing, "2024-05-01"), ("Groceries", "84.35", .food, "2024-05-03"),
                                                             ("Train", "19.90", .transport, "2024-06-02"), ("Cinema", "12.50", .fun, "2024-06-05")]
        for (title, value, cat, date) in samples { old.mainContext.insert(BudgetV1.Expense(title: title, amount: amount(value), category: cat, date: day(date))) }
        try old.mainContext.save()
        print("wrote \(samples.count) expenses with the model before `note` to \(storeURL.path)")
        exit(0)
    }
    let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: storeURL))
    let context = container.mainContext

    func expense(_ id: String) throws -> Expense {
        guard let key = Int64(id), let e: Expense = try context.model(for: PersistentIdentifier(entityName: "Expense", primaryKey: key)) else {
            fail("no expense \(id) (see `pocket-budget list`)")
        }
        return e
    }

    switch command {
    case "import-csv":
        let workers = option("workers").map { Int($0) ?? 0 } ?? 4
        guard args.count == 1, workers > 0 else { fail("usage: pocket-budget import-csv FILE [--workers N]", 64) }
        let added = try importCSVSynchronously(args[0], into: container, workers: workers)
        print("imported \(added) expenses with \(workers) importers")
    case "add":
        let date = option("date").map(day) ?? .now
        let note = option("note")
        guard args.count == 3 else { fail("usage: pocket-budget add TITLE AMOUNT CATEGORY [--date D] [--note N]", 64) }
        let e = Expense(title: args[0], amount: amount(args[1]), category: category(args[2]), date: date)
        if let note { e.note = note }
        context.insert(e)
        try context.save()
        print("added #\(e.persistentModelID.primaryKey) \(e.title) \(e.amount)")
    case "edit":
        let title = option("title"), value = option("amount").map(amount), cat = option("category").map(category)
        let date = option("date").map(day), note = option("note")
        guard args.count == 1 else { fail("usage: pocket-budget edit ID [--title T] [--amount A] [--category C] [--date D] [--note N]", 64) }
        let e = try expense(args[0])
        if let title { e.title = title }
        if let value { e.amount = value }
        if let cat { e.category = cat }
        if let date { e.date = date }
        if let note { e.note = note }
        try context.save()
        print("updated #\(args[0])")
    case "delete":
        guard args.count == 1 else { fail("usage: pocket-budget delete ID", 64) }
        context.delete(try expense(args[0]))
        try context.save()
        print("deleted #\(args[0])")
    case "list":
        let since = option("since").map(day)
        let cat = option("category").map(category)
        var descriptor: FetchDescriptor<Expense>
        if let start = since {
            // The seed's RecentExpensesView predicate.
            descriptor = FetchDescriptor<Expense>(predicate: #Predicate<Expense> { $0.date >= start }, sortBy: [SortDescriptor(\.date, order: .reverse)])
        } else {
            descriptor = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])
        }
        if let wanted = cat {
            // Filtering on the enum happens in SQL too: it is stored as its raw value.
            if let start = since {
                descriptor.predicate = #Predicate<Expense> { $0.date >= start && $0.category == wanted }
            } else {
                descriptor.predicate = #Predicate<Expense> { $0.category == wanted }
            }
        }
        var total = Decimal(0)
        for e in try context.fetch(descriptor) {
            total += e.amount
            print("#\(e.persistentModelID.primaryKey)  \(show(e.date))  \(e.category.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(e.amount)  \(e.title)\(e.note.isEmpty ? "" : "  (\(e.note))")")
        }
        print("total: \(total)")
    case "totals":
        var months: [String: Decimal] = [:]
        for e in try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date)])) {
            months[String(show(e.date).prefix(7)), default: 0] += e.amount
        }
        for (month, sum) in months.sorted(by: { $0.key < $1.key }) { print("\(month)  \(sum)") }
    default:
        fail("unknown command \(command)", 64)
    }
} catch {
    fail("\(error.localizedDescription)")
}
