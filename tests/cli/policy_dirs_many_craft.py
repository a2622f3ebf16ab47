#!/usr/bin/python3
"""More policies than info collects the directories of (64), for
tests/cli/policy_dirs.sh: a fresh ext4 (mkfs.ext4 -O encrypt) with /x and
/y, then 35 directories /y/dNN and 35 /x/dNN made in that order by
debugfs (so the walk, which enters /x first, meets them in another order
than the inode numbers), each given the encrypt flag and an in-inode v1
context of its own descriptor (00..00NN, NN = 0..69 in inode order) with
tests/lib/ext4img.py (never e4dump).
usage: policy_dirs_many_craft.py OUT_IMG"""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ext4img  # noqa: E402

out = sys.argv[1]
subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "encrypt", "-I", "256", "-b", "4096", out, "8M"],
               check=True)
subprocess.run(["debugfs", "-w", "-f", "-", out], check=True, capture_output=True,
               input=("mkdir /x\nmkdir /y\n" +
                      "".join("mkdir /y/d%02d\n" % n for n in range(35)) +
                      "".join("mkdir /x/d%02d\n" % n for n in range(35, 70))).encode())
im = ext4img.Image(out, write=True)
for n in range(70):
    ino = im.lookup(b"/%s/d%02d" % (b"y" if n < 35 else b"x", n))
    value = bytes([1, 1, 4, 0]) + struct.pack(">Q", n) + bytes(range(0x40, 0x50))
    im.set_inode_xattr_area(ino, ext4img.XATTR_INDEX_ENCRYPTION, b"c", value)
    im.write_inode(ino, {"flags": im.inode(ino).flags | ext4img.ENCRYPT_FL})
