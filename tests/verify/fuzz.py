#!/usr/bin/python3
"""Random damage to the metadata of the corpus bases: e4dump verify must
finish (no hang: a timeout), exit 0, 1 or 2, and never trip a sanitizer.

usage: fuzz.py E4DUMP CORPUSDIR [ITERATIONS]
Each round (on copies of the sample and v1-pad bases) overwrites a few
random bytes of directory
blocks (htree roots and leaves included), inode table entries (xattrs,
i_block, sizes, flags) of a base, runs verify with and without the keys,
and puts the bytes back.  The seed is fixed, so a failure is repeatable."""
import glob
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from imgtool import Image  # noqa: E402


def regions(img):
    """(offset, length) of the metadata worth damaging: the first in-use
    inodes (fields, i_block, in-inode xattrs) and the first blocks of
    their directories (entries, dx roots and nodes)."""
    out = []
    for ino in range(2, 200):
        raw = img.inode_bytes(ino)
        if not int.from_bytes(raw[0x1a:0x1c], "little"):
            continue
        off = img.inode_offset(ino)
        out += [(off, 0x70), (off + 0x80, 0x80)]
        if int.from_bytes(raw[0:2], "little") & 0xf000 == 0x4000:
            for b in img.blocks(ino)[:3]:
                out.append((b * img.bs, 512))
    return out


def main():
    e4dump, corpus = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 120
    rng = random.Random(20261203)
    failed = 0
    bases = []
    os.makedirs(os.path.join(corpus, "fuzz"), exist_ok=True)
    for name in ("sample", "pad"):
        # a copy: the bases are shared with the other tests
        path = os.path.join(corpus, "fuzz", name + ".img")
        subprocess.run(["cp", "--sparse=always",
                        os.path.join(corpus, "bases", name, name + ".img"), path],
                       check=True)
        img = Image(path)
        keys = []
        for k in sorted(glob.glob(os.path.join(corpus, "bases", name, "keys", "*.key"))):
            keys += ["--key-file", k]
        bases.append((path, img, keys, regions(img)))
    for i in range(rounds):
        path, img, keys, regs = bases[0] if i % 4 else bases[1]
        saved = []
        for _ in range(rng.randint(1, 6)):
            off, n = rng.choice(regs)
            pos = off + rng.randrange(n)
            k = rng.choice((1, 1, 2, 4))
            saved.append((pos, img.read(pos, k)))
            val = bytes(rng.choice((0, 0xff, rng.randrange(256))) for _ in range(k))
            img.write(pos, val)
        try:
            for args in ([], keys):
                try:
                    r = subprocess.run([e4dump, "verify"] + args + [path],
                                       capture_output=True, timeout=60)
                except subprocess.TimeoutExpired:
                    print(f"FAIL: round {i}: timeout")
                    failed += 1
                    continue
                err = r.stderr.decode(errors="replace")
                if r.returncode not in (0, 1, 2) or "Sanitizer" in err or \
                        "runtime error" in err:
                    print(f"FAIL: round {i}: exit {r.returncode}\n{err[-3000:]}")
                    failed += 1
        finally:
            for pos, old in reversed(saved):
                img.write(pos, old)
    print(f"{2 * rounds - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
