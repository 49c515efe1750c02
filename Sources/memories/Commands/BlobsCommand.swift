import Foundation
import MemoriesKit

enum BlobsCommand: Command {
    static let name = "blobs"
    static let abstract = "Move the library's photos to an S3 bucket (push) or back into its folder (pull)."
    static let positionals: [Positional] = [.one("<push|pull>")]
    static let discussion = """
    push copies every photo the library holds (originals and thumbnails) to the bucket --to names,
    each confirmed by the service (it checks every upload's SHA-256), and only then switches the
    library over (blobs.json, as `memories init --blobs` writes); pull copies them from the bucket
    into the folder, each re-hashed, and switches back. Both hold the library's lock, so no import or
    gc runs meanwhile; killed, they leave the library where it was, and run again they skip what was
    copied already. The copies on the side left stay where they are: remove them yourself when you
    no longer want them (the folder's .library_SUPPORT/sha256/, or the bucket prefix). A bucket
    prefix that holds another library's photos is refused.
    """
    static let options: [Option] = [
        .value("to", "s3://BUCKET/PREFIX", "push: the bucket and key prefix to move the photos to"),
        .value("endpoint", "URL", "push: the service, such as http://127.0.0.1:7480"),
        .value("region", "REGION", "push: the region requests are signed for (default us-east-1)"),
        .value("profile", "NAME", "push: the credentials profile in ~/.aws/credentials"),
        .flag("virtual-host", "push: address the bucket as BUCKET.host instead of host/BUCKET"),
        .value("jobs", "N", short: "j", "copies at once (default 4)"),
        .quiet,
        .json,
    ]
    static let examples = [
        "memories blobs push --to s3://family-photos/journal --endpoint http://127.0.0.1:7480",
        "memories blobs pull",
    ]

    static func run(_ arguments: Arguments, library: () throws -> Library) throws -> Int32 {
        let direction = arguments.positionals.first ?? ""
        guard direction == "push" || direction == "pull" else {
            throw UsageError(message: "'\(direction)' is neither push nor pull")
        }
        let jobs = try arguments.int("jobs", in: 1...64) ?? 4
        let progress = Progress(direction == "push" ? "pushing" : "pulling", enabled: !arguments.has("quiet") && !arguments.has("json"))
        let report: Library.BlobMoveReport
        if direction == "push" {
            guard let url = arguments.value("to"), let endpoint = arguments.value("endpoint") else {
                throw UsageError(message: "push needs --to s3://BUCKET/PREFIX and --endpoint URL")
            }
            let settings = try BlobSettings(url: url, endpoint: endpoint, region: arguments.value("region") ?? "us-east-1",
                                            pathStyle: !arguments.has("virtual-host"), profile: arguments.value("profile"))
            report = try library().pushBlobs(to: settings, jobs: jobs) { progress.update($0, $1) }
        } else {
            report = try library().pullBlobs(jobs: jobs) { progress.update($0, $1) }
        }
        progress.finish()
        if arguments.has("json") {
            try Output.json(report)
        } else if !arguments.has("quiet") {
            Output.print("copied \(report.copied) file\(report.copied == 1 ? "" : "s") (\(report.alreadyThere) already there, "
                         + "\(Display.bytes(Int(report.bytes))) in all); the library's photos are now in \(report.location)")
        }
        return ExitCode.success
    }
}
