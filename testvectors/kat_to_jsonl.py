#!/usr/bin/python3
"""Turn the harvested kernel vectors (kernel/v1-kat.txt) into JSON Lines of
the generated-vector format, so that both implementations check the
kernel's bytes: per-file keys are derived here with pycryptodome, the name
padding comes from the tree's context flags (comment lines).
usage: kat_to_jsonl.py kernel/v1-kat.txt > kernel/v1-kat.jsonl"""
import json
import re
import sys

from Cryptodome.Cipher import AES


def derive(master, nonce, n):
    return AES.new(nonce, AES.MODE_ECB).encrypt(master[:n])


pad = None
for line in open(sys.argv[1]):
    m = re.match(r"# tree \S+: descriptor \S+, flags (\d+)", line)
    if m:
        pad = 4 << (int(m.group(1)) & 3)
    if line.startswith("#") or not line.strip():
        continue
    kind, *f = line.split()
    b = [bytes.fromhex(x) for x in f]
    if kind == "kdf":
        out = {"type": "kdf_v1", "master": f[0], "nonce": f[1], "derived": f[2]}
    elif kind == "name":
        out = {"type": "name", "generation": "6.1", "padding": pad,
               "key": derive(b[0], b[1], 32).hex(), "name": f[3], "stored": f[2]}
    elif kind == "symlink":
        out = {"type": "symlink", "generation": "6.1", "padding": pad,
               "key": derive(b[0], b[1], 32).hex(), "target": f[3], "blob": f[2]}
    elif kind == "block":
        out = {"type": "xts", "key": derive(b[0], b[1], 64).hex(),
               "lblk": int.from_bytes(b[2], "little"), "plaintext": f[4],
               "ciphertext": f[3]}
    else:
        sys.exit(f"unknown line type {kind}")
    print(json.dumps(out, separators=(",", ":")))
