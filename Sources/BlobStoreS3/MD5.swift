import BlobStore
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
    func finish() -> String { Self.hex(bytes: finishBytes()) }

    func finishBytes() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return Array(out.prefix(Int(length)))
    }

    static func hex(bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func hex(_ data: Data) -> String {
        let hasher = MD5()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }
}

/// The two ETags S3 can give the same bytes: uploaded in one part (their MD5), or in parts of
/// `partSize` (the MD5 of the parts' MD5s, then "-" and the number of parts). A stored object whose
/// ETag is neither does not hold these bytes.
final class ETagHasher {
    let partSize: Int
    private let whole = MD5()
    private var part = MD5()
    private var inPart = 0
    private var partDigests: [UInt8] = []
    private var parts = 0

    init(partSize: Int64) { self.partSize = Int(max(1, partSize)) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        whole.update(bytes)
        var rest = bytes
        while !rest.isEmpty {
            let take = min(rest.count, partSize - inPart)
            part.update(UnsafeRawBufferPointer(rebasing: rest[..<take]))
            inPart += take
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if inPart == partSize { closePart() }
        }
    }

    private func closePart() {
        partDigests += part.finishBytes()
        parts += 1
        part = MD5()
        inPart = 0
    }

    /// Both ETags; the hasher must not be used afterwards.
    func finish() -> (single: String, multipart: String) {
        if inPart > 0 || parts == 0 { closePart() }
        let combined = MD5()
        partDigests.withUnsafeBytes { combined.update($0) }
        return (whole.finish(), combined.finish() + "-\(parts)")
    }

    static func etags(of data: Data, partSize: Int64) -> (single: String, multipart: String) {
        let hasher = ETagHasher(partSize: partSize)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Whether `etag` (as the service gave it, quotes removed) is one of these bytes'.
    static func matches(_ etag: String, _ expected: (single: String, multipart: String)) -> Bool {
        let tag = etag.lowercased()
        return tag == expected.single || tag == expected.multipart
    }
}
