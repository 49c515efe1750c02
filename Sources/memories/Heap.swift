import Foundation

// How the program sets up glibc's heap before it does anything else.

/// Buffers over 1 MB (a photo's bytes, a decoder's image) are mapped for themselves and given back
/// to the system when freed. By default glibc raises that threshold up to 32 MB as such buffers are
/// freed, and then keeps up to twice as much free memory in each thread's heap: with two import
/// workers and the saving thread, ~100 MB more peak memory, none of it in use (docs/performance.md).
func boundHeapRetention() {
    // mallopt is in malloc.h, which the Glibc module does not import; M_MMAP_THRESHOLD is -3.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    _ = mallopt(-3, 1 << 20)
}

/// An import runs again at once with glibc's `glibc.malloc.hugetlb=1` tunable (read from the
/// environment only as a program starts, hence the re-exec): glibc then asks for transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`) for the large buffers it maps, the decoders' among them (a
/// progressive JPEG's coefficients, zeroed by libjpeg: ~950 MB over the benchmark corpus). Minor
/// page faults 330,000 -> 95,000 and the import 6-7% faster (docs/performance.md). Nothing else
/// changes: the same program, arguments, open files and process id.
///
/// Skipped when GLIBC_TUNABLES already names the tunable (set either way: the user's choice, and
/// what keeps this from running twice), when the system never gives transparent huge pages, and
/// for every other command (a re-exec costs ~10 ms). If the exec fails, the import goes on as it is.
func reexecWithHugePagesForImport() {
    var args = CommandLine.arguments.dropFirst()
    while let first = args.first, first.hasPrefix("--library") {
        args.removeFirst()
        if first == "--library" { args = args.dropFirst() }
    }
    guard args.first == "import" else { return }
    let key = "glibc.malloc.hugetlb"
    let tunables = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? ""
    guard !tunables.contains(key),
          let mode = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
          !mode.contains("[never]") else { return }
    setenv("GLIBC_TUNABLES", tunables.isEmpty ? "\(key)=1" : "\(tunables):\(key)=1", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
}
