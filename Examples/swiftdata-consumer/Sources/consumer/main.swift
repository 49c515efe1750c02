// Model code as a SwiftData app writes it, importing only SwiftData.
import Foundation
import SwiftData

@Model
final class Trip {
    #Unique<Trip>([\.name])
    var name: String
    var start: Date
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

@Model
final class Stop {
    var place: String
    var trip: Trip?

    init(place: String) { self.place = place }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let container = try ModelContainer(for: Trip.self, Stop.self,
                                   configurations: ModelConfiguration(url: folder.appendingPathComponent("trips.store")))
let context = ModelContext(container)
let trip = Trip(name: "Rome", start: Date(timeIntervalSince1970: 1_717_200_000))
context.insert(trip)
for place in ["Colosseum", "Pantheon"] {
    let stop = Stop(place: place)
    context.insert(stop)
    stop.trip = trip
}
try context.save()

let reader = ModelContext(container)
let trips = try reader.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("Ro") }, sortBy: [SortDescriptor(\.start)]))
guard trips.count == 1, trips[0].stops.map(\.place).sorted() == ["Colosseum", "Pantheon"] else {
    print("consumer: unexpected \(trips.map(\.name))")
    exit(1)
}
print("consumer: ok, \(trips[0].name) with \(trips[0].stops.count) stops")
