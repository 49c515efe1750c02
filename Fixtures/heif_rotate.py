#!/usr/bin/env python3
"""Adds an `irot` (rotation) property to the primary image of a HEIF file, as phones write it.

    heif_rotate.py in.heic out.heic ANGLE     # ANGLE: quarter turns anticlockwise, 1-3

heif-enc (libheif 1.15) cannot write one, and exiftool does not either. The property goes at the
end of `ipco`, is associated with the primary item in `ipma` (marked essential), and every `iloc`
offset is moved by the bytes inserted before the image data.
"""
import struct
import sys


def boxes(data, start, end):
    """(type, start, header_size, size) of each box between start and end."""
    pos = start
    while pos < end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        yield kind.decode("latin-1"), pos, header, size
        pos += size


def child(data, parent_start, parent_header, parent_size, name, full=False):
    body = parent_start + parent_header + (4 if full else 0)
    for kind, start, header, size in boxes(data, body, parent_start + parent_size):
        if kind == name:
            return start, header, size
    raise SystemExit(f"no {name} box")


def main(src, dst, angle):
    data = bytearray(open(src, "rb").read())
    meta = next((s, h, z) for k, s, h, z in boxes(data, 0, len(data)) if k == "meta")
    pitm = child(data, *meta, "pitm", full=True)
    primary = struct.unpack(">H", data[pitm[0] + 12:pitm[0] + 14])[0]
    iprp = child(data, *meta, "iprp", full=True)
    ipco = child(data, *iprp, "ipco")
    ipma = child(data, *iprp, "ipma")
    iloc = child(data, *meta, "iloc", full=True)
    index = sum(1 for _ in boxes(data, ipco[0] + ipco[1], ipco[0] + ipco[2])) + 1
    irot = struct.pack(">I4sB", 9, b"irot", angle & 3)

    # ipma: one more association for the primary item.
    version, flags = data[ipma[0] + 8], int.from_bytes(data[ipma[0] + 9:ipma[0] + 12], "big")
    pos = ipma[0] + 16
    count = struct.unpack(">I", data[ipma[0] + 12:pos])[0]
    insert_at = None
    for _ in range(count):
        item = struct.unpack(">I" if version else ">H", data[pos:pos + (4 if version else 2)])[0]
        pos += 4 if version else 2
        n = data[pos]
        if item == primary:
            data[pos] = n + 1
            insert_at = pos + 1 + n * (2 if flags & 1 else 1)
            entry = struct.pack(">H", 0x8000 | index) if flags & 1 else bytes([0x80 | index])
        pos += 1 + n * (2 if flags & 1 else 1)
    if insert_at is None:
        raise SystemExit("the primary item has no properties")
    added = len(irot) + len(entry)

    # iloc: file offsets of item data after meta move by `added` bytes.
    v = data[iloc[0] + 8]
    p = iloc[0] + 12
    offset_size, length_size = data[p] >> 4, data[p] & 15
    base_size, index_size = data[p + 1] >> 4, (data[p + 1] & 15) if v in (1, 2) else 0
    p += 2
    items = struct.unpack(">H" if v < 2 else ">I", data[p:p + (2 if v < 2 else 4)])[0]
    p += 2 if v < 2 else 4

    def shift(at, size):
        if size == 0:
            return
        value = int.from_bytes(data[at:at + size], "big")
        if value:
            data[at:at + size] = (value + added).to_bytes(size, "big")

    for _ in range(items):
        p += 2 if v < 2 else 4
        method = 0
        if v in (1, 2):
            method = struct.unpack(">H", data[p:p + 2])[0] & 15
            p += 2
        p += 2  # data_reference_index
        if method == 0:
            shift(p, base_size)
        p += base_size
        extents = struct.unpack(">H", data[p:p + 2])[0]
        p += 2
        for _ in range(extents):
            p += index_size
            if method == 0 and base_size == 0:
                shift(p, offset_size)
            p += offset_size + length_size

    # Insert (the later position first), then grow the enclosing boxes.
    data[insert_at:insert_at] = entry
    ipco_end = ipco[0] + ipco[2]
    data[ipco_end:ipco_end] = irot
    for start, grow in ((ipma[0], len(entry)), (ipco[0], len(irot)), (iprp[0], added), (meta[0], added)):
        if start > ipco[0] and start >= ipco_end:
            start += len(irot)
        size = struct.unpack(">I", data[start:start + 4])[0]
        data[start:start + 4] = struct.pack(">I", size + grow)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
