import Foundation
import SwiftData

// This module's default isolation is the main actor (Xcode 26's default for new app targets), in
// the Swift 6 language mode with warnings as errors: the code `@Model`, `#Unique` and `#Index`
// generate must build here without a diagnostic.

/// Isolated to the main actor by the module's default, as an app's models are.
@Model final class Trip {
    #Unique<Trip>([\.name])
    #Index<Trip>([\.start])
    var name: String
    var start: Date
    var created = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute(.externalStorage) var cover: Data?
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

@Model final class Stop {
    var title: String
    var trip: Trip?
    /// Implicitly unwrapped, as some apps declare optionals.
    var subtitle: String!
    init(title: String) { self.title = title }
}

/// `nonisolated`, as Foundation needs for `#Predicate` and `SortDescriptor`: their key paths must be
/// `Sendable`, and a key path to a main-actor property is not (the same with Apple's Foundation:
/// swiftlang/swift-foundation#1845). A background `@ModelActor` can make these too.
@Model nonisolated final class Note {
    var text: String
    var rank: Int
    init(text: String, rank: Int) {
        self.text = text
        self.rank = rank
    }
}

@ModelActor actor NoteImporter {
    func add(_ texts: [String]) throws -> [PersistentIdentifier] {
        let notes = texts.enumerated().map { Note(text: $1, rank: $0) }
        notes.forEach(modelContext.insert)
        try modelContext.save()
        return notes.map(\.persistentModelID)
    }
}
