import Foundation
import Testing
import OpenSwiftData

@Suite struct ManyToManyTests {
    @Test func bothSidesAreKeptInAJoinTableAndReloaded() throws {
        let dir = TemporaryDirectory()
        do {
            let c = try container(Article.self, Label.self, at: dir.store())
            let context = c.mainContext
            let swift = Label(name: "swift"), linux = Label(name: "linux")
            let a = Article(title: "A"), b = Article(title: "B")
            context.insert(a)
            context.insert(b)
            a.labels = [swift, linux]
            linux.articles.append(b)
            #expect(swift.articles.map(\.title) == ["A"])
            #expect(b.labels.map(\.name) == ["linux"])
            try context.save()
        }
        let c = try container(Article.self, Label.self, at: dir.store())
        let context = c.mainContext
        let labels = try context.fetch(FetchDescriptor<Label>(sortBy: [SortDescriptor(\.name)]))
        #expect(labels.map { $0.articles.map(\.title).sorted() } == [["A", "B"], ["A"]])
        let withLinux = try context.fetch(FetchDescriptor<Article>(
            predicate: #Predicate { $0.labels.contains { $0.name == "linux" } }, sortBy: [SortDescriptor(\.title)]))
        #expect(withLinux.map(\.title) == ["A", "B"])
        #expect(try context.fetchCount(FetchDescriptor<Article>(predicate: #Predicate { $0.labels.count == 2 })) == 1)
        // Removing from one side removes the link for both.
        let a = try #require(withLinux.first)
        a.labels.removeAll { $0.name == "swift" }
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM \"_Article_labels__Label_articles\"") == "2")
        // Deleting a model removes its links (nullify), not the other side's models.
        context.delete(labels[0])
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM \"_Article_labels__Label_articles\"") == "0")
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Article") == "2")
    }
}
