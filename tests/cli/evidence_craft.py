#!/usr/bin/python3
"""Damage made to evidence files for tests/cli/evidence_*.sh, from their
formats' documents, never from e4dump.

usage: evidence_craft.py e01-flip IN.E01 OUT.E01 CHUNK...
    copy IN to OUT with one byte flipped in the middle of the stored data
    of each chunk CHUNK (its compressed bytes when it is compressed;
    FIRST:LAST:STEP is every STEP-th chunk from FIRST to LAST), as the
    table section of the EWF-E01 segment says where it is (libewf's
    "Expert Witness Compression Format" document: a file header of 13
    bytes, then sections of a 76-byte descriptor: type[16], next offset
    u64 at 16, size u64 at 24; the table section's data: the number of
    entries u32 at 0, the base offset u64 at 8, the entries (u32, the
    top bit: compressed) from 24).  Prints, a line per chunk, the offset
    flipped and whether the chunk is compressed.
"""
import shutil
import struct
import sys


def sections(data):
    off = 13
    seen = set()
    while off + 76 <= len(data) and off not in seen:
        seen.add(off)
        kind = data[off:off + 16].rstrip(b"\0").decode("ascii", "replace")
        nxt, size = struct.unpack_from("<QQ", data, off + 16)
        yield kind, off, size
        if kind in ("done", "next") or nxt <= off:
            break
        off = nxt


def chunk_place(data, chunk):
    """(offset, length, compressed) of the chunk's stored bytes."""
    for kind, off, size in sections(data):
        if kind != "table":
            continue
        n, = struct.unpack_from("<I", data, off + 76)
        base, = struct.unpack_from("<Q", data, off + 76 + 8)
        ents = [struct.unpack_from("<I", data, off + 76 + 24 + 4 * i)[0] for i in range(n)]
        if chunk >= n:
            chunk -= n
            continue
        start = base + (ents[chunk] & 0x7fffffff)
        if chunk + 1 < n:
            end = base + (ents[chunk + 1] & 0x7fffffff)
        else:
            # the last chunk of the table ends where its sectors section
            # ends: the sectors section holds the chunks, before the table
            end = max(o + s for k, o, s in sections(data) if k == "sectors" and o < off)
        return start, end - start, bool(ents[chunk] & 0x80000000)
    sys.exit(f"e01-flip: no chunk {chunk} in the tables")


def flip_chunks(path, chunks):
    """Flip a byte in the middle of each chunk's stored data in place:
    [(its offset, whether the chunk is compressed)]."""
    with open(path, "r+b") as f:
        data = f.read()
        done = []
        for chunk in chunks:
            start, length, compressed = chunk_place(data, chunk)
            at = start + length // 2
            f.seek(at)
            f.write(bytes([data[at] ^ 0x55]))
            done.append((at, compressed))
    return done


def flip_chunk(path, chunk):
    """flip_chunks of one chunk: (its offset, whether compressed)."""
    return flip_chunks(path, [chunk])[0]


def chunk_numbers(args):
    for a in args:
        if ":" in a:
            first, last, step = (int(x) for x in a.split(":"))
            yield from range(first, last + 1, step)
        else:
            yield int(a)


def main():
    if len(sys.argv) < 5 or sys.argv[1] != "e01-flip":
        sys.exit(__doc__)
    src, dst = sys.argv[2], sys.argv[3]
    shutil.copyfile(src, dst)
    for at, compressed in flip_chunks(dst, list(chunk_numbers(sys.argv[4:]))):
        print(at, "compressed" if compressed else "stored")


if __name__ == "__main__":
    main()
