import BlobStore
import Foundation

/// A multipart upload begun and neither completed nor aborted (its parts are stored, and billed,
/// but no object shows them).
public struct S3Upload: Sendable, Equatable {
    /// The key below the location's prefix.
    public var key: String
    /// The service's id of the upload.
    public var uploadId: String
    /// When it was begun.
    public var initiated: Date?
}

// Multipart uploads: files over `multipartThreshold` go up in parts; uploads a killed process left
// unfinished are listed and aborted by the sweep (`S3BlobStore.sweep`).
extension S3Client {
    /// The multipart uploads under `prefix` (below the location's prefix) begun and not finished,
    /// page by page (ListMultipartUploads).
    public func unfinishedUploads(prefix: String = "") throws -> [S3Upload] {
        var uploads: [S3Upload] = []
        var markers: (key: String, id: String)?
        let fullPrefix = location.objectKey(prefix)
        repeat {
            var query = [("uploads", ""), ("max-uploads", String(pageSize))]
            if !fullPrefix.isEmpty { query.append(("prefix", fullPrefix)) }
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.id)] }
            let page = try listingPage(query, what: "LIST UPLOADS \(fullPrefix)")
            uploads += page.uploads.map { upload in
                var upload = upload
                upload.key = keyBelowPrefix(upload.key)
                return upload
            }
            // A page that says it is truncated but gives no way on ends the listing (never a loop).
            if page.truncated, let key = page.nextKeyMarker, let id = page.nextUploadIdMarker,
               markers.map({ $0.key != key || $0.id != id }) ?? true {
                markers = (key, id)
            } else {
                markers = nil
            }
        } while markers != nil
        return uploads
    }

    /// Begins a multipart upload of `key`.
    func beginUpload(_ key: String, what: String) throws -> S3Upload {
        let started = try request("POST", location.url(for: key) + "?uploads=", body: .data(Data()), payloadHash: SHA256.digest(Data()).hex, what: what)
        guard let uploadId = S3ListingParser.value("UploadId", in: started.body), !uploadId.isEmpty else {
            throw S3Error.service(status: started.status, code: "NoUploadId", message: "the service gave no upload id", request: what)
        }
        return S3Upload(key: key, uploadId: uploadId, initiated: Date())
    }

    /// Aborts a multipart upload: its parts are deleted (aborting one already gone succeeds).
    /// An upload without an id is refused: `DELETE key?uploadId=` deletes the object itself on
    /// some services (Ceph's RADOS Gateway).
    public func abort(_ upload: S3Upload) throws {
        let what = "DELETE \(location.objectKey(upload.key)) (abort upload)"
        guard !upload.uploadId.isEmpty else {
            throw S3Error.service(status: 0, code: "NoUploadId", message: "an upload without an id was not aborted", request: what)
        }
        do {
            _ = try request("DELETE", location.url(for: upload.key) + "?uploadId=" + S3Location.encode(upload.uploadId), what: what)
        } catch let error as S3Error where error.status == 404 {
            // NoSuchUpload: completed or aborted meanwhile.
        }
    }

    /// Uploads `size` bytes of `fd` in parts: each part's SHA-256 is sent with it (the service
    /// checks every part), and the object appears only when the upload is completed. On any
    /// failure the upload is aborted, so no parts are left behind.
    func putMultipart(_ key: String, fd: Int32, size: Int64) throws {
        let url = location.url(for: key)
        let what = "PUT \(location.objectKey(key)) (multipart)"
        let begun = try beginUpload(key, what: what)
        let upload = "uploadId=" + S3Location.encode(begun.uploadId)
        do {
            var parts: [String] = []
            var offset: Int64 = 0
            var number = 1
            while offset < size {
                let length = min(partSize, size - offset)
                let hash = try Self.sha256(fd: fd, offset: offset, length: length)
                let response = try request("PUT", url + "?partNumber=\(number)&" + upload, body: .file(fd, offset: offset, length: length),
                                           payloadHash: hash.hex, what: "\(what), part \(number)")
                guard let etag = response.headers["etag"] else {
                    throw S3Error.service(status: response.status, code: "NoETag", message: "part \(number) has no ETag", request: what)
                }
                parts.append("<Part><PartNumber>\(number)</PartNumber><ETag>\(etag)</ETag></Part>")
                offset += length
                number += 1
            }
            let body = Data(("<CompleteMultipartUpload>" + parts.joined() + "</CompleteMultipartUpload>").utf8)
            let done = try request("POST", url + "?" + upload, body: .data(body), payloadHash: SHA256.digest(body).hex, what: what)
            // Completing can fail after its 200 has been sent: the error is then in the body.
            let error = S3ListingParser.error(done.body)
            if !error.code.isEmpty { throw S3Error.service(status: 200, code: error.code, message: error.message, request: what) }
        } catch {
            try? abort(begun)
            throw error
        }
    }

    /// The SHA-256 of `length` bytes of `fd` from `offset`.
    static func sha256(fd: Int32, offset: Int64, length: Int64) throws -> BlobDigest {
        let hasher = SHA256()
        try forEachChunk(of: fd, offset: offset, length: length, "the file being uploaded") { hasher.update($0) }
        return hasher.finish()
    }
}
