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

usage: harvest_modern.py IMAGE MANIFEST KEYS_DIR LABEL [--generation 2015] >> OUT.jsonl
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
from check_extract import generate, parse_manifest, read_records, readdir_paths  # noqa: E402
from image_reader import Image  # noqa: E402
import verify_vectors as ref  # noqa: E402

KEYSIZE = {1: 64, 4: 32, 5: 16, 6: 16, 9: 32, 10: 32}
CONTENTS_TYPE = {1: "xts", 5: "essiv", 9: "adiantum"}
PER_READDIR = 600  # vectors per readdir; directories are read in full
GENERATION = "6.1"  # name format; "2015" for images of fscrypt_2015 mounts
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

    def nonce(self, ctx):
        return ctx[12:28] if self.version == 1 else ctx[24:40]

    def key(self, mode, ctx):
        n = KEYSIZE[mode]
        if self.version == 1 and self.flags & DIRECT_KEY:
            return self.master[:n]  # the master key itself (spec 6.3)
        if self.version == 1:
            nonce = self.nonce(ctx)
            k = ref.kdf_v1(self.master, nonce, n)
            v = {"type": "kdf_v1", "master": self.master.hex(), "nonce": nonce.hex(),
                 "derived": k.hex()}
        else:
            if self.flags & DIRECT_KEY:
                context, info = 3, bytes([mode])
            elif self.flags & (INO64 | INO32):
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

    def iv_fields(self, ino, ctx=None):
        if self.flags & DIRECT_KEY:
            return {"nonce": self.nonce(ctx).hex()}
        if self.flags & INO64:
            return {"iv_flags": "ino_lblk_64", "ino": ino}
        if self.flags & INO32:
            hkey = ref.hkdf_v2(self.master, 7, b"", 16)
            return {"iv_flags": "ino_lblk_32",
                    "hashed_ino": ref.siphash24(hkey, struct.pack("<Q", ino)) & ref.M32}
        return {}

    def encrypted_name_fields(self, key, ino, ctx):
        v = {"generation": GENERATION, "padding": 4 << (self.flags & 3)}
        if self.fmode != 4:
            v["mode"] = self.fmode
        v["key"] = key.hex()
        v.update(self.iv_fields(ino, ctx))
        return v


def casefold_hashes(img, pol, dino, dctx, entries_by_ct, label):
    """dirhash version 6 vectors from a casefolded encrypted directory: the
    pair the kernel stored after each name whose plaintext is ASCII (its
    casefold is then its lower case), keyed with HKDF context 5 and the
    directory's nonce."""
    key = ref.hkdf_v2(pol.master, 5, pol.nonce(dctx), 16)
    n = 0
    for e in img.dir_entries_raw(dino):
        plain = entries_by_ct.get(e["name"])
        if plain is None or not plain.isascii() or n >= 40:
            continue
        h = int.from_bytes(e["hash"][0:4], "little")
        m = int.from_bytes(e["hash"][4:8], "little")
        out({"type": "dirhash", "version": 6, "key": key.hex(),
             "name": plain.lower().hex(), "hash": h, "minor_hash": m})
        n += 1
    print(f"# {label}: {n} stored casefold hash pairs")


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
            pad = 4 << (flags & 3) if GENERATION == "6.1" else 1
            n = max(e.size, 16)
            k = ("l", None, min(-(-n // pad) * pad, bs - 3) + 2)
        else:
            k = ("d" if e.type == "d" else "f", e.mode, None if e.type == "d" else e.size)
        want.setdefault(k, []).append(e)
    done_file = False
    by_ct = {}
    for ino, ct, _ in img.dir_entries(dino):
        mode, size, raw = img.stat(ino)
        t = TYPE.get(mode & 0o170000)
        cands = want.get((t, None if t == "l" else mode & 0o7777, None if t == "d" else size), [])
        if len(cands) != 1:
            continue
        e = cands[0]
        plain = e.path.split(b"/", 1)[1]
        by_ct[ct] = plain
        v = {"type": "name"}
        v.update(pol.encrypted_name_fields(dkey, dino, dctx))
        v.update({"name": plain.hex(), "stored": ct.hex()})
        out(v)
        if t == "l":
            ctx = img.context(ino)
            blob, _ = img.symlink_blob(ino, size, raw)
            v = {"type": "symlink"}
            v.update(pol.encrypted_name_fields(pol.key(fmode, ctx), ino, ctx))
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
                v = {"type": CONTENTS_TYPE[cmode], "key": key.hex(), "lblk": lblk}
                v.update(pol.iv_fields(ino, ctx))
                v.update({"plaintext": data[lblk * bs:(lblk + 1) * bs].hex(),
                          "ciphertext": img.read(blks[lblk] * bs, bs).hex()})
                out(v)
            done_file = True
    if "casefold" in words[5:]:
        casefold_hashes(img, pol, dino, dctx, by_ct, label)


def b64url_decode(text):
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decode_2015(text):
    """Inverse of the seed's 3-byte to 4-character encoding (spec 10.1)."""
    vals = [ref.ALPHABET_2015.index(c) for c in text]
    out = bytearray()
    for i in range(0, len(vals), 4):
        a, b, c, d = (vals[i:i + 4] + [0, 0, 0])[:4]
        out += bytes([a | (b & 3) << 6, b >> 2 | (c & 0xF) << 4, c >> 4 | d << 2])
    return bytes(out)


def match_nokey(text, stored):
    """The vector for a kernel no-key name and the stored name (ciphertext,
    inode) it stands for, or (None, None)."""
    cts = [ct for ct, _ in stored]
    try:
        raw = b64url_decode(text)
    except ValueError:
        raw = None
    if raw is not None and len(raw) >= 8 + 16:
        body = raw[8:]
        m = [i for i, ct in enumerate(cts) if (ct == body if len(raw) <= 157 else
             len(ct) > 149 and ct[:149] == body[:149] and
             ref.hashlib.sha256(ct[149:]).digest() == body[149:])]
        h, mh = int.from_bytes(raw[0:4], "little"), int.from_bytes(raw[4:8], "little")
        if len(m) == 1 and ref.nokey_61(h, mh, cts[m[0]]) == text:
            return ({"type": "nokey_61", "hash": h, "minor_hash": mh,
                     "ciphertext": cts[m[0]].hex(), "nokey": text}, stored[m[0]][1])
    if all(c in ref.ALPHABET_2015 for c in text.lstrip("I")):
        if text.startswith("I") and len(text) == 45:
            digest = decode_2015(text[1:])[:32]
            m = [i for i, ct in enumerate(cts) if len(ct) > 32 and
                 ref.hashlib.sha256(ct).digest() == digest]
        else:
            body = decode_2015(text)
            m = [i for i, ct in enumerate(cts) if len(ct) <= 32 and
                 body[:len(ct)] == ct and not any(body[len(ct):])]
        if len(m) == 1:
            return ({"type": "nokey_2015", "ciphertext": cts[m[0]].hex(), "nokey": text},
                    stored[m[0]][1])
    return None, None


def harvest_readdir(img, manifest, label):
    """No-key names the kernel's readdir returned (the scenario's `readdir`
    records, recursive), each paired with the stored name it stands for,
    read from the image: nokey_61 (base64url) or nokey_2015 (fscrypt_2015
    mounts)."""
    seen = set()
    for rec in read_records(manifest, rtype="readdir"):
        tag, path = rec.fields[0], rec.fields[1]
        if b"/" in path:
            continue
        counts = {"nokey_61": 0, "nokey_2015": 0}
        unlinked = sum(1 for r in read_records(manifest, rtype="unlinked")
                       if r.fields[1].startswith(path + b"/"))
        dirs = {b"": img.root_inode(path)}
        # parents before children: sort by depth
        for name in sorted(readdir_paths(manifest, tag, strip=True), key=lambda n: n.count(b"/")):
            parent, _, leaf = name.rpartition(b"/")
            if parent not in dirs:
                continue  # below a directory that could not be matched
            stored = [(ct, ino) for ino, ct, _ in img.dir_entries(dirs[parent])]
            v, ino = match_nokey(leaf.decode("ascii"), stored)
            if v is None:
                if unlinked:  # the scenario removed an entry after this readdir
                    unlinked -= 1
                    continue
                raise SystemExit(f"{label}: readdir {tag}: no stored name for {name!r}")
            dirs[name] = ino
            key = (v["type"], v["ciphertext"])
            if key not in seen and sum(counts.values()) < PER_READDIR:
                seen.add(key)
                counts[v["type"]] += 1
                out(v)
        print(f"# {label}: readdir {tag} ({path.decode()}): " +
              ", ".join(f"{k} {n}" for k, n in counts.items()))


def main():
    global GENERATION
    image, manifest, keys, label = sys.argv[1:5]
    if sys.argv[5:] == ["--generation", "2015"]:
        GENERATION = "2015"
    trees, entries = parse_manifest(manifest)
    with tempfile.TemporaryDirectory() as tmp:
        img = Image(image, tmp)
        print(f"# {label}: Linux 6.1, block size {img.blocksize()}")
        for tree, words in trees.items():
            if words[0] in ("enc", "enc2"):
                print(f"# {label}: tree {tree} ({' '.join(words[:5])})")
                harvest_tree(img, keys, tree, words, entries, label)
        harvest_readdir(img, manifest, label)


if __name__ == "__main__":
    main()
