#!/usr/bin/python3
"""Make damaged copies of the kernel-written sample image: the encryption
context of one directory gets a bad version, a truncated length, or a value
that no longer matches its xattr hash.

usage: corrupt_context.py SAMPLE_IMG PATH OUT_PREFIX
Writes OUT_PREFIX-version.img, OUT_PREFIX-truncated.img, OUT_PREFIX-hash.img.
The xattr entry is located with debugfs (the context value) and by its
header in the image file: e_name_len 1, e_name_index 9, name "c".
"""
import os
import subprocess
import sys

img, path, prefix = sys.argv[1:4]
tmp = prefix + ".ctx"
subprocess.run(["debugfs", "-R", f"ea_get -f {tmp} {path} c", img],
               check=True, capture_output=True)
ctx = open(tmp, "rb").read()
os.unlink(tmp)
assert len(ctx) == 28, ctx.hex()
data = bytearray(open(img, "rb").read())
vpos = data.find(ctx)
assert vpos > 0 and data.find(ctx, vpos + 1) < 0, "context bytes not unique"
# In-inode xattr entry header: name_len, name_index, value_offs(le16),
# value_inum(le32), value_size(le32), hash(le32), name.
hpos = -1
for off in range(vpos - 256, vpos):
    h = data[off:off + 17]
    if (h[0] == 1 and h[1] == 9 and h[4:8] == b"\0\0\0\0"
            and h[8:12] == (28).to_bytes(4, "little") and h[16:17] == b"c"):
        hpos = off
assert hpos >= 0, "xattr entry header not found"


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
