/// The journal's version: `memories --version`.
public enum MemoriesVersion {
    public static let string = "0.5.0"
}
