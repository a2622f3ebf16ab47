#!/usr/bin/python3
"""Harvest known-answer vectors from a kernel-written image.

Everything here comes from outside e4dump: raw bytes are read from the image
with debugfs (contexts, directory blocks, inode and block locations) and
from the image file itself; plaintexts come from the guest's manifest and
the content generator of tests/vm/check_extract.py; derived keys are
computed with pycryptodome (an AES implementation independent of OpenSSL).

usage: harvest.py IMAGE MANIFEST KEYS_DIR OUT_FILE
"""
import os
import subprocess
import sys

from Cryptodome.Cipher import AES

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
sys.path.insert(0, HERE)
from check_extract import generate, parse_manifest  # noqa: E402
from image_reader import Image  # noqa: E402

IMG, MANIFEST, KEYS, OUT = sys.argv[1:5]


IMAGE = Image(IMG, os.path.dirname(os.path.abspath(OUT)))
blocksize, context, blocks = IMAGE.blocksize, IMAGE.context, IMAGE.blocks
dir_entries, stat_of, root_inode = IMAGE.dir_entries, IMAGE.stat, IMAGE.root_inode


def kdf(master, nonce, n):
    return AES.new(nonce, AES.MODE_ECB).encrypt(master[:n])


trees, entries = parse_manifest(MANIFEST)
lines = ["# Known-answer vectors harvested from an image written by Linux 6.1",
         "# (testvectors/harvest.sh; format in testvectors/README.md).",
         f"# image: {os.path.basename(IMG)}, block size {blocksize()}"]
counts = {"kdf": 0, "name": 0, "symlink": 0, "block": 0}


def emit(kind, *fields, note=""):
    if note:
        lines.append(f"# {note}")
    lines.append(" ".join([kind] + [f.hex() for f in fields]))
    counts[kind] += 1


TYPE = {0o040000: "d", 0o100000: "f", 0o120000: "l"}

for tree, words in trees.items():
    if words[0] != "enc":
        continue
    desc = words[1]
    with open(os.path.join(KEYS, desc + ".key"), "rb") as f:
        master = f.read()
    dino = root_inode(tree.encode())
    dctx = context(dino)
    dnonce = dctx[12:28]
    lines.append(f"# tree {tree}: descriptor {desc}, flags {dctx[3]}, directory inode {dino}")
    emit("kdf", master, dnonce, kdf(master, dnonce, 32), note=f"{tree}: names key of the tree root")
    # Entries of the tree root, paired with the manifest by (type, mode, size).
    want = {}
    for e in entries:
        if e.tree != tree or e.path.count(b"/") != 1 or e.type == "h":
            continue
        if e.type == "l":
            # i_size of an encrypted symlink: 2-byte header + padded target
            pad = 4 << (dctx[3] & 3)
            n = max(e.size, 16)
            key = ("l", None, min(-(-n // pad) * pad, blocksize() - 3) + 2)
        else:
            key = ("d" if e.type == "d" else "f", e.mode,
                   None if e.type == "d" else e.size)
        want.setdefault(key, []).append(e)
    done_block = False
    for ino, ct, _ in dir_entries(dino):
        mode, size, raw = stat_of(ino)
        t = TYPE.get(mode & 0o170000)
        key = (t, None if t == "l" else mode & 0o7777, None if t == "d" else size)
        cands = want.get(key, [])
        if len(cands) != 1:
            continue  # not uniquely identified: no vector
        e = cands[0]
        plain = e.path.split(b"/", 1)[1]
        emit("name", master, dnonce, ct, plain,
             note=f"{tree}: name of {len(plain)} bytes stored as {len(ct)}: {plain.decode('utf-8', 'replace')}")
        if t == "l":
            nonce = context(ino)[12:28]
            blob, where = IMAGE.symlink_blob(ino, size, raw)
            emit("symlink", master, nonce, blob, e.target,
                 note=f"{tree}: symlink {plain.decode('utf-8', 'replace')} ({where})")
        elif t == "f" and e.type == "f" and size >= 2 * blocksize() and not done_block:
            nonce = context(ino)[12:28]
            emit("kdf", master, nonce, kdf(master, nonce, 64), note=f"{tree}: contents key of {plain.decode('utf-8', 'replace')}")
            data = generate(e.seed, size)
            blks = blocks(ino)
            for lblk in (0, 1, len(blks) // 2):
                if (lblk + 1) * blocksize() > size:
                    continue
                ctb = IMAGE.read(blks[lblk] * blocksize(), blocksize())
                emit("block", master, nonce, lblk.to_bytes(8, "little"), ctb,
                     data[lblk * blocksize():(lblk + 1) * blocksize()],
                     note=f"{tree}: logical block {lblk} of {plain.decode('utf-8', 'replace')}")
            done_block = True

with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"harvest: {OUT}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
