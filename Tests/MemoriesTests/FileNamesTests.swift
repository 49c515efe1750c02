import Foundation
@testable import MemoriesKit
import Testing

/// Export names safe for any medium (RemovableMediaTests writes them to real exFAT and FAT32).
@Suite struct FileNamesTests {
    @Test func namesAreSafeForWindowsExFATAndFAT() {
        var names = FileNames()
        #expect(names.claim("a:b.jpg") == "a_b.jpg")
        #expect(names.claim("say \"cheese\"? <now> | * .jpg") == "say _cheese__ _now_ _ _.jpg")
        #expect(names.claim("CON.jpg") == "CON_.jpg" && names.claim("lpt9.tar.gz") == "lpt9_.tar.gz" && names.claim("console.jpg") == "console.jpg")
        #expect(names.claim("trailing. . ") == "trailing")
        #expect(names.claim("Case.jpg") == "Case.jpg" && names.claim("case.JPG") == "case (2).JPG", "case ignored, as exFAT and FAT do")
        #expect(names.claim("\u{E9}t\u{E9}.jpg") == "\u{E9}t\u{E9}.jpg" && names.claim("e\u{301}te\u{301}.jpg") == "e\u{301}te\u{301} (2).jpg",
                "composed and decomposed forms are one name where normalization is ignored")
        #expect(names.claim("σάμος.jpg") == "σάμος.jpg" && names.claim("ΣΆΜΟΣ.jpg") == "ΣΆΜΟΣ (2).jpg", "final sigma and sigma are one letter to exFAT")
        #expect(names.claim("\u{1FB3}.jpg") == "\u{1FB3}.jpg" && names.claim("\u{1FBC}.jpg") == "\u{1FBC} (2).jpg", "ᾳ and ᾼ are one letter to exFAT's upcase table")
        #expect(names.claim("I\u{307}stanbul.jpg") == "I\u{307}stanbul.jpg" && names.claim("i\u{307}stanbul.jpg") == "i\u{307}stanbul (2).jpg",
                "an I or an i before a combining dot: one name to exFAT, and to APFS")
        #expect(names.claim("\u{130}stanbul.jpg") == "\u{130}stanbul (3).jpg", "and İ composed is the same to APFS")
        #expect(names.claim("COM0.jpg") == "COM0_.jpg" && names.claim("conin$.png") == "conin$_.png" && { var fresh = FileNames(); return fresh.claim("CON .jpg") }() == "CON_.jpg")
        let long = String(repeating: "a", count: 179)
        #expect(names.claim(long + ".bbbbbbbbbbbbbbbbbbbb") == String(repeating: "a", count: 179), "cut, and no dot left at its end")
        #expect(!names.claim(long + " cccccccccccccccccccc").hasSuffix(" "))
    }

    @Test func aPlainFormIsGivenForANameAMediumRefuses() {
        var names = FileNames()
        #expect(names.plain(for: "été.jpg") == "ete.jpg")
        #expect(names.plain(for: "東京.jpg") == "dong jing.jpg")
        #expect(names.plain(for: "Ærø ß.jpg") == "AEro ss.jpg")
        #expect(names.plain(for: "😀.jpg") == "_.jpg")
        #expect(names.plain(for: "plain.jpg") == nil, "an ASCII name has no other form")
        #expect(names.plain(for: "ète.jpg") == "ete (2).jpg", "claimed like any other")
    }
}

/// exFAT's own up-case table, read from a volume Debian's mkfs.exfat made (exfat-fuse ignores
/// case, so a FUSE mount cannot show which names a Windows, macOS or Linux kernel driver takes
/// for one): every two characters of the Basic Multilingual Plane the table makes one letter are
/// one to `FileNames`. Full upper-casing missed ᾳ and ᾼ (second outside attack).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.exfat"), "needs mkfs.exfat (exfatprogs; scripts/setup.sh --tests)"))
struct ExFATUpcaseTableTests {
    /// The volume's up-case table: for each UTF-16 unit, the unit it compares as.
    static func upcaseTable(ofVolume image: URL) throws -> [UInt16] {
        let volume = try Data(contentsOf: image)
        func le<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            volume[offset..<(offset + MemoryLayout<T>.size)].reversed().reduce(T(0)) { $0 << 8 | T($1) }
        }
        let sectorShift = Int(volume[108]), clusterShift = Int(volume[109])
        let heap = Int(le(88, UInt32.self)), root = Int(le(96, UInt32.self))
        func offset(ofCluster cluster: Int) -> Int { (heap + (cluster - 2) << clusterShift) << sectorShift }
        // The root folder's entries: 0x82 is the up-case table's (first cluster at 20, length at 24).
        var entry = offset(ofCluster: root)
        while volume[entry] != 0x82 {
            entry += 32
            guard volume[entry] != 0 else { throw CocoaError(.fileReadCorruptFile) }
        }
        let start = offset(ofCluster: Int(le(entry + 20, UInt32.self))), length = Int(le(entry + 24, UInt64.self))
        // Compressed: 0xFFFF then a count of characters that map to themselves.
        var table: [UInt16] = [], i = start
        while i < start + length && table.count < 65536 {
            let value: UInt16 = le(i, UInt16.self)
            if value == 0xFFFF {
                let run = Int(le(i + 2, UInt16.self))
                table += (table.count..<min(65536, table.count + run)).map { UInt16($0) }
                i += 4
            } else {
                table.append(value)
                i += 2
            }
        }
        table += (table.count..<65536).map { UInt16($0) }
        return table
    }

    @Test func everyTwoCharactersExFATTakesForOneAreOneName() throws {
        let box = Sandbox()
        let image = box.url.appendingPathComponent("exfat.img")
        #expect(FileManager.default.createFile(atPath: image.path, contents: nil) && truncate(image.path, 8 << 20) == 0)
        #expect(try RemovableMediaTests.tool("/usr/sbin/mkfs.exfat", [image.path]).status == 0)
        let table = try Self.upcaseTable(ofVolume: image)
        #expect(table[0x61] == 0x41 && table[0x3C2] == 0x3A3 && table[0x1FB3] == 0x1FBC, "a, final sigma, alpha with ypogegrammeni")
        var groups: [UInt16: [Unicode.Scalar]] = [:]
        for unit in 0..<65536 {
            guard let scalar = Unicode.Scalar(unit) else { continue }
            groups[table[unit], default: []].append(scalar)
        }
        // Each letter alone and before each combining diacritical mark (U+0300–036F): exFAT
        // compares unit by unit, and NFC composed "I" and a combining dot, but not "i" and one.
        var missed: [String] = []
        for scalars in groups.values where scalars.count > 1 {
            for mark in [""] + (0x300...0x36F).map({ String(Unicode.Scalar($0)!) }) {
                var names = FileNames()
                let first = String(scalars[0]) + mark + ".jpg"
                _ = names.claim(first)
                for other in scalars.dropFirst() where names.claim(String(other) + mark + ".jpg") == String(other) + mark + ".jpg" {
                    missed.append((String(other) + mark).unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") + " after " + first)
                }
            }
        }
        #expect(missed.isEmpty, "one name to exFAT, written as two: \(missed.count) \(missed.prefix(10))")
        #expect(groups.count < 65000, "the table folds case")
    }
}
