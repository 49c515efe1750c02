import Foundation

/// The offline HTML gallery of an export: thumbnails (or, lacking one, the photo itself) linking to
/// the photos, relative links only.
enum Gallery {
    static func html(_ manifest: ExportManifest) -> String {
        let title = escape(manifest.memory.title)
        let date = escape(String(manifest.memory.date.prefix(10)))
        let items = manifest.files.map { file -> String in
            let href = link(file.file)
            // Without a thumbnail, the photo itself (so that no photo is missing from the gallery).
            let img = "<img src=\"\(link(file.thumbnail ?? file.file))\" alt=\"\(escape(file.originalFilename))\" loading=\"lazy\">"
            let caption = escape(file.takenAt.map { String($0.prefix(10)) + " · " } ?? "") + escape(file.originalFilename)
            return "<figure><a href=\"\(href)\">\(img)</a><figcaption>\(caption)</figcaption></figure>"
        }.joined(separator: "\n")
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 2rem; background: #fafafa; color: #222; }
        h1 { margin-bottom: 0.2rem; } .date { color: #666; } .notes { white-space: pre-wrap; max-width: 60rem; }
        main { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 1rem; margin-top: 1.5rem; }
        figure { margin: 0; background: #fff; padding: 0.5rem; border-radius: 6px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
        img { width: 100%; height: 200px; object-fit: cover; display: block; border-radius: 4px; }
        figcaption { font-size: 0.8rem; color: #555; margin-top: 0.3rem; overflow-wrap: anywhere; }
        </style>
        </head>
        <body>
        <h1>\(title)</h1>
        <div class="date">\(date) · \(manifest.files.count) photo\(manifest.files.count == 1 ? "" : "s")</div>
        <p class="notes">\(escape(manifest.memory.notes))</p>
        <main>
        \(items)
        </main>
        </body>
        </html>
        """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// A relative link to a file in the export: each path segment percent-encoded.
    static func link(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }.joined(separator: "/")
    }
}
