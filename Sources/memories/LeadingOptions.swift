/// The options before the command name: `--library DIR` or `--library=DIR`, any number of times
/// (the last wins). After the name, `--library` is one of every command's options, parsed with
/// them (so it is never taken out of another option's value).
///
/// Read by `run`, and before anything else by the import's re-exec (`Heap.swift`), which must
/// know the command's name before the program has parsed anything.
struct LeadingOptions {
    /// The folder given, if any.
    var library: String?
    /// The words from the command's name on.
    var rest: ArraySlice<String>
    /// `--library` with no folder: nothing, an empty word or an option after it, or `--library=` alone.
    var libraryLacksFolder = false

    init(_ words: ArraySlice<String>) {
        rest = words
        while let first = rest.first, first == "--library" || first.hasPrefix("--library=") {
            rest.removeFirst()
            guard first == "--library" else {
                library = String(first.dropFirst("--library=".count))
                // `--library=` with nothing (a script's unset variable) is not the working folder.
                if library!.isEmpty { libraryLacksFolder = true; return }
                continue
            }
            // `--library ""` (a script's unset variable, quoted) is not the working folder either.
            guard let folder = rest.first, !folder.isEmpty, !folder.hasPrefix("--") else {
                libraryLacksFolder = true
                return
            }
            library = folder
            rest.removeFirst()
        }
    }
}
