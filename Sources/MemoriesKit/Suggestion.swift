/// "Did you mean": the candidate closest to a mistyped word, when it is close enough to be meant
/// (an edit distance of at most a third of the word, and at most 2).
public enum Suggestion {
    /// The nearest candidate to `word` (case ignored) if it is close enough; nil otherwise.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = min(2, max(1, word.count / 3))
        return candidates
            .map { ($0, distance(word.lowercased(), $0.lowercased())) }
            .filter { $0.1 <= limit }
            .min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[a.count][b.count]
    }
}
