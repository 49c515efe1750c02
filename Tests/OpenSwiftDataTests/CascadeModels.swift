import Foundation
import OpenSwiftData

// Models for the set-based cascades (CascadeTests): three levels, external storage at the
// bottom, a nullified relationship beside them, a `.deny` below a cascade, a to-one cascade,
// a many-to-many cascade and a ring.

@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Box.shelf) var boxes: [Box] = []
    init(name: String) { self.name = name }
}

@Model final class Box {
    var name: String
    var shelf: Shelf?
    @Relationship(deleteRule: .cascade, inverse: \BoxItem.box) var items: [BoxItem] = []
    init(name: String) { self.name = name }
}

@Model final class BoxItem {
    var name: String
    @Attribute(.externalStorage) var scan: Data?
    var box: Box?
    var tag: Tag?
    init(name: String, scan: Data?) {
        self.name = name
        self.scan = scan
    }
}

@Model final class Tag {
    var name: String
    @Relationship(inverse: \BoxItem.tag) var items: [BoxItem] = []
    init(name: String) { self.name = name }
}

@Model final class Vault {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Safe.vault) var safes: [Safe] = []
    init(name: String) { self.name = name }
}

@Model final class Safe {
    var name: String
    var vault: Vault?
    @Relationship(deleteRule: .deny, inverse: \SafeKey.safe) var keys: [SafeKey] = []
    init(name: String) { self.name = name }
}

@Model final class SafeKey {
    var name: String
    var safe: Safe?
    var keyring: Keyring?
    init(name: String) { self.name = name }
}

/// Cascades to keys that a `Safe` denies deleting while it holds them.
@Model final class Keyring {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \SafeKey.keyring) var keys: [SafeKey] = []
    init(name: String) { self.name = name }
}

@Model final class Ticket {
    var name: String
    @Relationship(deleteRule: .cascade) var stub: Stub?
    init(name: String) { self.name = name }
}

@Model final class Stub {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class Playlist {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Song.playlists) var songs: [Song] = []
    init(name: String) { self.name = name }
}

@Model final class Song {
    var name: String
    var playlists: [Playlist] = []
    init(name: String) { self.name = name }
}

/// Each node cascades to the next; the last points back to the first.
@Model final class RingNode {
    var name: String
    @Relationship(deleteRule: .cascade) var next: RingNode?
    init(name: String) { self.name = name }
}
