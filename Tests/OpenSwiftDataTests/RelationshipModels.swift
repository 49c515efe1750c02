import Foundation
import OpenSwiftData

@Model final class Owner {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \Pet.owner) var pets: [Pet] = []
    init(name: String) { self.name = name }
}

@Model final class Pet {
    var name: String
    var owner: Owner?
    init(name: String) { self.name = name }
}

/// Self-referencing, with a recursive cascade.
@Model final class Folder {
    var name: String
    var parent: Folder?
    @Relationship(deleteRule: .cascade, inverse: \Folder.parent) var children: [Folder] = []
    init(name: String, parent: Folder? = nil) {
        self.name = name
        self.parent = parent
    }
}

@Model final class Author {
    var name: String
    @Relationship(deleteRule: .noAction) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var author: Author?
    init(title: String) { self.title = title }
}

/// Many-to-many.
@Model final class Article {
    var title: String
    @Relationship(inverse: \Label.articles) var labels: [Label] = []
    init(title: String) { self.title = title }
}

@Model final class Label {
    var name: String
    var articles: [Article] = []
    init(name: String) { self.name = name }
}
