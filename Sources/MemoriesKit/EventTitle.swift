import Foundation

/// The title of an event, from its first and last day in `zone`: "12 May 2024",
/// "12-14 May 2024", "30 May - 2 Jun 2024", "30 Dec 2024 - 2 Jan 2025". Month names are
/// English abbreviations whatever the locale, so titles do not change with it.
enum EventTitle {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func of(_ first: Date, _ last: Date, zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let a = calendar.dateComponents([.year, .month, .day], from: first)
        let b = calendar.dateComponents([.year, .month, .day], from: last)
        let (y1, m1, d1) = (a.year ?? 1, months[(a.month ?? 1) - 1], a.day ?? 1)
        let (y2, m2, d2) = (b.year ?? 1, months[(b.month ?? 1) - 1], b.day ?? 1)
        if y1 != y2 { return "\(d1) \(m1) \(y1) - \(d2) \(m2) \(y2)" }
        if m1 != m2 { return "\(d1) \(m1) - \(d2) \(m2) \(y1)" }
        if d1 != d2 { return "\(d1)-\(d2) \(m1) \(y1)" }
        return "\(d1) \(m1) \(y1)"
    }
}
