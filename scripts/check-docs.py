#!/usr/bin/env python3
"""Docs that stay true (issue 18): fails on
  - a public declaration of OpenSwiftData, BlobStore, BlobStoreS3, Imaging or MemoriesKit without a `///` comment
    (on the line above it, attributes aside), and
  - a relative link in README.md or docs/*.md to a file that does not exist.
Usage: scripts/check-docs.py"""
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
modules = ["OpenSwiftData", "BlobStore", "BlobStoreS3", "Imaging", "MemoriesKit"]
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
                found.append(f"{path}:{i + 1}: {signature}")
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

found = undocumented()
links = broken_links()
for entry in found:
    print(f"check-docs: public declaration without a /// comment: {entry}")
for entry in links:
    print(f"check-docs: {entry}")
if found or links:
    sys.exit(1)
print("check-docs: ok (every public declaration documented, no broken links)")
