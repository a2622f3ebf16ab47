#!/usr/bin/env python3
"""extract --keep-locked: each sidecar NAME.e4dump.json holds what a later
decryption needs.  For every sidecar under OUTDIR: the ciphertext file
beside it is the file's stored bytes as debugfs dumps them (up to i_size)
followed by the rest of its last block; and where a KEYFILE opens it (its
e4crypt descriptor is the v1 policy's; AES-256-XTS contents, no IV flags) it is decrypted here, with the
sidecar's nonce alone (fs/crypto/keysetup_v1.c: AES-128-ECB of the master
key under the nonce; XTS with the file block number as tweak), and must be
the contents the kernel wrote (the manifest's generator).  Symlinks: the
no-key target written is the one in the sidecar.
Prints "FILES DECRYPTED SYMLINKS".
usage: locked_check.py MANIFEST OUTDIR IMAGE [KEYFILE]..."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "vm"))
sys.path.insert(0, os.path.join(here, "..", "vectors"))
import check_extract  # noqa: E402
from verify_vectors import kdf_v1, xts_decrypt, fscrypt_tweak, e4crypt_descriptor  # noqa: E402


def load_key(path):
    data = open(path, "rb").read()
    try:
        text = data.decode().strip()
        if len(text) in range(32, 129) and all(c in "0123456789abcdefABCDEF" for c in text):
            return bytes.fromhex(text)
    except UnicodeDecodeError:
        pass
    return data


def debugfs_dump(image, ino):
    with tempfile.NamedTemporaryFile() as t:
        subprocess.run(["debugfs", "-R", "dump <%d> %s" % (ino, t.name), image],
                       check=True, capture_output=True)
        return open(t.name, "rb").read()


def main():
    manifest, outdir, image = sys.argv[1:4]
    masters = {e4crypt_descriptor(k).hex(): k for k in map(load_key, sys.argv[4:])}
    contents = set()
    cache = {}
    for e in check_extract.parse_manifest(manifest)[1]:
        if e.type in ("f", "s", "h"):
            contents.add(check_extract.expected_content(e, cache))
    files = decrypted = links = 0
    for d, _, names in os.walk(outdir):
        for n in names:
            if not n.endswith(".e4dump.json"):
                continue
            side = json.load(open(os.path.join(d, n)))
            ct_path = os.path.join(d, side["ciphertext_file"])
            assert side["type"] == "locked", side
            enc = side["encryption"]
            if side["file_type"] == "symbolic link":
                assert os.readlink(ct_path) == side["symlink_nokey_target"], ct_path
                links += 1
                continue
            bs = side["block_size"]
            ct = open(ct_path, "rb").read()
            size = side["plaintext_size"]
            assert len(ct) == side["ciphertext_bytes"] == -(-size // bs) * bs, ct_path
            assert ct[:size] == debugfs_dump(image, side["inode"]), ct_path
            files += 1
            flags = int(enc["policy_flags"], 16)
            master = masters.get(enc.get("descriptor"))
            if (master is None or enc["version"] != 1 or enc["contents_mode"] != 1
                    or flags & 0x1c):
                continue
            key = kdf_v1(master, bytes.fromhex(enc["nonce"]), 64)
            plain = b"".join(xts_decrypt(key, fscrypt_tweak(i), ct[i * bs:(i + 1) * bs])
                             for i in range(len(ct) // bs))[:size]
            assert plain in contents, "%s: decrypts to nothing the kernel wrote" % ct_path
            decrypted += 1
    print(files, decrypted, links)
    return 0


if __name__ == "__main__":
    sys.exit(main())
