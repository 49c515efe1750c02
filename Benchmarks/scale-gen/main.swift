// scale-gen: a synthetic lifetime library, for scripts/bench-scale.sh.
//
//   scale-gen LIBRARY PHOTOS MEMORIES [BIG=5000] [TITLE="Big memory"]
//
// Makes MEMORIES memories holding PHOTOS photos in all, through the journal's own models: each
// photo is a MemoryImage whose original and thumbnail are small distinct byte strings stored by
// OpenSwiftData's external storage (so the blob files, the rows, the search index and the store's
// identity are exactly what imports make), without decoding anything. The first memory, "Big
// memory" (or TITLE), holds BIG photos; the others share the rest. Run on an existing library, it
// adds to it (with other bytes: the photos are numbered after the ones there). Titles, notes and file names draw on a word
// list so that `list --search` has something to find; dates span 1995–2025.
import BlobStore
import Foundation
import MemoriesKit
import OpenSwiftData

let args = CommandLine.arguments
guard args.count >= 4, let photos = Int(args[2]), let memories = Int(args[3]), memories > 0, photos >= memories else {
    FileHandle.standardError.write(Data("usage: scale-gen LIBRARY PHOTOS MEMORIES [BIG=5000]\n".utf8))
    exit(64)
}
let big = min(args.count > 4 ? Int(args[4]) ?? 5000 : 5000, photos - (memories - 1))
let bigTitle = args.count > 5 ? args[5] : "Big memory"
let library = try Library(directory: URL(fileURLWithPath: args[1]), create: true)
let context = library.context
let words = ["beach", "mountain", "birthday", "garden", "city", "harbour", "snow", "forest", "market", "concert",
             "wedding", "river", "sunset", "museum", "train", "picnic", "rome", "lisbon", "oslo", "kyoto"]
var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
func nextRandom() -> UInt64 {
    seed ^= seed >> 12; seed ^= seed << 25; seed ^= seed >> 27
    return seed &* 2_685_821_657_736_338_717
}
func word() -> String { words[Int(nextRandom() % UInt64(words.count))] }

let start = Date()
let span = 30.0 * 365 * 86_400, first = Date(timeIntervalSince1970: 788_918_400)  // 1995-01-01
// Numbered after the photos already there, so that every original is new.
var photo = try context.fetchCount(FetchDescriptor<MemoryImage>())
let existing = photo
for m in 0..<memories {
    let count = m == 0 ? big : (photos - big) / (memories - 1) + (m - 1 < (photos - big) % (memories - 1) ? 1 : 0)
    let day = first.addingTimeInterval(Double(nextRandom() % UInt64(span)))
    let title = m == 0 ? bigTitle : "\(word().capitalized) \(word()) \(m)"
    let memory = Memory(title: title, date: day, notes: "\(word()) and \(word()) with friends")
    context.insert(memory)
    for _ in 0..<count {
        photo += 1
        // A few hundred bytes, distinct per photo: the original; the thumbnail likewise.
        var bytes = Data("scale-gen photo \(photo) ".utf8)
        for _ in 0..<24 { withUnsafeBytes(of: nextRandom()) { bytes.append(contentsOf: $0) } }
        let thumbnail = Data("scale-gen thumbnail \(photo)".utf8)
        let image = MemoryImage(filename: "IMG_\(photo)_\(word()).jpg", sha256: SHA256.digest(bytes).hex,
                                format: "jpeg", width: 4032, height: 3024, byteCount: bytes.count)
        image.imageData = bytes
        image.thumbnailData = thumbnail
        image.takenAt = day.addingTimeInterval(Double(nextRandom() % 86_400))
        image.takenAtOffset = 3600
        context.insert(image)
        image.memory = memory
        if (photo - existing) % 5000 == 0 {
            try context.save()
            let rate = Double(photo) / Date().timeIntervalSince(start)
            FileHandle.standardError.write(Data("\r\(photo - existing)/\(photos) photos, \(m + 1)/\(memories) memories, \(Int(rate))/s   ".utf8))
        }
    }
}
try context.save()
FileHandle.standardError.write(Data("\n".utf8))
print("made \(photos) photos in \(memories) memories (the first with \(big)) in \(String(format: "%.0f", Date().timeIntervalSince(start))) s")
