#!/usr/bin/python3
"""Stored name lengths of a tree's top directory, read from the image with
tests/lib/ext4img.py (never e4dump), against a length rule applied to the
manifest's names.  usage: stored_lengths.py IMAGE MANIFEST TREE RULE
RULE: 2015 (max(len, 16)) or padN (min(round_up(max(len, 16), N), 255)).
Prints the lengths that differ; exit 1 if any."""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
from check_extract import parse_manifest, read_records  # noqa: E402
import ext4img  # noqa: E402

img, manifest, tree, rule = sys.argv[1:5]
im = ext4img.Image(img)


def entries(ino):
    return [d.name for d in im.dir_entries(ino) if d.name not in (b".", b"..")]


def stored(n):
    n = max(n, 16)
    if rule == "2015":
        return n
    pad = int(rule[3:])
    return min(-(-n // pad) * pad, 255)


ino = im.lookup(tree)
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
