// The plugin's entry point. The toolchain ships no SwiftCompilerPlugin module, so this file
// does what its `@main` would: answer the compiler over stdin/stdout with the message listener.
import Foundation
import SwiftSyntaxMacros
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling

/// The macros this plugin provides, by type name.
let providedMacros: [String: Macro.Type] = [
    "ModelMacro": ModelMacro.self,
    "PersistedPropertyMacro": PersistedPropertyMacro.self,
    "MarkerMacro": MarkerMacro.self,
    "UniqueMacro": UniqueMacro.self,
    "IndexMacro": IndexMacro.self,
    "ModelActorMacro": ModelActorMacro.self,
]

struct Provider: PluginProvider {
    struct UnknownMacro: Error, CustomStringConvertible {
        var typeName: String
        var description: String { "OpenSwiftDataMacros has no macro named \(typeName)" }
    }
    func resolveMacro(moduleName: String, typeName: String) throws -> Macro.Type {
        guard let type = providedMacros[typeName] else { throw UnknownMacro(typeName: typeName) }
        return type
    }
    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {}
    var features: [PluginFeature] { [.loadPluginLibrary] }
}

/// Frames are an 8-byte little-endian length followed by that many bytes of JSON.
/// A frame of length 0 is how the compiler ends the session.
final class StandardIOConnection: MessageConnection {
    let input = FileHandle.standardInput
    let output = FileHandle.standardOutput

    func sendMessage<TX: Encodable>(_ message: TX) throws {
        let payload = try JSONEncoder().encode(message)
        var length = UInt64(payload.count).littleEndian
        var frame = Data(bytes: &length, count: 8)
        frame.append(payload)
        try output.write(contentsOf: frame)
    }

    func waitForNextMessage<RX: Decodable>(_ type: RX.Type) throws -> RX? {
        guard let header = try read(count: 8) else { return nil }
        let length = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        if length == 0 { return nil }
        guard let payload = try read(count: Int(length)) else { return nil }
        return try JSONDecoder().decode(RX.self, from: payload)
    }

    private func read(count: Int) throws -> Data? {
        var data = Data()
        while data.count < count {
            guard let chunk = try input.read(upToCount: count - data.count), !chunk.isEmpty else { return nil }
            data.append(chunk)
        }
        return data
    }
}

let listener = CompilerPluginMessageListener(connection: StandardIOConnection(), provider: Provider())
do {
    try listener.main()
} catch {
    FileHandle.standardError.write(Data("OpenSwiftDataMacros: \(error)\n".utf8))
    exit(1)
}
