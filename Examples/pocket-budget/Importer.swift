import Foundation
import SwiftData

/// A background importer, as SwiftData apps write them: a model actor with its own context.
/// `import-csv` runs several at once, each on its share of the lines; they pass back only
/// identifiers, never models.
@ModelActor actor BudgetImporter {
    /// Inserts one expense per line (`title,amount,category,YYYY-MM-DD`), saving every 100.
    func insert(_ lines: [Substring]) throws -> [PersistentIdentifier] {
        var added: [Expense] = []
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 4, let value = Decimal(string: fields[1], locale: Locale(identifier: "en_US_POSIX")),
                  let kind = Category(rawValue: fields[2].lowercased()), let date = ISO8601DateFormatter.day.date(from: fields[3]) else {
                throw ImportError.badLine(String(line))
            }
            let expense = Expense(title: fields[0], amount: value, category: kind, date: date)
            modelContext.insert(expense)
            added.append(expense)
            if added.count % 100 == 0 { try modelContext.save() }
        }
        try modelContext.save()
        return added.map(\.persistentModelID)
    }

    enum ImportError: Error, LocalizedError {
        case badLine(String)
        var errorDescription: String? {
            if case .badLine(let line) = self { return "'\(line)' is not title,amount,category,YYYY-MM-DD" }
            return nil
        }
    }
}

extension ISO8601DateFormatter {
    static var day: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter
    }
}

/// Imports a CSV file with `workers` importers running at once; returns how many were added.
func importCSV(_ path: String, into container: ModelContainer, workers: Int) async throws -> Int {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.isEmpty }
    let share = max(1, (lines.count + workers - 1) / workers)
    let chunks = stride(from: 0, to: lines.count, by: share).map { Array(lines[$0..<min($0 + share, lines.count)]) }
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for chunk in chunks {
            let importer = BudgetImporter(modelContainer: container)
            group.addTask { try await importer.insert(chunk).count }
        }
        return try await group.reduce(0, +)
    }
}

/// Runs `importCSV` from the program's synchronous top level.
func importCSVSynchronously(_ path: String, into container: ModelContainer, workers: Int) throws -> Int {
    final class Outcome: @unchecked Sendable { var result: Result<Int, Error> = .success(0) }
    let outcome = Outcome(), done = DispatchSemaphore(value: 0)
    Task.detached {
        do { outcome.result = .success(try await importCSV(path, into: container, workers: workers)) } catch { outcome.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.result.get()
}
