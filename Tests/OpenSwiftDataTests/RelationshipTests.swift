import Foundation
import Testing
@testable import OpenSwiftData

@Suite struct RelationshipTests {
    func gradebook(_ dir: TemporaryDirectory) throws -> ModelContainer {
        try container(Student.self, Quiz.self, Grade.self, at: dir.store())
    }

    @Test func settingEitherSideMaintainsTheOtherInMemoryAndOnDisk() throws {
        let dir = TemporaryDirectory()
        let context = ModelContext(try gradebook(dir))
        let s = Student(firstname: "Ada", lastname: "L")
        context.insert(s)
        try context.save()
        let g1 = Grade(score: 7)
        g1.student = s  // to-one side
        #expect(s.grades.map(\.id) == [g1.id])
        let g2 = Grade(score: 9)
        s.grades.append(g2)  // to-many side
        #expect(g2.student === s)
        try context.save()
        let rows = try SQLiteProbe(dir.store()).rows("SELECT g.score, s.first_name FROM Grade g JOIN Student s ON s._pk = g.student ORDER BY g.score")
        #expect(rows == [["7", "Ada"], ["9", "Ada"]])
        s.grades.removeAll { $0 === g1 }
        #expect(g1.student == nil)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Grade WHERE student IS NULL") == "1")
    }

    @Test func theSeedsCreateOrUpdateOfAGradeWorks() throws {
        let dir = TemporaryDirectory()
        let c = try gradebook(dir)
        let context = c.mainContext
        let student = Student(firstname: "Ada", lastname: "Lovelace")
        let quiz = Quiz(name: "Quiz 1", points: 10)
        context.insert(student)
        context.insert(quiz)
        try context.save()
        func record(_ score: Int) throws {
            let sId = student.id, qId = quiz.id
            let grades = try context.fetch(FetchDescriptor<Grade>(predicate: #Predicate { grade in
                (grade.student?.id == sId) && (grade.quiz?.id == qId)
            }))
            if grades.isEmpty {
                let g = Grade(score: score)
                g.quiz = quiz
                g.student = student
                quiz.grades.append(g)
                student.grades.append(g)
            } else {
                grades[0].score = score
            }
            try context.save()
        }
        try record(6)
        try record(9)
        #expect(try SQLiteProbe(dir.store()).rows("SELECT score FROM Grade") == [["9"]])
        #expect(student.grades.count == 1 && quiz.grades.count == 1)
    }

    @Test func toManyRelationshipsLoadLazilyInOneQuery() throws {
        let dir = TemporaryDirectory()
        let c = try gradebook(dir)
        do {
            let context = ModelContext(c)
            let s = Student(firstname: "A", lastname: "B")
            context.insert(s)
            for i in 0..<5 { s.grades.append(Grade(score: i)) }
            try context.save()
        }
        let context = ModelContext(c)
        var statements: [String] = []
        context.traceSQL { statements.append($0) }
        let students = try context.fetch(FetchDescriptor<Student>())
        #expect(statements.count == 1)
        #expect(students[0].grades.map(\.score).sorted() == [0, 1, 2, 3, 4])
        #expect(statements.count == 2, "\(statements)")
        #expect(statements[1].contains(#"FROM "Grade" AS t0 WHERE t0."student" = ?"#))
    }

    @Test func walkingARelationshipOfManyFetchedModelsIsNotNPlusOne() throws {
        let dir = TemporaryDirectory()
        let c = try gradebook(dir)
        do {
            let context = ModelContext(c)
            for i in 0..<50 {
                let s = Student(firstname: "s\(i)", lastname: "")
                context.insert(s)
                for j in 0..<3 { s.grades.append(Grade(score: i * 10 + j)) }
            }
            try context.save()
        }
        let context = ModelContext(c)
        var statements = 0
        context.traceSQL { _ in statements += 1 }
        let students = try context.fetch(FetchDescriptor<Student>())
        let total = students.reduce(0) { $0 + $1.grades.count }
        #expect(total == 150)
        #expect(statements == 2, "one fetch and one query for all 50 students' grades")
        let grades = students.flatMap(\.grades)
        let names = Set(grades.compactMap { $0.student?.first_name })
        #expect(names.count == 50)
        #expect(statements == 2, "the grades' students were already in memory")
        let fresh = ModelContext(c)
        var freshStatements = 0
        fresh.traceSQL { _ in freshStatements += 1 }
        let allGrades = try fresh.fetch(FetchDescriptor<Grade>())
        #expect(Set(allGrades.compactMap { $0.student?.id }).count == 50)
        #expect(freshStatements == 2, "one fetch and one query for every grade's student")
    }

    @Test func predicatesAcrossRelationships() throws {
        let dir = TemporaryDirectory()
        let c = try gradebook(dir)
        let context = c.mainContext
        let a = Student(id: "a", firstname: "A", lastname: "A")
        let b = Student(id: "b", firstname: "B", lastname: "B")
        let none = Student(id: "n", firstname: "N", lastname: "N")
        [a, b, none].forEach(context.insert)
        for score in [1, 8, 9] { a.grades.append(Grade(score: score)) }
        b.grades.append(Grade(score: 3))
        try context.save()
        let sId = "a"
        let ofA = #Predicate<Grade> { $0.student?.id == sId }
        #expect(try context.fetchCount(FetchDescriptor(predicate: ofA)) == 3)
        let sql = try PredicateTranslator.translate(ofA, entity: EntityCache.entity(for: Grade.self))
        #expect(sql.joins == [#"LEFT JOIN "Student" AS t1 ON t1."_pk" = t0."student""#])
        #expect(sql.condition.sql == #"(t1."id" IS ?)"#)
        func names(_ p: Predicate<Student>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.id)])).map(\.id)
        }
        #expect(try names(#Predicate { !$0.grades.isEmpty }) == ["a", "b"])
        #expect(try names(#Predicate { $0.grades.count > 2 }) == ["a"])
        #expect(try names(#Predicate { $0.grades.contains { $0.score > 5 } }) == ["a"])
        #expect(try names(#Predicate { $0.grades.contains { $0.score == 3 } }) == ["b"])
        let unlinked = try context.fetch(FetchDescriptor<Grade>(predicate: #Predicate { $0.student == nil }))
        #expect(unlinked.isEmpty)
    }

    @Test func cascadeIsRecursiveAndWorksWithDeleteWhere() throws {
        let dir = TemporaryDirectory()
        let c = try container(Folder.self, at: dir.store())
        let context = c.mainContext
        let root = Folder(name: "root")
        context.insert(root)
        let sub = Folder(name: "sub")
        sub.parent = root  // joins root's context through the relationship
        let leaf = Folder(name: "leaf")
        sub.children.append(leaf)
        let other = Folder(name: "other")
        context.insert(other)
        #expect(context.insertedModelsArray.count == 4)
        #expect(leaf.parent === sub)
        try context.save()
        #expect(root.children.map(\.name) == ["sub"])
        context.delete(root)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT name FROM Folder") == [["other"]])
        let fresh = ModelContext(c)
        let parent = Folder(name: "p")
        fresh.insert(parent)
        parent.children.append(Folder(name: "c"))
        try fresh.save()
        try fresh.delete(model: Folder.self, where: #Predicate { $0.name == "p" })
        try fresh.save()
        #expect(try SQLiteProbe(dir.store()).rows("SELECT name FROM Folder") == [["other"]])
    }

    @Test func nullifyClearsTheInverseOnDeletion() throws {
        let dir = TemporaryDirectory()
        let c = try gradebook(dir)
        let context = c.mainContext
        let s = Student(firstname: "A", lastname: "B")
        context.insert(s)
        let g = Grade(score: 1)
        s.grades.append(g)
        try context.save()
        context.delete(s)
        try context.save()
        #expect(g.student == nil)
        #expect(try SQLiteProbe(dir.store()).rows("SELECT score, student FROM Grade") == [["1", "NULL"]])
    }

    @Test func denyRefusesTheSaveNamingTheRelationshipAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let c = try container(Owner.self, Pet.self, at: dir.store())
        let context = c.mainContext
        let owner = Owner(name: "Ann")
        context.insert(owner)
        owner.pets.append(Pet(name: "Rex"))
        try context.save()
        context.delete(owner)
        #expect(throws: ModelError.deleteDenied(model: "Owner", relationship: "pets")) { try context.save() }
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Owner") == "1")
        context.rollback()
        owner.pets.removeAll()
        context.delete(owner)
        try context.save()
        #expect(try SQLiteProbe(dir.store()).scalar("SELECT count(*) FROM Owner") == "0")
    }

    @Test func noActionLeavesRelatedModelsAlone() throws {
        let dir = TemporaryDirectory()
        let c = try container(Author.self, Book.self, at: dir.store())
        let context = c.mainContext
        let author = Author(name: "A")
        context.insert(author)
        let book = Book(title: "T")
        author.books.append(book)
        try context.save()
        context.delete(author)
        try context.save()
        #expect(book.author === author, "no action: the in-memory reference is left as it was")
        #expect(try SQLiteProbe(dir.store()).rows("SELECT title, author FROM Book") == [["T", "NULL"]])
    }
}

/// Found by an outside attack (issue 35): a member taken out of a fetched owner's list whose own
/// to-one had not been read kept its owner in the store (the list read back unchanged).
@Suite struct UnloadedInverseTests {
    @Test func aMemberTakenOutOfAFetchedListLeavesItsOwner() throws {
        let dir = TemporaryDirectory()
        let c = try container(Owner.self, Pet.self, at: dir.store())
        do {
            let context = ModelContext(c)
            let owner = Owner(name: "K")
            context.insert(owner)
            owner.pets = [Pet(name: "a1"), Pet(name: "a2")]
            try context.save()
        }
        let context = ModelContext(c)
        let owner = try #require(try context.fetch(FetchDescriptor<Owner>()).first)
        let gone = try #require(owner.pets.first { $0.name == "a1" })
        owner.pets.removeAll { $0 === gone }
        #expect(gone.owner == nil)
        try context.save()
        let fresh = ModelContext(c)
        #expect(try fresh.fetch(FetchDescriptor<Owner>()).first?.pets.map(\.name) == ["a2"])
        #expect(try fresh.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.name == "a1" })).first?.owner == nil)
    }
}
