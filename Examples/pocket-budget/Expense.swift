import Foundation
import SwiftData

@Model
final class Expense {
 var title: String
 var amount: Decimal
 var category: Category
 var date: Date
 var note: String = ""

 init(title: String, amount: Decimal, category: Category, date: Date = .now) {
 self.title = title
 self.amount = amount
 self.category = category
 self.date = date
 }
}
