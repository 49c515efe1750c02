import Foundation

/// How `importEvents` splits photos' times into events (`--gap`), beside the events made before.
extension Library {
    /// Groups `times` with the spans of existing `events`: in time order, a gap longer than `gap`
    /// ends a run. A time in a run with events joins the nearest of them (`joined`: the time's
    /// index and the event); the times of a run without one are a new event (`new`, indices).
    static func group(_ times: [Date], events: [(event: Int64, span: ClosedRange<Date>)], gap: TimeInterval)
        -> (joined: [(Int, Int64)], new: [[Int]]) {
        enum Item { case time(Int), event(Int64) }
        var items: [(span: ClosedRange<Date>, item: Item)] = events.map { ($0.span, .event($0.event)) }
        items += times.enumerated().map { ($0.element...$0.element, .time($0.offset)) }
        items.sort { $0.span.lowerBound != $1.span.lowerBound ? $0.span.lowerBound < $1.span.lowerBound : $0.span.upperBound < $1.span.upperBound }
        var joined: [(Int, Int64)] = [], new: [[Int]] = []
        var run: [(span: ClosedRange<Date>, item: Item)] = []
        func close() {
            let spans = run.compactMap { entry -> (Int64, ClosedRange<Date>)? in
                if case .event(let key) = entry.item { return (key, entry.span) } else { return nil }
            }
            let indices = run.compactMap { entry -> Int? in if case .time(let index) = entry.item { return index } else { return nil } }
            if spans.isEmpty {
                if !indices.isEmpty { new.append(indices) }
            } else {
                for index in indices {
                    let time = times[index]
                    func distance(_ span: ClosedRange<Date>) -> TimeInterval {
                        max(0, span.lowerBound.timeIntervalSince(time), time.timeIntervalSince(span.upperBound))
                    }
                    joined.append((index, spans.min { distance($0.1) < distance($1.1) }!.0))
                }
            }
            run = []
        }
        var end = Date.distantPast
        for entry in items {
            if !run.isEmpty && entry.span.lowerBound.timeIntervalSince(end) > gap { close() }
            end = run.isEmpty ? entry.span.upperBound : max(end, entry.span.upperBound)
            run.append(entry)
        }
        close()
        return (joined, new)
    }
}
