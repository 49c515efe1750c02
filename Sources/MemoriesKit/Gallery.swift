import Foundation

/// The offline HTML gallery of an export: one file, no request beyond the folder.
///
/// - Justified rows: each photo keeps its aspect ratio (from its preview's size), rows fill the
///   width (CSS flex, no script needed), thumbnails at 1x and previews at 2x (`srcset`), lazily.
/// - Sections by day for a large memory (`sectionsFrom` photos or more, over more than one day).
/// - A lightbox (a few lines of inline script): the 1,280 px preview, its date, name and the link
///   to the original; previous/next by buttons, arrow keys and swipes; Escape closes. Without
///   script, each photo links to its preview.
enum Gallery {
    static func html(_ manifest: ExportManifest, sectionsFrom: Int = 30) -> String {
        let title = escape(manifest.memory.title)
        let date = manifest.memory.date.map { escape(String($0.prefix(10))) + " · " } ?? ""
        var days: [(String, [(Int, ExportManifest.File)])] = []
        for (index, file) in manifest.files.enumerated() {
            let day = file.takenAt.map { String($0.prefix(10)) } ?? "undated"
            if let last = days.indices.last, days[last].0 == day { days[last].1.append((index, file)) } else { days.append((day, [(index, file)])) }
        }
        if manifest.files.count < sectionsFrom { days = [("", days.flatMap(\.1))] }
        let sections = days.map { day, files -> String in
            let heading = days.count > 1 && manifest.files.count >= sectionsFrom ? "<h2>\(escape(day))</h2>\n" : ""
            return heading + "<div class=\"rows\">\n" + files.map { figure($0.1) }.joined(separator: "\n") + "\n<i></i></div>"
        }.joined(separator: "\n")
        return page(title: title, style: """
        body { font-family: system-ui, sans-serif; margin: 1.5rem; background: #fafafa; color: #222; }
        h1 { margin: 0 0 .2rem; } h2 { font-size: 1rem; color: #555; margin: 1.5rem 0 .5rem; }
        .date { color: #666; } .notes { white-space: pre-wrap; max-width: 60rem; }
        .rows { display: flex; flex-wrap: wrap; gap: 4px; }
        .rows > i { flex-grow: 1000; }
        figure { margin: 0; position: relative; min-width: 0; flex-grow: calc(var(--w) / var(--h) * 100);
          flex-basis: calc(var(--w) / var(--h) * 180px); max-width: calc(var(--w) / var(--h) * 300px); }
        @media (max-resolution: 1.5dppx) {
          /* On a 1x screen the thumbnail itself is shown: never wider than its own pixels. */
          figure { flex-basis: calc(var(--w) / var(--h) * 160px); max-width: min(calc(var(--w) / var(--h) * 300px), calc(var(--tw) * 1px)); }
        }
        figure a { display: block; }
        figure img { display: block; width: 100%; height: auto; aspect-ratio: var(--w) / var(--h); object-fit: cover; background: #ddd; border-radius: 3px; }
        figcaption { position: absolute; left: 0; right: 0; bottom: 0; padding: .2rem .4rem; font-size: .75rem; color: #fff;
          background: linear-gradient(transparent, rgba(0,0,0,.6)); border-radius: 0 0 3px 3px; opacity: 0; transition: opacity .2s; }
        figure:hover figcaption, figure a:focus + figcaption { opacity: 1; }
        a:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
        @media (max-width: 500px) { body { margin: .75rem; } figure { flex-basis: calc(var(--w) / var(--h) * 110px); } }
        #box { position: fixed; inset: 0; background: rgba(0,0,0,.92); display: none; flex-direction: column; align-items: center; justify-content: center; }
        #box.open { display: flex; }
        #box img { max-width: 96vw; max-height: 82vh; object-fit: contain; }
        #box .notes { max-height: 6rem; overflow: auto; color: #ccc; }
        #box p { color: #eee; margin: .6rem 1rem; text-align: center; font-size: .9rem; } #box a { color: #9cf; }
        #box button { position: absolute; background: rgba(255,255,255,.15); color: #fff; border: 0; font-size: 1.6rem;
          width: 2.6rem; height: 2.6rem; border-radius: 50%; cursor: pointer; }
        #prev { left: .6rem; top: 50%; } #next { right: .6rem; top: 50%; } #close { right: .6rem; top: .6rem; }
        """, body: """
        <h1>\(title)</h1>
        <div class="date">\(date)\(manifest.files.count) photo\(manifest.files.count == 1 ? "" : "s")</div>
        <p class="notes">\(escape(manifest.memory.notes))</p>
        <main>
        \(sections)
        </main>
        <div id="box" role="dialog" aria-modal="true" aria-label="Photo">
        <button id="close" aria-label="Close">×</button><button id="prev" aria-label="Previous photo">‹</button>
        <img id="shown" alt=""><p id="caption"></p>\(manifest.memory.notes.isEmpty ? "" : "<p id=\"boxnotes\" class=\"notes\">" + escape(manifest.memory.notes) + "</p>")<button id="next" aria-label="Next photo">›</button>
        </div>
        <script>
        (function () {
          var links = Array.prototype.slice.call(document.querySelectorAll("figure a"));
          var box = document.getElementById("box"), shown = document.getElementById("shown"), caption = document.getElementById("caption");
          var current = -1, opener = null, startX = null;
          function show(i) {
            current = (i + links.length) % links.length;
            var a = links[current];
            shown.src = a.getAttribute("href");
            shown.alt = a.dataset.name;
            caption.textContent = (a.dataset.caption ? a.dataset.caption + " · " : "") + (a.dataset.date ? a.dataset.date + " · " : "") + a.dataset.name + " · " + (current + 1) + " of " + links.length + " · ";
            var original = document.createElement("a");
            original.href = a.dataset.original;
            original.textContent = "original";
            caption.appendChild(original);
          }
          function open(i) { opener = document.activeElement; show(i); box.classList.add("open"); document.getElementById("close").focus(); }
          function close() { box.classList.remove("open"); shown.removeAttribute("src"); if (opener) opener.focus(); }
          links.forEach(function (a, i) { a.addEventListener("click", function (e) { e.preventDefault(); open(i); }); });
          document.getElementById("prev").onclick = function () { show(current - 1); };
          document.getElementById("next").onclick = function () { show(current + 1); };
          document.getElementById("close").onclick = close;
          document.addEventListener("keydown", function (e) {
            if (!box.classList.contains("open")) return;
            if (e.key === "ArrowLeft") show(current - 1);
            else if (e.key === "ArrowRight") show(current + 1);
            else if (e.key === "Escape") close();
          });
          box.addEventListener("touchstart", function (e) { startX = e.touches[0].clientX; }, { passive: true });
          box.addEventListener("touchend", function (e) {
            if (startX === null) return;
            var dx = e.changedTouches[0].clientX - startX;
            if (Math.abs(dx) > 50) show(current + (dx < 0 ? 1 : -1));
            startX = null;
          });
        })();
        </script>
        """)
    }

    /// An HTML page of the export, whole: `title` (escaped already), the style sheet and the body.
    static func page(title: String, style: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// One photo: its thumbnail (the preview on HiDPI screens) in a link to its preview.
    static func figure(_ file: ExportManifest.File) -> String {
        let name = escape(file.originalFilename)
        let day = file.takenAt.map { escape(String($0.prefix(10))) } ?? ""
        let (w, h) = (file.previewWidth ?? 4, file.previewHeight ?? 3)
        let small = link(file.thumbnail ?? file.preview ?? file.file)
        let large = link(file.preview ?? file.file)
        let srcset = file.preview != nil && file.thumbnail != nil ? " srcset=\"\(small) 1x, \(large) 2x\"" : ""
        let caption = file.caption.map(escape)
        let alt = caption ?? (day.isEmpty ? name : "\(name), \(day)")
        // The thumbnail's width in pixels (its longest side is 256).
        let thumbnailWidth = w >= h ? min(w, 256) : max(1, w * min(h, 256) / max(h, 1))
        return "<figure style=\"--w:\(w);--h:\(h);--tw:\(thumbnailWidth)\"><a href=\"\(large)\" data-name=\"\(name)\" data-date=\"\(day)\" data-original=\"\(link(file.file))\"\(caption.map { " data-caption=\"\($0)\"" } ?? "")>"
            + "<img src=\"\(small)\"\(srcset) alt=\"\(alt)\" width=\"\(w)\" height=\"\(h)\" loading=\"lazy\" decoding=\"async\"></a>"
            + "<figcaption>\(caption.map { $0 + " · " } ?? "")\(day.isEmpty ? "" : day + " · ")\(name)</figcaption></figure>"
    }

    /// `text` for an HTML text node or a quoted attribute value. By Unicode scalar, as a browser
    /// reads it: a `"` followed by a combining mark or U+200D is one Swift `Character` that is not
    /// `"`, and compared by `Character` it went through raw and ended the attribute.
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// A relative link to a file in the export: each path segment percent-encoded.
    static func link(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }.joined(separator: "/")
    }
}
