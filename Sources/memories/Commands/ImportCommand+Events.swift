import Foundation
import MemoriesKit

extension ImportCommand {
    /// Prints what `import --by-event` did: each event that took photos (as `show` prints an
    /// import), a retitled event's old title, then what was not read. Returns the exit status.
    static func showEvents(_ report: EventsReport, arguments: Arguments, options: ImportOptions) throws -> Int32 {
        let rejected = report.events.contains { !$0.report.rejected.isEmpty } || !report.unread.rejected.isEmpty
        if arguments.has("json") {
            try Output.json(report)
            return rejected ? ExitCode.partialImport : ExitCode.success
        }
        for rejection in report.unread.rejected { Output.error("rejected \(Output.escaped(rejection.path)): \(Output.escaped(rejection.reason))") }
        for event in report.events {
            show(event.report, arguments: arguments, options: options, title: event.title, prefix: "")
            if let old = event.retitledFrom, !arguments.has("quiet") {
                Output.print("'\(Output.escaped(old))' is now titled '\(Output.escaped(event.title))': its dates grew")
            }
        }
        if !arguments.has("quiet") {
            let unread = report.unread
            var counts: [String] = []
            if unread.unchanged > 0 { counts.append("\(unread.unchanged) unchanged (not read)") }
            if unread.removedEarlier > 0 { counts.append("\(unread.removedEarlier) of them removed from their event earlier") }
            if report.undated > 0 { counts.append("\(report.undated) without a capture time, placed by their file's time") }
            let changed = report.events.filter { $0.report.imported > 0 || $0.retitledFrom != nil }
            let events = changed.count, new = changed.filter(\.new).count
            let summary = events == 0 ? "no event changed" : "\(events) event\(events == 1 ? "" : "s") " + (options.dryRun ? "would change" : "changed")
            Output.print(summary + (new > 0 ? " (\(new) new)" : "") + (counts.isEmpty ? "" : "; " + counts.joined(separator: ", ")))
            if arguments.has("verbose") {
                for file in unread.skippedFiles { Output.print("skipped \(Output.escaped(file.path)): \(Output.escaped(file.reason))") }
            } else if !unread.skippedFiles.isEmpty {
                Output.print(skippedSummary(unread.skippedFiles))
            }
        }
        return rejected ? ExitCode.partialImport : ExitCode.success
    }
}

/// "90m", "36h", "2d", "3600s" or a number of hours ("24") → seconds; more than none.
func parseDuration(_ text: String) throws -> TimeInterval {
    var digits = text.trimmingCharacters(in: .whitespaces).lowercased()
    var unit: TimeInterval = 3600
    if let last = digits.last, let seconds = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][String(last)] {
        unit = seconds
        digits.removeLast()
    }
    guard let value = Double(digits), value.isFinite, value > 0, value * unit <= 3650 * 86400 else {
        throw UsageError(message: "--gap must be a duration such as 90m, 36h or 2d (at most 3650d), not '\(Output.escaped(text))'")
    }
    return value * unit
}
