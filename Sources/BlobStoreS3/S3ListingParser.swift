import BlobStore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the XML that S3 answers with: a ListObjectsV2 or ListMultipartUploads page, or an error
/// (`<Error><Code>…`).
final class S3ListingParser: NSObject, XMLParserDelegate {
    struct Page {
        var objects: [S3Object] = []
        var truncated = false
        var nextToken: String?
        /// A ListMultipartUploads page: the uploads, and where the next page starts.
        var uploads: [S3Upload] = []
        var nextKeyMarker: String?
        var nextUploadIdMarker: String?
    }

    private var page = Page()
    private var current: S3Object?
    private var upload: S3Upload?
    private var text = ""
    private var errorCode = ""
    private var errorMessage = ""

    static func parse(_ data: Data) -> Page {
        let delegate = S3ListingParser()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        _ = parser.parse()
        return delegate.page
    }

    /// The `Code` and `Message` of an error body (empty when the body is not one, as for HEAD).
    static func error(_ data: Data) -> (code: String, message: String) {
        guard !data.isEmpty else { return ("", "") }
        let delegate = S3ListingParser()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        _ = parser.parse()
        return (delegate.errorCode, delegate.errorMessage)
    }

    /// The text of the first `element` in an XML body (`UploadId` of an initiated multipart upload).
    static func value(_ element: String, in data: Data) -> String? {
        final class Finder: NSObject, XMLParserDelegate {
            let name: String
            var text = "", found: String?
            init(_ name: String) { self.name = name }
            func parser(_ parser: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) { text = "" }
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
            func parser(_ parser: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) {
                if e == name && found == nil { found = text }
            }
        }
        let finder = Finder(element)
        let parser = XMLParser(data: data)
        parser.delegate = finder
        _ = parser.parse()
        return finder.found
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        if name == "Contents" { current = S3Object(key: "", size: 0, etag: "", lastModified: nil) }
        if name == "Upload" { upload = S3Upload(key: "", uploadId: "", initiated: nil) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "Key" where upload != nil: upload?.key = text
        case "UploadId" where upload != nil: upload?.uploadId = text
        case "Initiated": upload?.initiated = S3ListingParser.isoDate(text)
        case "Upload":
            if let upload, !upload.uploadId.isEmpty { page.uploads.append(upload) }
            upload = nil
        case "NextKeyMarker": page.nextKeyMarker = text
        case "NextUploadIdMarker": page.nextUploadIdMarker = text
        case "Key": current?.key = text
        case "Size": current?.size = Int64(text) ?? 0
        case "ETag": current?.etag = text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        case "LastModified": current?.lastModified = S3ListingParser.isoDate(text)
        case "Contents":
            if let current { page.objects.append(current) }
            current = nil
        case "IsTruncated": page.truncated = text == "true"
        case "NextContinuationToken": page.nextToken = text
        case "Code": errorCode = text
        case "Message": errorMessage = text
        default: break
        }
    }

    /// "2026-12-02T04:53:17.635Z", with or without the fraction.
    static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
