import CCrypto
import Foundation

/// Incremental SHA-256 from libcrypto's EVP interface (OpenSSL 3 deprecates `SHA256()`).
public final class SHA256 {
    private let context: OpaquePointer

    /// A hasher with nothing fed to it yet.
    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fatalError("EVP_DigestInit_ex(sha256) failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds bytes.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Feeds bytes.
    public func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// The digest; the hasher must not be used afterwards.
    public func finish() -> BlobDigest {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return BlobDigest(bytes: Array(out.prefix(Int(length))))
    }

    /// The SHA-256 of `data`, in one call.
    public static func digest(_ data: Data) -> BlobDigest {
        let hasher = SHA256()
        hasher.update(data)
        return hasher.finish()
    }
}
