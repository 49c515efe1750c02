import Foundation
import Testing

let root: URL = {
    var dir = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
    return dir
}()

final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("examples-\(UUID().uuidString)")
    init() { try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

struct Run { var status: Int32; var out: String; var err: String }

@discardableResult
func run(_ product: String, _ args: [String]) throws -> Run {
    let p = Process()
    p.executableURL = root.appendingPathComponent(".build/debug/\(product)")
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Run(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
}

@Suite struct ExamplesTests {
    @Test func theModelFilesAreTheSeedsUnchanged() throws {
        // The seeds beside the project when they are there, else the copies committed with it.
        let shared = root.deletingLastPathComponent().appendingPathComponent("shared/seeds")
        let seeds = FileManager.default.fileExists(atPath: shared.path) ? shared : root.appendingPathComponent("Fixtures/seeds")
        let gradebookSeed = try String(contentsOf: seeds.appendingPathComponent("000_66b5a222a05c2466.txt"), encoding: .utf8)
        let gradebook = try String(contentsOf: root.appendingPathComponent("Examples/gradebook/Models.swift"), encoding: .utf8)
        // Not even the import line differs: the package's `SwiftData` module is OpenSwiftData on Linux.
        #expect(gradebook.hasPrefix("import Foundation\nimport SwiftData\n@Model\nfinal class Student {"))
        #expect(gradebookSeed.contains(gradebook))
        let budgetSeed = try String(contentsOf: seeds.appendingPathComponent("002_7ccc3a4716717fff.txt"), encoding: .utf8)
        let expense = try String(contentsOf: root.appendingPathComponent("Examples/pocket-budget/Expense.swift"), encoding: .utf8)
        #expect(expense.contains("import SwiftData\n"))
        let escaped = expense
            .trimmingCharacters(in: .newlines).replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
        #expect(budgetSeed.contains(escaped), "Expense.swift is the seed's text (the seed stores it JSON-escaped)")
    }

    @Test func gradebookRecordsUpdatesAndReportsAcrossRuns() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("grades.store").path
        #expect(try run("gradebook", ["--store", store, "add-student", "Ada", "Lovelace"]).status == 0)
        try run("gradebook", ["--store", store, "add-student", "Alan", "Turing"])
        try run("gradebook", ["--store", store, "add-quiz", "Quiz 1", "10"])
        try run("gradebook", ["--store", store, "add-quiz", "Final", "50"])
        #expect(try run("gradebook", ["--store", store, "grade", "Ada Lovelace", "Quiz 1", "8"]).out == "recorded 8/10 for Ada Lovelace on Quiz 1\n")
        #expect(try run("gradebook", ["--store", store, "grade", "Ada Lovelace", "Quiz 1", "9"]).out == "updated Ada Lovelace on Quiz 1: 8 -> 9\n")
        try run("gradebook", ["--store", store, "grade", "Ada Lovelace", "Final", "40"])
        try run("gradebook", ["--store", store, "grade", "Alan Turing", "Final", "45"])
        let byStudent = try run("gradebook", ["--store", store, "by-student"]).out
        #expect(byStudent == """
        Ada Lovelace
          Final: 40/50 80.0%
          Quiz 1: 9/10 90.0%
          total: 49/60 81.7%
        Alan Turing
          Final: 45/50 90.0%
          total: 45/50 90.0%

        """)
        let byQuiz = try run("gradebook", ["--store", store, "by-quiz"]).out
        #expect(byQuiz.contains("Final (50 points)\n  Ada Lovelace: 40 80.0%\n  Alan Turing: 45 90.0%\n  average: 42.5 85.0%"))
        #expect(try run("gradebook", ["--store", store, "delete-student", "Alan Turing"]).status == 0)
        // The default delete rule is nullify: the grade stays, without its student.
        #expect(try run("gradebook", ["--store", store, "by-quiz"]).out.contains("Final (50 points)\n  ?: 45 90.0%\n  Ada Lovelace: 40 80.0%"))
        #expect(try run("gradebook", ["--store", store, "grade", "Nobody", "Final", "1"]).status == 1)
    }

    @Test func pocketBudgetOpensAStoreFromBeforeNoteAndKeepsEverything() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("budget.store").path
        #expect(try run("pocket-budget", ["--store", store, "make-v1-store"]).status == 0)
        let list = try run("pocket-budget", ["--store", store, "list"]).out
        #expect(list == """
        #4  2024-06-05  fun         12.50  Cinema
        #3  2024-06-02  transport   19.90  Train
        #2  2024-05-03  food        84.35  Groceries
        #1  2024-05-01  housing   1200.00  Rent
        total                     1316.75

        """)
        try run("pocket-budget", ["--store", store, "add", "Coffee", "3.40", "food", "--date", "2024-06-07", "--note", "with Ada"])
        try run("pocket-budget", ["--store", store, "edit", "2", "--amount", "90.10"])
        #expect(try run("pocket-budget", ["--store", store, "list", "--since", "2024-06-01"]).out.hasPrefix("#5  2024-06-07  food       3.40  Coffee  (with Ada)\n#4"))
        #expect(try run("pocket-budget", ["--store", store, "list", "--category", "food"]).out.hasSuffix("total                     93.50\n"))
        #expect(try run("pocket-budget", ["--store", store, "totals"]).out.hasPrefix("by month\n  2024-05   1290.10\n  2024-06     35.80\nby category\n"))
        try run("pocket-budget", ["--store", store, "delete", "1"])
        #expect(try run("pocket-budget", ["--store", store, "totals"]).out == """
        by month
          2024-05   90.10
          2024-06   35.80
        by category
          food      93.50
          fun       12.50
          transport 19.90

        """)
        // Exact decimals: 0.1 + 0.2 is 0.3 here.
        try run("pocket-budget", ["--store", store, "add", "a", "0.1", "other", "--date", "2024-07-01"])
        try run("pocket-budget", ["--store", store, "add", "b", "0.2", "other", "--date", "2024-07-02"])
        #expect(try run("pocket-budget", ["--store", store, "totals"]).out.contains("  2024-07    0.30\n"))
    }

    @Test func pocketBudgetImportsACSVWithFourModelActorsAtOnce() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("budget.store").path
        let csv = s.url.appendingPathComponent("expenses.csv")
        // 400 lines; amounts 0.01 … 4.00, so the total is exact: 802.00.
        let lines = (1...400).map { "item \($0),\(Decimal($0) / 100),food,2024-03-\(String(format: "%02d", $0 % 28 + 1))" }
        try lines.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        let result = try run("pocket-budget", ["--store", store, "import-csv", csv.path, "--workers", "4"])
        #expect(result.status == 0 && result.out == "imported 400 expenses with 4 importers\n", "\(result.err)")
        #expect(try run("pocket-budget", ["--store", store, "totals"]).out.hasPrefix("by month\n  2024-03   802.00\n"))
        #expect(try run("pocket-budget", ["--store", store, "list"]).out.split(separator: "\n").count == 401)
        let bad = try run("pocket-budget", ["--store", store, "import-csv", store])
        #expect(bad.status == 1)
    }
}

/// The seed programs behave like tools: help with examples, values checked, names never guessed,
/// read commands never create a store.
@Suite struct ExampleToolTests {
    @Test func bothHaveHelpWithExamples() throws {
        for tool in ["gradebook", "pocket-budget"] {
            let help = try run(tool, ["--help"])
            #expect(help.status == 0 && help.out.contains("Usage: \(tool)") && help.out.contains("Examples:"), "\(tool)")
        }
    }

    @Test func everyReadCommandRefusesAMissingStoreAndUsageErrorsShowTheUsage() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("missing.store").path
        for (tool, command) in [("gradebook", "students"), ("gradebook", "quizzes"), ("gradebook", "by-student"), ("gradebook", "by-quiz"),
                                ("pocket-budget", "list"), ("pocket-budget", "totals")] {
            let result = try run(tool, ["--store", store, command])
            #expect(result.status == 1 && result.err.contains("no store at \(store)"), "\(tool) \(command): \(result.status) \(result.err)")
            #expect(!FileManager.default.fileExists(atPath: store), "\(tool) \(command) created a store")
        }
        for tool in ["gradebook", "pocket-budget"] {
            let result = try run(tool, ["--store", store, "frob"])
            #expect(result.status == 64 && result.err.contains("Usage: \(tool) [--store PATH] <command> [arguments]"), "\(tool): \(result.err)")
        }
    }

    @Test func gradesStayWithinTheQuizAndNamesAreNeverGuessed() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("g.store").path
        #expect(try run("gradebook", ["--store", store, "students"]).err.contains("no store at \(store)"))
        #expect(!FileManager.default.fileExists(atPath: store), "a read command created nothing")
        try run("gradebook", ["--store", store, "add-student", "Ada", "Lovelace"])
        try run("gradebook", ["--store", store, "add-quiz", "Quiz 1", "10"])
        for score in ["11", "-3"] {
            let out = try run("gradebook", ["--store", store, "grade", "Ada Lovelace", "Quiz 1", score])
            #expect(out.status == 64 && out.err.contains("SCORE must be from 0 to 10 (the points of Quiz 1), not \(score)"), "\(out.err)")
        }
        let again = try run("gradebook", ["--store", store, "add-student", "Ada", "Lovelace"])
        #expect(again.status == 1 && again.err.contains("a student called 'Ada Lovelace' exists already") && again.err.contains("--allow-duplicate"))
        #expect(try run("gradebook", ["--store", store, "add-student", "Ada", "Lovelace", "--allow-duplicate"]).status == 0)
        let ambiguous = try run("gradebook", ["--store", store, "grade", "Ada Lovelace", "Quiz 1", "5"])
        #expect(ambiguous.status == 1 && ambiguous.err.contains("2 students are called 'Ada Lovelace'; give one's id:"))
        let ids = ambiguous.err.split(separator: "\n").filter { $0.contains("Ada Lovelace") && !$0.contains("students are called") }
        #expect(ids.count == 2, "each candidate on its own line with its id: \(ambiguous.err)")
    }

    @Test func amountsAreExactOrRefused() throws {
        let s = Scratch()
        let store = s.url.appendingPathComponent("b.store").path
        #expect(try run("pocket-budget", ["--store", store, "list"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: store), "a read command created nothing")
        for bad in ["3,40", "1e3", "12.345", "", "12.", ".5", "abc", "٣"] {
            let out = try run("pocket-budget", ["--store", store, "add", "Tea", bad, "food"])
            #expect(out.status == 64 && out.err.contains("is not an amount"), "\(bad): \(out.err)")
        }
        #expect(try run("pocket-budget", ["--store", store, "add", "Tea", "3.4", "food"]).out.hasSuffix(" Tea 3.40\n"))
    }
}
