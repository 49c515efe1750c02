import Foundation

// How the program sets up glibc's heap before it does anything else.

/// Buffers over 1 MB (a photo's bytes, a decoder's image) are mapped for themselves and given back
/// to the system when freed. By default glibc raises that threshold up to 32 MB as such buffers are
/// freed, and then keeps up to twice as much free memory in each thread's heap: with two import
/// workers and the saving thread, ~100 MB more peak memory, none of it in use (docs/performance.md).
func boundHeapRetention() {
    // M_MMAP_THRESHOLD is -3.
    _ = glibc("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self)?(-3, 1 << 20)
}

/// Whether this process is the import's second start (see `reexecWithHugePagesForImport`).
nonisolated(unsafe) var heapReexecuted = false

/// An import runs again at once with glibc's `glibc.malloc.hugetlb=1` tunable (read from the
/// environment only as a program starts, hence the re-exec): glibc then asks for transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`) for the large buffers it maps, the decoders' among them (a
/// progressive JPEG's coefficients, zeroed by libjpeg: ~950 MB over the benchmark corpus). Minor
/// page faults 330,000 -> 95,000 and the import 6-7% faster (docs/performance.md). Nothing else
/// changes: the same program, arguments, open files (none yet) and process id.
///
/// Skipped when GLIBC_TUNABLES already names the tunable (the user's choice), when the system
/// never gives transparent huge pages, for every other command (a re-exec costs ~10 ms), when the
/// program runs with privileges (setuid, setgid or file capabilities: glibc then drops the tunable,
/// so it would never be seen to be set) and when it was started by naming the dynamic loader
/// (`ld.so memories …`: /proc/self/exe is the loader then). MEMORIES_HEAP_REEXEC marks the second
/// start, so there is never a third; if the exec fails, the import goes on as it is, with the
/// environment as it was.
func reexecWithHugePagesForImport() {
    let marker = "MEMORIES_HEAP_REEXEC"
    if getenv(marker) != nil {
        unsetenv(marker)
        heapReexecuted = true
        return
    }
    let leading = LeadingOptions(CommandLine.arguments.dropFirst())
    guard !leading.libraryLacksFolder, leading.rest.first == "import", auxiliaryValue(23 /* AT_SECURE */) == 0, auxiliaryValue(7 /* AT_BASE */) != 0 else { return }
    let key = "glibc.malloc.hugetlb"
    let previous = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"]
    let tunables = previous ?? ""
    guard !tunables.contains(key),
          let mode = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
          !mode.contains("[never]") else { return }
    setenv("GLIBC_TUNABLES", tunables.isEmpty ? "\(key)=1" : "\(tunables):\(key)=1", 1)
    setenv(marker, "1", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
    // Still here: the exec failed (no /proc, a sandbox that forbids it).
    unsetenv(marker)
    if let previous { setenv("GLIBC_TUNABLES", previous, 1) } else { unsetenv("GLIBC_TUNABLES") }
}

/// getauxval(3); nil if it cannot be found.
private func auxiliaryValue(_ type: UInt) -> UInt? {
    glibc("getauxval", as: (@convention(c) (UInt) -> UInt).self)?(type)
}

/// A C library function whose header (malloc.h, sys/auxv.h) the Glibc module does not import,
/// looked up by name; nil if it cannot be found.
private func glibc<F>(_ name: String, as type: F.Type) -> F? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: F.self) }
}
