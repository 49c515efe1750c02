// Test helpers that need the UIKit stand-in. Kept out of files that import Testing: importing
// both makes the compiler look for Swift Testing's _Testing_UIKit cross-import overlay.
import Foundation
import UIKit

func image(_ text: String) -> UIImage { UIImage(data: Data(text.utf8))! }
func imageText(_ image: UIImage) -> String { String(decoding: image.bytes, as: UTF8.self) }
