import Foundation
import OpenSwiftData

/// A fresh temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("osd-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func store(_ name: String = "test.store") -> URL { url.appendingPathComponent(name) }
}

func container(_ types: any PersistentModel.Type..., at url: URL, policy: ModelConfiguration.UniquenessPolicy = .upsert) throws -> ModelContainer {
    let schema = Schema(types)
    return try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: url, uniquenessPolicy: policy)])
}
