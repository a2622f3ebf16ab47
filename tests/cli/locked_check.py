#!/usr/bin/env python3
"""extract --keep-locked: each sidecar NAME.e4dump.json holds what a later
decryption needs.  For every sidecar under OUTDIR: the ciphertext file
beside it is the file's stored bytes as debugfs dumps them (up to i_size)
followed by the rest of its last block; and where a KEYFILE opens it (its
e4crypt descriptor is the v1 policy's, or its identifier the v2 policy's;
AES-256-XTS contents, no IV flags) it is decrypted here from the sidecar's
nonce and block runs alone (v1, fs/crypto/keysetup_v1.c: AES-128-ECB of
the master key under the nonce; v2: HKDF-SHA512, context 2, the nonce;
XTS with the file block number as tweak; blocks not mapped are zeros) and
must be contents the kernel wrote (the manifest's generator).  Symlinks:
the no-key target written is the one in the sidecar.
Prints "FILES DECRYPTED SYMLINKS".
usage: locked_check.py MANIFEST OUTDIR IMAGE [KEYFILE]..."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "vm"))
sys.path.insert(0, os.path.join(here, "..", "vectors"))
import check_extract  # noqa: E402
from verify_vectors import (kdf_v1, hkdf_v2, xts_decrypt, fscrypt_tweak,  # noqa: E402
                            e4crypt_descriptor)


def load_key(path):
    data = open(path, "rb").read()
    try:
        text = data.decode().strip()
        if len(text) in range(32, 129) and all(c in "0123456789abcdefABCDEF" for c in text):
            return bytes.fromhex(text)
    except UnicodeDecodeError:
        pass
    return data


def debugfs_dumps(image, inodes, tmp):
    """Every inode's stored bytes, by one debugfs run."""
    cmds = os.path.join(tmp, "cmds")
    with open(cmds, "w") as f:
        for i in inodes:
            f.write("dump <%d> %s/%d\n" % (i, tmp, i))
    subprocess.run(["debugfs", "-f", cmds, image], check=True, capture_output=True)
    return {i: open(os.path.join(tmp, str(i)), "rb").read() for i in inodes}


def main():
    manifest, outdir, image = sys.argv[1:4]
    masters = {}
    for k in map(load_key, sys.argv[4:]):
        masters[e4crypt_descriptor(k).hex()] = k
        masters[hkdf_v2(k, 1, b"", 16).hex()] = k   # v2 identifier
    contents = set()
    cache = {}
    for e in check_extract.parse_manifest(manifest)[1]:
        if e.type in ("f", "s", "h"):
            contents.add(check_extract.expected_content(e, cache))
    files = decrypted = links = 0
    sides = []
    for d, _, names in os.walk(outdir):
        for n in names:
            if n.endswith(".e4dump.json"):
                sides.append((d, json.load(open(os.path.join(d, n)))))
    tmp = tempfile.mkdtemp()
    try:
        dumps = debugfs_dumps(image, sorted({s["inode"] for _, s in sides
                                             if s["file_type"] == "regular"}), tmp)
    finally:
        shutil.rmtree(tmp)
    for d, side in sides:
        ct_path = os.path.join(d, side["ciphertext_file"])
        assert side["type"] == "locked", side
        enc = side["encryption"]
        if side["file_type"] == "symlink":
            assert os.readlink(ct_path) == side["symlink_nokey_target"], ct_path
            links += 1
            continue
        bs = side["block_size"]
        ct = open(ct_path, "rb").read()
        size = side["plaintext_size"]
        assert len(ct) == side["ciphertext_bytes"] == -(-size // bs) * bs, ct_path
        assert ct[:size] == dumps[side["inode"]], ct_path
        files += 1
        flags = int(enc["policy_flags"], 16)
        master = masters.get(enc.get("descriptor") or enc.get("identifier"))
        if master is None or enc["contents_mode"] != 1 or flags & 0x1c:
            continue
        nonce = bytes.fromhex(enc["nonce"])
        # v2: fs/crypto/keysetup.c, HKDF context 2 (per-file key)
        key = kdf_v1(master, nonce, 64) if enc["policy_version"] == 1 else hkdf_v2(master, 2, nonce, 64)
        # holes and unwritten extents read as zeros, not decrypted
        mapped = set()
        for r in side["blocks"]:
            if not r["unwritten"]:
                mapped.update(range(r["logical"], r["logical"] + r["blocks"]))
        plain = b"".join(xts_decrypt(key, fscrypt_tweak(i), ct[i * bs:(i + 1) * bs])
                         if i in mapped else bytes(bs)
                         for i in range(len(ct) // bs))[:size]
        assert plain in contents, "%s: decrypts to nothing the kernel wrote" % ct_path
        decrypted += 1
    print(files, decrypted, links)
    return 0


if __name__ == "__main__":
    sys.exit(main())
