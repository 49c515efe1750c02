// Model code as an Xcode 26 app target writes it: the module isolated to the main actor by
// default, the Swift 5 language mode, importing only SwiftData. Built with warnings as errors: the
// code the macros generate here must build without one.
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

let container = try ModelContainer(for: Trip.self, Stop.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = container.mainContext
let trip = Trip(name: "Rome", start: Date(timeIntervalSince1970: 1_717_200_000))
context.insert(trip)
trip.stops.append(Stop(place: "Colosseum"))
try context.save()

let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("Ro") }, sortBy: [SortDescriptor(\.start)]))
guard trips.map(\.name) == ["Rome"], trips[0].stops.map(\.place) == ["Colosseum"] else {
    print("consumer-main-actor: unexpected \(trips.map(\.name))")
    exit(1)
}
print("consumer-main-actor: ok, \(trips[0].name) with \(trips[0].stops.count) stop")
