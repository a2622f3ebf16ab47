#!/usr/bin/python3
"""Make damaged copies of the kernel-written sample image: the encryption
context of one directory gets a bad version, a truncated length, or a value
that no longer matches its xattr hash.

usage: corrupt_context.py SAMPLE_IMG PATH OUT_PREFIX
Writes OUT_PREFIX-version.img, OUT_PREFIX-truncated.img, OUT_PREFIX-hash.img.
The context is the in-inode xattr of index 9, name "c" (tests/lib/ext4img.py);
checksums are left stale (e4dump ignores them).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ext4img  # noqa: E402

img, path, prefix = sys.argv[1:4]
im = ext4img.Image(img)
x = im.find_xattr(im.lookup(path), ext4img.XATTR_INDEX_ENCRYPTION, b"c")
assert x and x.in_inode and len(x.value) == 28, x
# Entry header: name_len, name_index, value_offs(le16), value_inum(le32),
# value_size(le32), hash(le32), name.
hpos, vpos = x.entry_off, x.value_off
with open(img, "rb") as f:
    data = f.read()


def write(name, edit):
    d = bytearray(data)
    edit(d)
    with open(f"{prefix}-{name}.img", "wb") as f:
        f.write(d)


def bad_version(d):
    d[vpos] = 3
    d[hpos + 12:hpos + 16] = b"\0\0\0\0"  # e_hash 0: not checked


def truncated(d):
    d[hpos + 8:hpos + 12] = (27).to_bytes(4, "little")
    d[hpos + 12:hpos + 16] = b"\0\0\0\0"


def bad_hash(d):
    d[vpos + 20] ^= 0xff  # nonce byte changed, hash kept


write("version", bad_version)
write("truncated", truncated)
write("hash", bad_hash)
