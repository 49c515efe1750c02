import Foundation
import Testing
import OpenSwiftData

@Suite struct SeedModelTests {
    @Test func budgetExpensesPersistSortAndFilter() throws {
        let dir = TemporaryDirectory()
        let day: TimeInterval = 86_400
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        do {
            let c = try container(Expense.self, at: dir.store())
            let context = c.mainContext
            context.insert(Expense(title: "Coffee", amount: Decimal(string: "4.50")!, category: .food, date: start))
            context.insert(Expense(title: "Bus", amount: Decimal(string: "2.75")!, category: .transport, date: start + day))
            context.insert(Expense(title: "Rent", amount: Decimal(string: "1200.10")!, category: .housing, date: start + 2 * day))
            try context.save()
        }
        let c = try container(Expense.self, at: dir.store())
        let context = c.mainContext
        let newestFirst = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
        #expect(newestFirst.map(\.title) == ["Rent", "Bus", "Coffee"])
        #expect(newestFirst[0].amount == Decimal(string: "1200.10")!)
        #expect(newestFirst[0].note == "")
        #expect(newestFirst[1].category == .transport)
        let since = start + day
        let recent = try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate<Expense> { $0.date >= since }, sortBy: [SortDescriptor(\.date, order: .reverse)]))
        #expect(recent.map(\.title) == ["Rent", "Bus"])
    }

    @Test func gradebookModelsCreateAndFetch() throws {
        let dir = TemporaryDirectory()
        let schema = Schema([Student.self, Quiz.self, Grade.self])
        let c = try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: dir.store())])
        let context = c.mainContext
        let student = Student(firstname: "Ada", lastname: "Lovelace")
        let quiz = Quiz(name: "Quiz 1", points: 10)
        context.insert(student)
        context.insert(quiz)
        try context.save()
        let g = Grade(score: 9)
        g.quiz = quiz
        g.student = student
        quiz.grades.append(g)
        student.grades.append(g)
        try context.save()
        let sId = student.id
        let qId = quiz.id
        let found = try context.fetch(FetchDescriptor<Grade>(predicate: #Predicate { grade in
            (grade.student?.id == sId) && (grade.quiz?.id == qId)
        }))
        #expect(found.count == 1)
        #expect(found.first === g)
        #expect(student.grades.count == 1)
        let students = try context.fetch(FetchDescriptor<Student>())
        #expect(students.map(\.first_name) == ["Ada"])
    }

    @Test func memoriesModelsInMemory() throws {
        let c = try ModelContainer(for: Memory.self, MemoryImage.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = c.mainContext
        let m = Memory(title: "Rome", date: .now, notes: "trip", images: [])
        context.insert(m)
        try context.save()
        let all = try context.fetch(FetchDescriptor<Memory>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
        #expect(all.count == 1 && all[0] === m)
    }
}
