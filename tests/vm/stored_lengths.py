#!/usr/bin/python3
"""Stored name lengths of a tree's top directory, read from the image with
debugfs (never e4dump), against a length rule applied to the manifest's
names.  usage: stored_lengths.py IMAGE MANIFEST TREE RULE
RULE: 2015 (max(len, 16)) or padN (min(round_up(max(len, 16), N), 255)).
Prints the lengths that differ; exit 1 if any."""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_extract import parse_manifest, read_records  # noqa: E402

img, manifest, tree, rule = sys.argv[1:5]


def entries(ino):
    data = subprocess.run(["debugfs", "-R", f"cat <{ino}>", img],
                          capture_output=True, check=True).stdout
    out, pos = [], 0
    while pos + 8 <= len(data):
        inode = int.from_bytes(data[pos:pos + 4], "little")
        rec_len = int.from_bytes(data[pos + 4:pos + 6], "little")
        name = data[pos + 8:pos + 8 + data[pos + 6]]
        if rec_len < 8:
            break
        if inode and name not in (b".", b".."):
            out.append(name)
        pos += rec_len
    return out


def stored(n):
    n = max(n, 16)
    if rule == "2015":
        return n
    pad = int(rule[3:])
    return min(-(-n // pad) * pad, 255)


root = [r for r in entries(2)]
ino = None
for line in subprocess.run(["debugfs", "-R", "ls -l /", img], capture_output=True,
                           text=True).stdout.splitlines():
    w = line.split()
    if len(w) >= 9 and w[-1] == tree:
        ino = int(w[0])
assert ino, f"no /{tree}"
_, ents = parse_manifest(manifest)
gone = {r.fields[0] for r in read_records(manifest, "removed")}
ents = [e for e in ents if e.path not in gone]
want = collections.Counter(stored(len(e.path.split(b"/")[1])) for e in ents
                           if e.tree == tree and e.path.count(b"/") == 1)
got = collections.Counter(len(n) for n in entries(ino))
print("stored lengths:", " ".join(f"{k}x{v}" for k, v in sorted(got.items())))
if got != want:
    print("want:", " ".join(f"{k}x{v}" for k, v in sorted(want.items())))
    sys.exit(1)
