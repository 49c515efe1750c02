// A stand-in for the one UIKit type the Memories seed's model code uses, so that file compiles
// on Linux unchanged but for its SwiftData import. It only carries bytes.
import Foundation

public final class UIImage {
    public let bytes: Data
    public init?(data: Data) {
        guard !data.isEmpty else { return nil }
        bytes = data
    }
    public func pngData() -> Data? { bytes }
}
