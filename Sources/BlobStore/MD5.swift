import CCrypto
import Foundation

/// MD5, only to compare with an S3 ETag (for an object uploaded in one part, the MD5 of its bytes):
/// a cheap check, without downloading, that a stored object holds the bytes its name says.
/// Never used to name or trust content: that is SHA-256's job.
final class MD5 {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        guard EVP_DigestInit_ex(context, EVP_md5(), nil) == 1 else { fatalError("EVP_DigestInit_ex(md5) failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Lower-case hex, as S3 writes ETags.
    func finish() -> String {
        var out = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return out.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }

    static func hex(_ data: Data) -> String {
        let hasher = MD5()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }
}
