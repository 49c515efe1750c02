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

let help = """
pocket-budget: expenses by category (the Pocket Budget seed's model on OpenSwiftData).

Usage: pocket-budget [--store PATH] <command> [arguments]

Commands:
  add TITLE AMOUNT CATEGORY [--date YYYY-MM-DD] [--note N]
  edit ID [--title T] [--amount A] [--category C] [--date D] [--note N]
  delete ID
  list [--since YYYY-MM-DD] [--category C]      newest first, with the total
  totals                                         per month and per category
  import-csv FILE [--workers N]                  title,amount,category,YYYY-MM-DD lines, by N @ModelActor importers
  make-v1-store                                  a store of the model before `note` (to try migration)

AMOUNT is an exact decimal with a dot and at most two decimals (12, 3.40, 1234.56); anything else
(3,40, 1e3, 12.345) is an error, never rounded. CATEGORY is one of \(Category.allCases.map(\.rawValue).joined(separator: ", ")).
ID is the number `list` shows. The store is --store PATH, else $BUDGET_STORE, else ./budget.store;
list and totals never create it.

Examples:
  pocket-budget add Tea 3.40 food
  pocket-budget list --since 2024-06-01
  pocket-budget totals
"""

var args = Array(CommandLine.arguments.dropFirst())
if args.contains("--help") || args.contains("-h") || args.first == "help" {
    print(help)
    exit(0)
}
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
/// An exact amount: digits, then at most two decimals after a dot (a sign allowed).
func amount(_ text: String) -> Decimal {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    let whole = parts[0].hasPrefix("-") ? parts[0].dropFirst() : parts[0]
    let valid = !whole.isEmpty && whole.allSatisfy(\.isASCII) && whole.allSatisfy(\.isNumber) && parts.count <= 2
        && (parts.count == 1 || ((1...2).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && $0.isNumber }))
    guard valid, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
        fail("'\(text)' is not an amount: write it like 12, 3.40 or 1234.56 (a dot, at most two decimals)", 64)
    }
    return value
}
/// An amount with two decimals ("3.40", "1200.00").
func money(_ value: Decimal) -> String {
    var exact = value, rounded = Decimal()
    NSDecimalRound(&rounded, &exact, 2, .bankers)
    let text = "\(rounded)"
    guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
    let decimals = text.distance(from: dot, to: text.endIndex) - 1
    return text + String(repeating: "0", count: max(0, 2 - decimals))
}
/// Right-aligned in `width`.
func aligned(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
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
    let reads = command == "list" || command == "totals"
    if reads && !FileManager.default.fileExists(atPath: storeURL.path) {
        fail("no store at \(storeURL.path) (add an expense to create it; --store or $BUDGET_STORE chooses another)")
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
        print("added #\(e.persistentModelID.primaryKey) \(e.title) \(money(e.amount))")
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
        let expenses = try context.fetch(descriptor)
        let total = expenses.reduce(Decimal(0)) { $0 + $1.amount }
        let width = (expenses.map { money($0.amount).count } + [money(total).count]).max() ?? 0
        let idWidth = (expenses.map { "#\($0.persistentModelID.primaryKey)".count }.max() ?? 0)
        for e in expenses {
            let id = "#\(e.persistentModelID.primaryKey)".padding(toLength: idWidth, withPad: " ", startingAt: 0)
            print("\(id)  \(show(e.date))  \(e.category.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(aligned(money(e.amount), width))  \(e.title)\(e.note.isEmpty ? "" : "  (\(e.note))")")
        }
        print("\("total".padding(toLength: idWidth + 2 + 10 + 2 + 10, withPad: " ", startingAt: 0))\(aligned(money(total), width))")
    case "totals":
        var months: [String: Decimal] = [:], categories: [String: Decimal] = [:]
        for e in try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date)])) {
            months[String(show(e.date).prefix(7)), default: 0] += e.amount
            categories[e.category.rawValue, default: 0] += e.amount
        }
        let width = (Array(months.values) + Array(categories.values)).map { money($0).count }.max() ?? 0
        print("by month")
        for (month, sum) in months.sorted(by: { $0.key < $1.key }) { print("  \(month.padding(toLength: 9, withPad: " ", startingAt: 0)) \(aligned(money(sum), width))") }
        print("by category")
        for (name, sum) in categories.sorted(by: { $0.key < $1.key }) { print("  \(name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(aligned(money(sum), width))") }
    default:
        fail("unknown command \(command)\nUsage: pocket-budget [--store PATH] <command> [arguments] (pocket-budget --help lists the commands)", 64)
    }
} catch {
    fail("\(error.localizedDescription)")
}
