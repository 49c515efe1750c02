import BlobStore
import Foundation

// External-storage values by their blob: the digest a saved value is stored under, and digests an
// app already computed, handed to the next save so the bytes are not hashed twice. (Not SwiftData
// API: SwiftData does not say where or how it stores these values.)

extension ModelContext {
    /// The SHA-256 of the blob that the `.externalStorage` property `keyPath` of `model` is stored
    /// as, as last saved or fetched. Reads no blob. nil when the stored value is nil, the model was
    /// never saved, or `keyPath` is not an external-storage property.
    ///
    /// ```swift
    /// if let digest = context.externalDigest(of: photo, \.imageData) {
    ///     try container.blobBackend?.readVerified(digest) { chunk in try out.write(chunk) }
    /// }
    /// ```
    public func externalDigest<T: PersistentModel>(of model: T, _ keyPath: KeyPath<T, Data?>) -> BlobDigest? {
        storedDigest(of: model, keyPath)
    }

    /// The SHA-256 of the blob a non-optional `.externalStorage` property is stored as (see the
    /// optional form).
    public func externalDigest<T: PersistentModel>(of model: T, _ keyPath: KeyPath<T, Data>) -> BlobDigest? {
        storedDigest(of: model, keyPath)
    }

    private func storedDigest<T: PersistentModel>(of model: T, _ keyPath: AnyKeyPath) -> BlobDigest? {
        let backing = model.persistentBackingData
        guard let property = EntityCache.entity(for: T.self).property(for: keyPath), property.isExternalStorage else { return nil }
        return backing.storedDigests[property.index]
    }

    /// Tells the next save that `data` hashes to `digest` (its SHA-256, computed by the caller from
    /// these bytes), so that storing `data` as an external-storage value does not hash it again.
    /// The hint is tied to `data`'s buffer and serves one put: a value in another buffer, even with
    /// equal bytes, is hashed as usual. Hints go at the end of the next save, whether it succeeds
    /// or fails, and on `rollback()`. Values of 64 bytes or less are always hashed. A local store
    /// still hashes bytes whose name it already holds, so a wrong hint can never make it drop
    /// them; a bucket has the service check every upload against its digest.
    ///
    /// The caller must not change the bytes between this call and the save: `Data` that owns its
    /// bytes cannot change in place while the hint holds it, but `Data(bytesNoCopy:…)` over a
    /// buffer the app reuses can.
    public func noteExternalDigest(_ digest: BlobDigest, of data: Data) {
        knownDigests.note(digest, of: data)
    }
}

/// Digests callers computed for the buffers they assign to external-storage properties.
struct KnownDigests {
    private var byBuffer: [BufferKey: (data: Data, digest: BlobDigest)] = [:]

    private struct BufferKey: Hashable {
        let address: UInt
        let count: Int
    }

    /// The buffer a `Data` of more than 64 bytes keeps its bytes in (small ones are stored inline,
    /// with no stable address).
    private static func key(_ data: Data) -> BufferKey? {
        guard data.count > 64 else { return nil }
        return data.withUnsafeBytes { raw in raw.baseAddress.map { BufferKey(address: UInt(bitPattern: $0), count: raw.count) } }
    }

    mutating func note(_ digest: BlobDigest, of data: Data) {
        guard let key = Self.key(data) else { return }
        byBuffer[key] = (data, digest)
    }

    /// The noted digest of `data`'s buffer, if any, which is then forgotten (a hint serves one put).
    mutating func take(_ data: Data) -> BlobDigest? {
        guard !byBuffer.isEmpty, let key = Self.key(data) else { return nil }
        return byBuffer.removeValue(forKey: key)?.digest
    }

    mutating func removeAll() { byBuffer = [:] }
}
