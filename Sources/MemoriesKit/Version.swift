/// The journal's version: `memories --version`.
public enum MemoriesVersion {
    /// The version number.
    public static let string = "0.6.0"
    /// "memories 0.6.0": the `generator` of every JSON object the journal writes.
    public static let generator = "memories \(string)"
}
