#!/usr/bin/python3
"""Nonce uniqueness and randomness (the checks of xfstests generic/613):
every encrypted inode of a kernel-written image has its own 16-byte nonce,
and the nonces, concatenated in inode order, do not compress (xz, as
generic/613: at least 55 bytes larger than the input).  Reads the
contexts with tests/lib/ext4img.py (never e4dump): v1 contexts are 28
bytes with the nonce at 12, v2 contexts 40 bytes with the nonce at 24.
Prints the number of contexts and exits 1 on a repeated nonce, compressible
nonces, a context of another size, or an image with fewer than MIN contexts.

usage: nonces.py IMAGE [MIN]"""
import collections
import lzma
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ext4img  # noqa: E402

img, least = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
im = ext4img.Image(img)
seen = collections.defaultdict(list)
stream = []
bad = 0
for ino in range(1, im.superblock()["inodes_count"] + 1):
    i = im.inode(ino)
    if not i.mode or not i.links_count or not i.flags & ext4img.ENCRYPT_FL:
        continue
    ctx = im.context(ino)
    if ctx is None or len(ctx) not in (28, 40):
        print(f"inode {ino}: context {ctx!r}")
        bad += 1
        continue
    nonce = ctx[12:28] if len(ctx) == 28 else ctx[24:40]
    seen[nonce].append(ino)
    stream.append(nonce)
dups = {n: v for n, v in seen.items() if len(v) > 1}
for n, v in dups.items():
    print(f"nonce {n.hex()} shared by inodes {v}")
total = sum(len(v) for v in seen.values())
raw = b"".join(stream)
packed = len(lzma.compress(raw, format=lzma.FORMAT_XZ))
random = packed >= len(raw) + 55
print(f"{total} encrypted inodes, {len(seen)} distinct nonces;"
      f" xz: {len(raw)} bytes -> {packed}{'' if random else ' (compressible)'}")
sys.exit(1 if dups or bad or not random or total < least else 0)
