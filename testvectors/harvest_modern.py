#!/usr/bin/python3
"""Harvest JSON Lines vectors (testvectors/README.md) from a kernel-written
image with any policy: v1 or v2, AES-256-XTS/CTS or AES-128-CBC-ESSIV/CTS,
the IV_INO_LBLK flags, any block size.

The ciphertext is what Linux wrote (read with debugfs and from the image
file, never with e4dump), the plaintext is the guest's manifest, and the
keys are derived here with the independent implementation of
tests/vectors/verify_vectors.py (pycryptodome AES, hashlib HKDF/SipHash).
Each tree gives: its root's context; the derivation of each key used;
the names of its root entries identified uniquely in the manifest; its
symlinks; and data units 0, 1 and the middle one of one regular file.

usage: harvest_modern.py IMAGE MANIFEST KEYS_DIR LABEL >> OUT.jsonl
"""
import json
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vectors"))
sys.path.insert(0, HERE)
from check_extract import generate, parse_manifest  # noqa: E402
from image_reader import Image  # noqa: E402
import verify_vectors as ref  # noqa: E402

KEYSIZE = {1: 64, 4: 32, 5: 16, 6: 16}
DIRECT_KEY, INO64, INO32 = 0x04, 0x08, 0x10
TYPE = {0o040000: "d", 0o100000: "f", 0o120000: "l"}


def out(v):
    print(json.dumps(v, separators=(",", ":")))


class Policy:
    """Keys and IV fields of one tree's policy (spec 6.3)."""

    def __init__(self, img, master, ctx, label):
        self.img, self.master, self.label = img, master, label
        self.version, self.cmode, self.fmode, self.flags = ctx[0], ctx[1], ctx[2], ctx[3]
        self.uuid = img.superblock()[0x68:0x78]
        self.emitted = set()
        if self.flags & DIRECT_KEY:
            raise SystemExit("DIRECT_KEY trees are not harvested (Adiantum)")

    def nonce(self, ctx):
        return ctx[12:28] if self.version == 1 else ctx[24:40]

    def key(self, mode, ctx):
        n = KEYSIZE[mode]
        if self.version == 1:
            nonce = self.nonce(ctx)
            k = ref.kdf_v1(self.master, nonce, n)
            v = {"type": "kdf_v1", "master": self.master.hex(), "nonce": nonce.hex(),
                 "derived": k.hex()}
        else:
            if self.flags & (INO64 | INO32):
                context, info = (4 if self.flags & INO64 else 6), bytes([mode]) + self.uuid
            else:
                context, info = 2, self.nonce(ctx)
            k = ref.hkdf_v2(self.master, context, info, n)
            v = {"type": "hkdf_v2", "master": self.master.hex(), "context": context,
                 "info": info.hex(), "derived": k.hex()}
        if (v["type"], k) not in self.emitted:  # per-mode keys repeat
            self.emitted.add((v["type"], k))
            out(v)
        return k

    def iv_fields(self, ino):
        if self.flags & INO64:
            return {"iv_flags": "ino_lblk_64", "ino": ino}
        if self.flags & INO32:
            hkey = ref.hkdf_v2(self.master, 7, b"", 16)
            return {"iv_flags": "ino_lblk_32",
                    "hashed_ino": ref.siphash24(hkey, struct.pack("<Q", ino)) & ref.M32}
        return {}

    def encrypted_name_fields(self, key, ino):
        v = {"generation": "6.1", "padding": 4 << (self.flags & 3)}
        if self.fmode == 6:
            v["mode"] = 6
        v["key"] = key.hex()
        v.update(self.iv_fields(ino))
        return v


def harvest_tree(img, keys, tree, words, entries, label):
    kind = words[0]
    ident = words[1]
    with open(os.path.join(keys, ident + ".key"), "rb") as f:
        master = f.read()
    dino = img.root_inode(tree.encode())
    dctx = img.context(dino)
    pol = Policy(img, master, dctx, label)
    cmode, fmode, flags = (int(w, 0) for w in words[2:5])
    out({"type": "context", "bytes": dctx.hex(), "result": "ok",
         "version": 1 if kind == "enc" else 2, "contents_mode": cmode,
         "filenames_mode": fmode, "flags": flags, "key_id": ident,
         "nonce": pol.nonce(dctx).hex()})
    dkey = pol.key(fmode, dctx)
    want = {}
    bs = img.blocksize()
    for e in entries:
        if e.tree != tree or e.path.count(b"/") != 1 or e.type == "h":
            continue
        if e.type == "l":
            pad = 4 << (flags & 3)
            n = max(e.size, 16)
            k = ("l", None, min(-(-n // pad) * pad, bs - 3) + 2)
        else:
            k = ("d" if e.type == "d" else "f", e.mode, None if e.type == "d" else e.size)
        want.setdefault(k, []).append(e)
    done_file = False
    for ino, ct, _ in img.dir_entries(dino):
        mode, size, raw = img.stat(ino)
        t = TYPE.get(mode & 0o170000)
        cands = want.get((t, None if t == "l" else mode & 0o7777, None if t == "d" else size), [])
        if len(cands) != 1:
            continue
        e = cands[0]
        plain = e.path.split(b"/", 1)[1]
        v = {"type": "name"}
        v.update(pol.encrypted_name_fields(dkey, dino))
        v.update({"name": plain.hex(), "stored": ct.hex()})
        out(v)
        if t == "l":
            ctx = img.context(ino)
            blob, _ = img.symlink_blob(ino, size, raw)
            v = {"type": "symlink"}
            v.update(pol.encrypted_name_fields(pol.key(fmode, ctx), ino))
            v.update({"target": e.target.hex(), "blob": blob.hex()})
            out(v)
        elif t == "f" and e.type == "f" and size >= 2 * bs and not done_file:
            ctx = img.context(ino)
            key = pol.key(cmode, ctx)
            data = generate(e.seed, size)
            blks = img.blocks(ino)
            for lblk in sorted({0, 1, len(blks) // 2}):
                if (lblk + 1) * bs > size:
                    continue
                v = {"type": "xts" if cmode == 1 else "essiv", "key": key.hex(), "lblk": lblk}
                v.update(pol.iv_fields(ino))
                v.update({"plaintext": data[lblk * bs:(lblk + 1) * bs].hex(),
                          "ciphertext": img.read(blks[lblk] * bs, bs).hex()})
                out(v)
            done_file = True


def main():
    image, manifest, keys, label = sys.argv[1:5]
    trees, entries = parse_manifest(manifest)
    with tempfile.TemporaryDirectory() as tmp:
        img = Image(image, tmp)
        print(f"# {label}: Linux 6.1, block size {img.blocksize()}")
        for tree, words in trees.items():
            if words[0] in ("enc", "enc2"):
                print(f"# {label}: tree {tree} ({' '.join(words[:5])})")
                harvest_tree(img, keys, tree, words, entries, label)


if __name__ == "__main__":
    main()
