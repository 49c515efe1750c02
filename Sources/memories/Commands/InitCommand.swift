import Foundation
import MemoriesKit

enum InitCommand: Command {
    static let name = "init"
    static let abstract = "Make a new library, its photos in its folder or in an S3 bucket."
    static let positionals: [Positional] = []
    static let discussion = """
    `memories import` makes a library in its own folder on first use; `init` makes one on purpose,
    and is how a library keeps its photos (originals and thumbnails) in a bucket of an
    S3-compatible service (AWS S3, Ceph's RADOS Gateway, MinIO, Garage) instead: the store
    (library.store) stays in the folder, and blobs.json there records the bucket. The keys are
    never written: every command reads them from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
    AWS_SESSION_TOKEN), else from the profile (--profile, $AWS_PROFILE or "default") in
    ~/.aws/credentials. The bucket must exist; a bucket prefix that holds another library's photos
    is refused.
    """
    static let options: [Option] = [
        .value("blobs", "s3://BUCKET/PREFIX", "keep the photos under this bucket and key prefix"),
        .value("endpoint", "URL", "the service, such as https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:7480"),
        .value("region", "REGION", "the region requests are signed for (default us-east-1)"),
        .value("profile", "NAME", "the credentials profile in ~/.aws/credentials"),
        .flag("virtual-host", "address the bucket as BUCKET.host (AWS's style) instead of host/BUCKET"),
    ]
    static let examples = [
        "memories init",
        "memories init --blobs s3://family-photos/journal --endpoint http://127.0.0.1:7480",
    ]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        throw UsageError(message: "init runs through `create`")  // main.swift calls `create`
    }

    /// Makes the library in `directory`.
    static func create(_ arguments: Arguments, directory: URL) throws -> Int32 {
        var settings: BlobSettings?
        if let url = arguments.value("blobs") {
            guard let endpoint = arguments.value("endpoint") else { throw UsageError(message: "--blobs needs --endpoint URL") }
            settings = try BlobSettings(url: url, endpoint: endpoint, region: arguments.value("region") ?? "us-east-1",
                                        pathStyle: !arguments.has("virtual-host"), profile: arguments.value("profile"))
        } else if arguments.value("endpoint") != nil || arguments.value("region") != nil || arguments.value("profile") != nil {
            throw UsageError(message: "--endpoint, --region and --profile go with --blobs")
        }
        _ = try Library.create(directory: directory, blobs: settings)
        Output.print("created a new library at \(directory.path)" + (settings.map { " (photos in \($0.url) at \($0.endpoint))" } ?? ""))
        return ExitCode.success
    }
}
