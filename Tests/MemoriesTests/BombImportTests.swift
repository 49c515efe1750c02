import Foundation
import Imaging
import Testing

/// Fixtures/bombs/ through the program as a user runs it: every bomb imports or is refused naming
/// its limit, in a process whose peak memory stays under 200 MB, and so does a gallery's export,
/// which decodes it again for its previews. A re-encoded copy holds its pixels at full size (3 bytes
/// a pixel, within the 100 MP limit) on top of that, whatever the file's frames. Times are measured
/// in docs/reliability.md, not asserted here.
@Suite struct BombImportTests {
    static let bombs = packageRoot.appendingPathComponent("Fixtures/bombs")
    static let expectations: [(file: String, outcome: [String])] = {
        let text = (try? String(contentsOf: bombs.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map {
            let parts = $0.split(separator: "\t")
            return (String(parts[0]), parts[1].split(separator: " ").map(String.init))
        }
    }()
    static let limit = 200 << 20

    @Test(arguments: expectations.map(\.file))
    func aBombImportsOrIsRefusedInBoundedMemory(_ file: String) throws {
        let outcome = try #require(Self.expectations.first { $0.file == file }).outcome
        let sandbox = Sandbox()
        let folder = sandbox.copy(Self.bombs.appendingPathComponent(file), to: "in/\(file)").deletingLastPathComponent()
        let imported = try sandbox.measured(["import", folder.path, "--title", "Bomb"])
        #expect(imported.peakBytes < Self.limit, "\(file): import peaked at \(imported.peakBytes >> 20) MB")
        if outcome == ["ok"] {
            #expect(imported.status == 0, "\(file): \(imported.stderr)")
            let info = try Imaging.probe(try Data(contentsOf: Self.bombs.appendingPathComponent(file)))
            let fullSize = info.width * info.height * 3
            for export in [["--html"], ["--format", "jpeg"], ["--strip-metadata"]] {
                let out = sandbox.url.appendingPathComponent("export-\(export.joined())")
                let run = try sandbox.measured(["export", "Bomb", out.path] + export)
                let limit = Self.limit + (export == ["--html"] ? 0 : fullSize)
                #expect(run.peakBytes < limit, "\(file) \(export): peaked at \(run.peakBytes >> 20) MB")
                if export == ["--format", "jpeg"] && max(info.width, info.height) > Imaging.jpegLargestSide {
                    #expect(run.status == 1)
                    #expect(run.stderr.contains("\(file) could not be converted and was not exported: a JPEG holds at most 65500 pixels a side, and this image is \(info.width)x\(info.height) (export it with --format png, or smaller with --max-size 65500)"), "\(run.stderr)")
                } else {
                    #expect(run.status == 0, "\(file) \(export): \(run.stderr)")
                }
            }
        } else {
            #expect(imported.status == 2, "\(file): \(imported.stderr)")
            #expect(imported.stderr.contains("rejected \(folder.path)/\(file): "), "\(imported.stderr)")
            #expect(imported.stderr.contains(" limit"), "\(imported.stderr)")
            #expect(imported.stderr.contains(outcome[1]), "\(imported.stderr)")
        }
    }
}
