import Foundation

/// What one save changed, gathered while it writes and stored as one row of `_osd_history`
/// (`HistoryStore.record`), its changes packed in a blob (`encoded`). A row per change would
/// double the cost of an insert (callgrind: a TEMP trigger per row made `insertModels` 2.3 times
/// as many instructions), and JSON text cost 4,400 instructions a change; the packed form costs
/// tens.
///
/// Every row the save writes is in it: inserted and updated models, deleted models and the rows a
/// cascade deletes without loading them, the rows SQLite's `ON DELETE SET NULL` updates (found
/// before the delete), and owners whose many-to-many links were rewritten. Updates of one row
/// are merged.
/// Used by one save, on one thread: its stored properties are `@exclusivity(unchecked)`.
final class HistoryLog {
    enum Kind: UInt8 { case insert = 0, update = 1, delete = 2 }

    struct Entry {
        let kind: Kind
        /// Index into `names`.
        let entity: UInt16
        let key: Int64
        /// Indexes into `names`.
        var attributes: [UInt16]
    }

    /// Entity and property names, each once.
    @exclusivity(unchecked) private(set) var names: [String] = []
    @exclusivity(unchecked) private var nameIndex: [String: UInt16] = [:]
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
    /// The preserved values of deleted rows: entry index, property name, stored value.
    @exclusivity(unchecked) private(set) var tombstones: [(entry: Int, property: String, value: SQLiteValue)] = []
    @exclusivity(unchecked) private var updates: [UInt16: [Int64: Int]] = [:]
    @exclusivity(unchecked) private var lastEntity: Schema.Entity?
    @exclusivity(unchecked) private var lastEntityIndex: UInt16 = 0

    var isEmpty: Bool { entries.isEmpty }

    private func index(of name: String) -> UInt16 {
        if let index = nameIndex[name] { return index }
        let index = UInt16(truncatingIfNeeded: names.count)
        names.append(name)
        nameIndex[name] = index
        return index
    }

    /// The entity's name index (inserts come in runs of one entity: the last one is kept).
    private func index(of entity: Schema.Entity) -> UInt16 {
        if entity === lastEntity { return lastEntityIndex }
        lastEntity = entity
        lastEntityIndex = index(of: entity.name)
        return lastEntityIndex
    }

    func insert(_ entity: Schema.Entity, key: Int64) {
        entries.append(Entry(kind: .insert, entity: index(of: entity), key: key, attributes: []))
    }

    /// An update of `attributes`, merged with an earlier update of the same row in this save.
    func update(_ entity: Schema.Entity, key: Int64, attributes: [String]) {
        let entityIndex = index(of: entity)
        let indexes = attributes.map { index(of: $0) }
        if let entry = updates[entityIndex]?[key] {
            for attribute in indexes where !entries[entry].attributes.contains(attribute) { entries[entry].attributes.append(attribute) }
            return
        }
        updates[entityIndex, default: [:]][key] = entries.count
        entries.append(Entry(kind: .update, entity: entityIndex, key: key, attributes: indexes))
    }

    /// A delete, with the values of its `.preserveValueOnDeletion` properties as stored.
    func delete(_ entity: Schema.Entity, key: Int64, preserved: [(String, SQLiteValue)]) {
        for (property, value) in preserved { tombstones.append((entries.count, property, value)) }
        entries.append(Entry(kind: .delete, entity: index(of: entity), key: key, attributes: []))
    }

    // MARK: Stored form

    /// Version 1, little-endian: the names (count UInt16; each a UInt16 byte length and UTF-8),
    /// then the entries (count UInt32; each kind UInt8, entity UInt16, key Int64, attribute count
    /// UInt16 and that many UInt16 name indexes).
    var encoded: Data {
        let nameBytes = names.map { Array($0.utf8) }
        let size = 1 + 2 + nameBytes.reduce(0) { $0 + 2 + $1.count } + 4
            + entries.reduce(0) { $0 + 13 + 2 * $1.attributes.count }
        var out = Data(count: size)
        out.withUnsafeMutableBytes { buffer in
            var offset = 0
            func put<T: FixedWidthInteger>(_ value: T) {
                buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
                offset += MemoryLayout<T>.size
            }
            put(UInt8(1))
            put(UInt16(truncatingIfNeeded: names.count))
            for bytes in nameBytes {
                put(UInt16(truncatingIfNeeded: bytes.count))
                for byte in bytes { put(byte) }
            }
            put(UInt32(truncatingIfNeeded: entries.count))
            for entry in entries {
                put(entry.kind.rawValue)
                put(entry.entity)
                put(UInt64(bitPattern: entry.key))
                put(UInt16(truncatingIfNeeded: entry.attributes.count))
                for attribute in entry.attributes { put(attribute) }
            }
        }
        return out
    }

    /// The changes `encoded` stored, or nil when the bytes are not such a record (cut short, another version).
    static func decode(_ data: Data) -> [(kind: Kind, entity: String, key: Int64, attributes: [String])]? {
        var reader = Reader(bytes: [UInt8](data))
        guard reader.read(UInt8.self) == 1, let nameCount = reader.read(UInt16.self) else { return nil }
        var names: [String] = []
        for _ in 0..<nameCount {
            guard let length = reader.read(UInt16.self), let bytes = reader.bytes(Int(length)) else { return nil }
            names.append(String(decoding: bytes, as: UTF8.self))
        }
        guard let count = reader.read(UInt32.self), Int(count) <= reader.remaining / 13 else { return nil }
        var changes: [(kind: Kind, entity: String, key: Int64, attributes: [String])] = []
        changes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let rawKind = reader.read(UInt8.self), let kind = Kind(rawValue: rawKind),
                  let entity = reader.read(UInt16.self), Int(entity) < names.count,
                  let key = reader.read(UInt64.self), let attributeCount = reader.read(UInt16.self) else { return nil }
            var attributes: [String] = []
            for _ in 0..<attributeCount {
                guard let attribute = reader.read(UInt16.self), Int(attribute) < names.count else { return nil }
                attributes.append(names[Int(attribute)])
            }
            changes.append((kind, names[Int(entity)], Int64(bitPattern: key), attributes))
        }
        return changes
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var remaining: Int { bytes.count - offset }

        mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard remaining >= MemoryLayout<T>.size else { return nil }
            var value: T = 0
            for i in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + i]) << (8 * i) }
            offset += MemoryLayout<T>.size
            return value
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard remaining >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
    }

    /// `[[entry, "property", value], …]`, a blob as `{"blob": "BASE64"}`; nil when there are none.
    var tombstonesJSON: String? {
        guard !tombstones.isEmpty else { return nil }
        let items = tombstones.map { "[\($0.entry),\(Self.quote($0.property)),\(Self.json($0.value))]" }
        return "[" + items.joined(separator: ",") + "]"
    }

    static func json(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let value): return String(value)
        case .real(let value): return value.isFinite ? "\(value)" : "null"
        case .text(let text): return quote(text)
        case .blob(let data): return "{\"blob\":\"\(data.base64EncodedString())\"}"
        }
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
