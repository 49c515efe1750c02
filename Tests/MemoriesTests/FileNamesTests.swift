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
