import Foundation
import SwiftData

/// The first version of Expense, before `note` was added: `make-v1-store` writes a store with it,
/// to show that opening it with the current model loses nothing.
enum BudgetV1 {
    @Model
    final class Expense {
        var title: String
        var amount: Decimal
        var category: Category
        var date: Date

        init(title: String, amount: Decimal, category: Category, date: Date) {
            self.title = title
            self.amount = amount
            self.category = category
            self.date = date
        }
    }
}
