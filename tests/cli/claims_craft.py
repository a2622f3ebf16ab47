#!/usr/bin/python3
"""Images whose data blocks are claimed more than once (e2fsck's
multiply-claimed blocks, pass 1B), made by mkfs.ext4 -d and edited with
tests/lib/ext4img.py (never e4dump).

usage: claims_craft.py OUT.img
  /same   one extent leaf of 340 extents (32 blocks each), all at the same
          32 blocks: 340 x 128 KiB = 42.5 MiB of file from a 4 MiB image
  /b      its block is /a's block (two files)
  /meta   its block is the first block of group 0's inode table
  /ok     a healthy file
"""
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
import ext4img  # noqa: E402
from ext4img import Image, extent_node  # noqa: E402


def block_of(data, bs):
    return bytes(data) + bytes(bs - len(data))


def main():
    out = sys.argv[1]
    src = tempfile.mkdtemp(prefix="e4claims-")
    for name, data in {"same": b"S" * 4096, "a": b"a" * 4096, "b": b"b" * 4096,
                       "meta": b"m" * 4096, "ok": b"ok\n"}.items():
        with open(os.path.join(src, name), "wb") as f:
            f.write(data)
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run(["truncate", "-s", "4M", out], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-N", "64", "-E", "root_owner=0:0",
                    "-O", "^metadata_csum", "-d", src, out], check=True,
                   env=dict(os.environ, E2FSPROGS_FAKE_TIME="1700000000"))
    shutil.rmtree(src)
    im = Image(out, write=True)
    bs = im.bs
    # /same: 32 blocks of data, mapped 340 times by one leaf
    data = im.alloc_blocks(32, goal=256, csum=False)
    assert data == list(range(data[0], data[0] + 32)), data
    for k, b in enumerate(data):
        im.write_block(b, (b"%06d" % k).ljust(bs, b"D"))
    leaf = im.alloc_blocks(1, csum=False)[0]
    per = (bs - 12) // 12
    im.write_block(leaf, block_of(extent_node(0, [(k * 32, 32, data[0], False) for k in range(per)], per), bs))
    ino = im.lookup("/same")
    root = block_of(extent_node(1, [(0, leaf)], 4), 60)
    im.write_inode(ino, {"block": root, "size": per * 32 * bs,
                         "flags": im.inode(ino).flags | ext4img.EXTENTS_FL}, csum=False)
    # /b at /a's block; /meta at the inode table
    a_blk = im.block_map(im.lookup("/a"))[0].pblk
    itable = im.group(0)["inode_table"]
    for name, pblk in (("b", a_blk), ("meta", itable)):
        i = im.lookup("/" + name)
        im.write_inode(i, {"block": block_of(extent_node(0, [(0, 1, pblk, False)], 4), 60)}, csum=False)
    im.close()


if __name__ == "__main__":
    main()
