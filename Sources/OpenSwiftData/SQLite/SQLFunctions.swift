import CSQLite
import Foundation

/// The collation and functions every connection registers.
///
/// - `DECIMAL` collation: compares TEXT columns holding `Decimal` values numerically and
///   exactly, so `ORDER BY amount` and `amount > ?` are right for Decimal properties.
/// - `osd_standard_key(text)` and `osd_localized_key(text)`: the sort keys by which `SortDescriptor`'s
///   `.localizedStandard` and `.localized` order strings (see `StringCollation`).
/// - `osd_fold(text)`: case- and diacritic-folded text, for `localizedStandardContains`.
enum SQLFunctions {
    static func register(on db: OpaquePointer) throws {
        var rc = sqlite3_create_collation_v2(db, "DECIMAL", SQLITE_UTF8, nil, { _, n1, p1, n2, p2 in
            let a = SQLFunctions.decimal(p1, n1), b = SQLFunctions.decimal(p2, n2)
            return a < b ? -1 : (a > b ? 1 : 0)
        }, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot register DECIMAL collation", sql: nil) }
        for collation in [StringCollation.standard, .localized] {
            let context = Unmanaged.passRetained(CollationBox(collation)).toOpaque()
            rc = sqlite3_create_function_v2(db, collation.keyFunction!, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context, { ctx, argc, argv in
                guard let argv, let arg = argv[0], sqlite3_value_type(arg) != SQLITE_NULL, let p = sqlite3_value_text(arg) else {
                    sqlite3_result_null(ctx)
                    return
                }
                let collation = Unmanaged<CollationBox>.fromOpaque(sqlite3_user_data(ctx)!).takeUnretainedValue().collation
                let text = String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(arg))), as: UTF8.self)
                let key = collation.key(text)
                key.withUnsafeBytes { sqlite3_result_blob(ctx, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }, nil, nil, { context in Unmanaged<CollationBox>.fromOpaque(context!).release() })
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot register \(collation.keyFunction!)", sql: nil) }
        }
        rc = sqlite3_create_function_v2(db, "osd_fold", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { ctx, argc, argv in
            guard let argv, let arg = argv[0], sqlite3_value_type(arg) != SQLITE_NULL, let p = sqlite3_value_text(arg) else {
                sqlite3_result_null(ctx)
                return
            }
            let text = String(cString: p)
            sqlite3_result_text(ctx, SQLFunctions.fold(text), -1, csqlite_transient())
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot register osd_fold", sql: nil) }
    }

    final class CollationBox {
        let collation: StringCollation
        init(_ collation: StringCollation) { self.collation = collation }
    }

    /// How `localizedStandardContains` compares: case and diacritics ignored.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    static func decimal(_ p: UnsafeRawPointer?, _ n: Int32) -> Decimal {
        guard let p, n > 0 else { return 0 }
        let text = String(decoding: UnsafeRawBufferPointer(start: p, count: Int(n)), as: UTF8.self)
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }
}
