// gradebook: the Gradebook seed app's data layer as a command-line program.
// Models.swift is the seed's model code, unchanged but for `import OpenSwiftData`.
//
//   gradebook [--store PATH] add-student FIRST LAST
//   gradebook [--store PATH] add-quiz NAME POINTS
//   gradebook [--store PATH] grade STUDENT QUIZ SCORE      records or updates (the seed's #Predicate)
//   gradebook [--store PATH] delete-student STUDENT | delete-quiz QUIZ
//   gradebook [--store PATH] students | quizzes | by-student | by-quiz
// STUDENT is an id or "First Last"; QUIZ an id or name. The store defaults to $GRADEBOOK_STORE, else ./gradebook.store.
import Foundation
import SwiftData

func fail(_ message: String, _ code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("gradebook: \(message)\n".utf8))
    exit(code)
}

let help = """
gradebook: students, quizzes and their grades (the Gradebook seed's models on OpenSwiftData).

Usage: gradebook [--store PATH] <command> [arguments]

Commands:
  add-student FIRST LAST [--allow-duplicate]   a second student of the same name needs --allow-duplicate
  add-quiz NAME POINTS
  grade STUDENT QUIZ SCORE                     records or updates; SCORE from 0 to the quiz's points
  delete-student STUDENT | delete-quiz QUIZ
  students | quizzes | by-student | by-quiz    read commands: they never create a store

STUDENT is an id or "First Last" (an error lists the candidates when several match); QUIZ an id or
name. The store is --store PATH, else $GRADEBOOK_STORE, else ./gradebook.store.

Examples:
  gradebook add-student Ada Lovelace
  gradebook add-quiz "Quiz 1" 10
  gradebook grade "Ada Lovelace" "Quiz 1" 9
  gradebook by-student
"""

var args = Array(CommandLine.arguments.dropFirst())
if args.contains("--help") || args.contains("-h") || args.first == "help" {
    print(help)
    exit(0)
}
var storePath = ProcessInfo.processInfo.environment["GRADEBOOK_STORE"] ?? "gradebook.store"
if let i = args.firstIndex(of: "--store") {
    guard i + 1 < args.count else { fail("--store needs a path", 64) }
    storePath = args[i + 1]
    args.removeSubrange(i...(i + 1))
}
let allowDuplicate = args.contains("--allow-duplicate")
args.removeAll { $0 == "--allow-duplicate" }
guard let command = args.first else { fail("usage: gradebook [--store PATH] add-student|add-quiz|grade|delete-student|delete-quiz|students|quizzes|by-student|by-quiz … (--help says more)", 64) }
let operands = Array(args.dropFirst())
let readCommands: Set<String> = ["students", "quizzes", "by-student", "by-quiz"]
if readCommands.contains(command) && !FileManager.default.fileExists(atPath: storePath) {
    fail("no store at \(storePath) (add a student or a quiz to create it; --store or $GRADEBOOK_STORE chooses another)")
}

let schema = Schema([Student.self, Quiz.self, Grade.self])
let modelConfiguration = ModelConfiguration(schema: schema, url: URL(fileURLWithPath: storePath))
let container: ModelContainer
do {
    container = try ModelContainer(for: schema, configurations: [modelConfiguration])
} catch {
    fail("cannot open \(storePath): \(error)")
}
let modelContext = container.mainContext

func student(_ key: String) throws -> Student {
    let all = try modelContext.fetch(FetchDescriptor<Student>())
    if let s = all.first(where: { $0.id == key }) { return s }
    let named = all.filter { "\($0.first_name) \($0.last_name)" == key }
    if named.count > 1 {
        fail("\(named.count) students are called '\(key)'; give one's id:\n" + named.map { "  \($0.id)  \($0.first_name) \($0.last_name)" }.joined(separator: "\n"))
    }
    if let s = named.first { return s }
    fail("no student '\(key)'")
}

func quiz(_ key: String) throws -> Quiz {
    let all = try modelContext.fetch(FetchDescriptor<Quiz>())
    if let q = all.first(where: { $0.id == key || $0.name == key }) { return q }
    fail("no quiz '\(key)'")
}

func percent(_ score: Int, _ points: Int) -> String {
    points == 0 ? "-" : String(format: "%.1f%%", Double(score) * 100 / Double(points))
}

do {
    switch (command, operands.count) {
    case ("add-student", 2):
        let (first, last) = (operands[0], operands[1])
        let same = try modelContext.fetch(FetchDescriptor<Student>(predicate: #Predicate { $0.first_name == first && $0.last_name == last }))
        if !same.isEmpty && !allowDuplicate {
            fail("a student called '\(first) \(last)' exists already (\(same[0].id)); add --allow-duplicate to add a second one")
        }
        let s = Student(firstname: first, lastname: last)
        modelContext.insert(s)
        try modelContext.save()
        print("student \(s.id) \(s.first_name) \(s.last_name)")
    case ("add-quiz", 2):
        guard let points = Int(operands[1]), points >= 0 else { fail("POINTS must be a whole number", 64) }
        let q = Quiz(name: operands[0], points: points)
        modelContext.insert(q)
        try modelContext.save()
        print("quiz \(q.id) \(q.name) (\(q.points) points)")
    case ("grade", 3):
        guard let score = Int(operands[2]) else { fail("SCORE must be a whole number, not '\(operands[2])'", 64) }
        let s = try student(operands[0]), q = try quiz(operands[1])
        guard (0...q.points).contains(score) else { fail("SCORE must be from 0 to \(q.points) (the points of \(q.name)), not \(score)", 64) }
        // The seed's GradeDetailView: find the grade for this student and quiz, then update or create.
        let sId = s.id
        let qId = q.id
        let grades = try modelContext.fetch(FetchDescriptor<Grade>(predicate: #Predicate { grade in
            (grade.student?.id == sId) && (grade.quiz?.id == qId)
        }))
        if grades.isEmpty {
            let g = Grade(score: score)
            g.quiz = q
            g.student = s
            q.grades.append(g)
            s.grades.append(g)
            print("recorded \(score)/\(q.points) for \(s.first_name) \(s.last_name) on \(q.name)")
        } else {
            print("updated \(s.first_name) \(s.last_name) on \(q.name): \(grades[0].score) -> \(score)")
            grades[0].score = score
        }
        try modelContext.save()
    case ("delete-student", 1):
        modelContext.delete(try student(operands[0]))
        try modelContext.save()
        print("deleted student \(operands[0])")
    case ("delete-quiz", 1):
        modelContext.delete(try quiz(operands[0]))
        try modelContext.save()
        print("deleted quiz \(operands[0])")
    case ("students", 0):
        for s in try modelContext.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.last_name), SortDescriptor(\.first_name)])) {
            print("\(s.id)  \(s.first_name) \(s.last_name)  \(s.grades.count) grade(s)")
        }
    case ("quizzes", 0):
        for q in try modelContext.fetch(FetchDescriptor<Quiz>(sortBy: [SortDescriptor(\.name)])) {
            print("\(q.id)  \(q.name)  \(q.points) points  \(q.grades.count) grade(s)")
        }
    case ("by-student", 0):
        for s in try modelContext.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.last_name), SortDescriptor(\.first_name)])) {
            print("\(s.first_name) \(s.last_name)")
            var total = 0, possible = 0
            for g in s.grades.sorted(by: { ($0.quiz?.name ?? "") < ($1.quiz?.name ?? "") }) {
                let points = g.quiz?.points ?? 0
                total += g.score
                possible += points
                print("  \(g.quiz?.name ?? "?"): \(g.score)/\(points) \(percent(g.score, points))")
            }
            print("  total: \(total)/\(possible) \(percent(total, possible))")
        }
    case ("by-quiz", 0):
        for q in try modelContext.fetch(FetchDescriptor<Quiz>(sortBy: [SortDescriptor(\.name)])) {
            print("\(q.name) (\(q.points) points)")
            let grades = q.grades.sorted { ($0.student?.last_name ?? "") < ($1.student?.last_name ?? "") }
            for g in grades { print("  \(g.student.map { "\($0.first_name) \($0.last_name)" } ?? "?"): \(g.score) \(percent(g.score, q.points))") }
            let average = grades.isEmpty ? 0 : Double(grades.reduce(0) { $0 + $1.score }) / Double(grades.count)
            print("  average: \(String(format: "%.1f", average)) \(grades.isEmpty ? "-" : String(format: "%.1f%%", q.points == 0 ? 0 : average * 100 / Double(q.points)))")
        }
    default:
        fail("unknown command or wrong arguments: \(args.joined(separator: " "))\nUsage: gradebook [--store PATH] <command> [arguments] (gradebook --help lists the commands)", 64)
    }
} catch {
    fail("\(error.localizedDescription)")
}
