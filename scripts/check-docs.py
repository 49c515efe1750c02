#!/usr/bin/env python3
"""Docs that stay true (issue 18): fails on
  - a public declaration of OpenSwiftData, BlobStore, Imaging or MemoriesKit without a `///` comment
    that is not in docs/undocumented.txt (the debt recorded when this check came; it may only shrink:
    an entry that is documented now must leave the list, so the list never hides a new gap), and
  - a relative link in README.md or docs/*.md to a file that does not exist.
Usage: scripts/check-docs.py [--write-baseline]"""
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
modules = ["OpenSwiftData", "BlobStore", "Imaging", "MemoriesKit"]
keywords = r"(?:static|final|class|override|required|convenience|mutating|nonisolated|indirect|open)"
decl = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:" + keywords + r"\s+)*public\s+(?:" + keywords +
                  r"\s+)*(func|var|let|init|struct|class|enum|protocol|typealias|case|subscript|actor)\b(.*)$")

def undocumented():
    found = []
    for module in modules:
        for path in sorted(glob.glob(f"Sources/{module}/**/*.swift", recursive=True)):
            lines = open(path, encoding="utf-8").read().split("\n")
            for i, line in enumerate(lines):
                m = decl.match(line)
                if not m:
                    continue
                j = i - 1
                while j >= 0 and lines[j].strip().startswith("@"):
                    j -= 1
                previous = lines[j].strip() if j >= 0 else ""
                if previous.startswith("///") or previous.endswith("*/"):
                    continue
                signature = re.sub(r"\s+", " ", (m.group(1) + m.group(2)).split("{")[0].split("=")[0]).strip()
                entry = f"{path}: {signature}"
                # The same signature again in one file (conformances): numbered, so each counts.
                n = sum(1 for e in found if e == entry or e.startswith(entry + " #"))
                found.append(entry if n == 0 else f"{entry} #{n + 1}")
    return found

def broken_links():
    broken = []
    for doc in ["README.md"] + sorted(glob.glob("docs/*.md")):
        text = open(doc, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(doc), target))):
                broken.append(f"{doc}: link to {target}, which does not exist")
    return broken

baseline_path = "docs/undocumented.txt"
found = undocumented()
if "--write-baseline" in sys.argv:
    open(baseline_path, "w").write("".join(f"{entry}\n" for entry in sorted(set(found))))
    print(f"check-docs: {len(set(found))} undocumented public declarations written to {baseline_path}")
    sys.exit(0)
baseline = set(open(baseline_path).read().split("\n")) - {""} if os.path.exists(baseline_path) else set()
new = sorted(set(found) - baseline)
paid = sorted(baseline - set(found))
links = broken_links()
for entry in new:
    print(f"check-docs: public declaration without a /// comment: {entry}")
for entry in paid:
    print(f"check-docs: documented (or gone) now, take it out of {baseline_path}: {entry}")
for entry in links:
    print(f"check-docs: {entry}")
if new or paid or links:
    sys.exit(1)
print(f"check-docs: ok ({len(found)} public declarations still owe a comment, listed in {baseline_path}; no broken links)")
