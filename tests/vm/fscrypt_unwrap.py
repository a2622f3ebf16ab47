#!/usr/bin/env python3
"""Unwrap the policy keys of Google's `fscrypt` tool from an image, with only
the secrets its user had: an independent implementation of the tool's
metadata format and key wrapping, to check e4dump against (issue 29).

Usage:
  fscrypt_unwrap.py IMAGE SECRETS_DIR OUT_DIR [--root-image IMG] [--manifest M]

Reads IMAGE's /.fscrypt (and, for protectors linked by a .link file, the
/.fscrypt of the --root-image whose ext4 UUID the link names) with
`debugfs -R "rdump ..."`, tries every file of SECRETS_DIR on every protector
(passphrase protectors: the file up to its first newline, as `fscrypt`
reads a passphrase from stdin; raw-key protectors: a 32-byte file), and
unwraps the policy keys the protectors that open hold.  Writes
OUT_DIR/all/<policy>.key (every policy key unwrapped, 64 bytes) and
OUT_DIR/by-secret/<secret>/<policy>.key (what each secret opens by itself),
and prints what opened what.  Every unwrapped key is checked: a protector
key against its descriptor (the file's name: the first 8 bytes of
SHA-512(SHA-512(key))), a policy key against the policy's descriptor (v1:
the same double SHA-512; v2: the kernel's key identifier, HKDF-SHA512 with
info "fscrypt\\0\\x01").  A wrong secret must fail the HMAC check of every
protector (tried here with a made-up passphrase and raw key).

With --manifest (the guest's manifest): each `fscrypt-tree DIR SECRETS`
record must hold, i.e. the policy of DIR's `tree` line is opened by each of
SECRETS and by no other secret.  Exit status 1 on any failure.

The format, from google/fscrypt v0.3.3 (metadata/metadata.proto,
crypto/crypto.go, actions/callback.go, actions/protector.go, actions/policy.go,
filesystem/mountpoint.go; facts only, no code taken):
  .fscrypt/protectors/<desc>: ProtectorData {1 protector_descriptor (string),
      2 source (enum: 1 pam_passphrase, 2 custom_passphrase, 3 raw_key),
      3 name, 4 costs HashingCosts {2 time, 3 memory (KiB), 4 parallelism},
      5 salt, 6 uid, 7 wrapped_key WrappedKeyData {1 IV, 2 encrypted_key, 3 hmac}}
  .fscrypt/protectors/<desc>.link: "UUID=<uuid>\\nPATH=<mountpoint>\\n", the
      protector lives in that filesystem's /.fscrypt/protectors/<desc>
  .fscrypt/policies/<desc>: PolicyData {1 key_descriptor, 2 options
      EncryptionOptions {1 padding, 2 contents, 3 filenames, 4 policy_version},
      3 repeated wrapped_policy_keys WrappedPolicyKey {1 protector_descriptor,
      2 wrapped_key WrappedKeyData}}
  wrapping key: passphrase protectors Argon2id(passphrase, salt, time,
      memory KiB, parallelism, 32 bytes, version 0x13); raw-key protectors
      the 32-byte key itself
  unwrap(K, w): HKDF-SHA256(K, no salt, no info) gives 64 bytes, the first
      32 an AES key, the next 32 an HMAC key; HMAC-SHA256(IV || encrypted)
      must equal hmac; then AES-256-CTR(IV as the 128-bit big-endian initial
      counter) of encrypted is the key: the protector key (32 bytes) under
      the wrapping key, a policy key (64 bytes) under a protector key.
"""

import argparse
import hashlib
import hmac
import os
import subprocess
import sys
import tempfile

from argon2.low_level import Type, hash_secret_raw
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_extract  # noqa: E402  (the manifest parser)

SOURCES = {0: "default", 1: "pam_passphrase", 2: "custom_passphrase", 3: "raw_key"}


class FormatError(Exception):
    pass


# ---- protobuf wire format (by hand: varints and length-delimited fields) ----

def varint(buf, i):
    v = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise FormatError("truncated or overlong varint")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """{field number: [values]}: ints for varints, bytes for length-delimited"""
    out, i = {}, 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            if i + n > len(buf):
                raise FormatError(f"field {num}: {n} bytes past the end")
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise FormatError(f"wire type {wt}")
        out.setdefault(num, []).append(v)
    return out


def one(f, num, default):
    return f.get(num, [default])[-1]


def wrapped(buf):
    f = fields(buf)
    return {"iv": one(f, 1, b""), "enc": one(f, 2, b""), "hmac": one(f, 3, b"")}


def parse_protector(buf):
    f = fields(buf)
    costs = fields(one(f, 4, b""))
    return {"descriptor": one(f, 1, b"").decode(), "source": SOURCES.get(one(f, 2, 0), "?"),
            "name": one(f, 3, b"").decode("utf-8", "replace"),
            "time": one(costs, 2, 0), "memory": one(costs, 3, 0),
            "parallelism": one(costs, 4, 0), "salt": one(f, 5, b""), "uid": one(f, 6, 0),
            "wrapped": wrapped(one(f, 7, b""))}


def parse_policy(buf):
    f = fields(buf)
    opts = fields(one(f, 2, b""))
    keys = []
    for w in f.get(3, []):
        wf = fields(w)
        keys.append((one(wf, 1, b"").decode(), wrapped(one(wf, 2, b""))))
    return {"descriptor": one(f, 1, b"").decode(), "version": one(opts, 4, 0),
            "padding": one(opts, 1, 0), "contents": one(opts, 2, 0),
            "filenames": one(opts, 3, 0), "keys": keys}


# ---- the cryptography --------------------------------------------------------

def hkdf_sha256_64(key):
    prk = hmac.new(bytes(32), key, hashlib.sha256).digest()
    t1 = hmac.new(prk, b"\x01", hashlib.sha256).digest()
    t2 = hmac.new(prk, t1 + b"\x02", hashlib.sha256).digest()
    return t1, t2


def unwrap(key, w):
    """the wrapped key, or None when the HMAC check fails"""
    if len(key) != 32 or len(w["iv"]) != 16:
        return None
    enc_key, auth_key = hkdf_sha256_64(key)
    mac = hmac.new(auth_key, w["iv"] + w["enc"], hashlib.sha256).digest()
    if not hmac.compare_digest(mac, w["hmac"]):
        return None
    d = Cipher(algorithms.AES(enc_key), modes.CTR(w["iv"])).decryptor()
    return d.update(w["enc"]) + d.finalize()


def descriptor_v1(key):
    return hashlib.sha512(hashlib.sha512(key).digest()).hexdigest()[:16]


def identifier_v2(key):
    prk = hmac.new(bytes(64), key, hashlib.sha512).digest()
    return hmac.new(prk, b"fscrypt\x00\x01\x01", hashlib.sha512).hexdigest()[:32]


def wrapping_key(prot, secret):
    """the protector's wrapping key from a secret's bytes, None if the secret
    cannot be one of this kind"""
    if prot["source"] == "raw_key":
        return secret if len(secret) == 32 else None
    if prot["source"] not in ("custom_passphrase", "pam_passphrase"):
        return None
    # `fscrypt` reads a passphrase up to the first CR or LF
    cut = [i for i in (secret.find(b"\n"), secret.find(b"\r")) if i >= 0]
    pw = secret[:min(cut)] if cut else secret
    if not (1 <= prot["time"] <= 100 and 8 <= prot["memory"] <= 1 << 20 and
            1 <= prot["parallelism"] <= 255):
        raise FormatError(f"protector {prot['descriptor']}: costs {prot['time']}/"
                          f"{prot['memory']}/{prot['parallelism']} out of this checker's range")
    return hash_secret_raw(pw, prot["salt"], prot["time"], prot["memory"],
                           prot["parallelism"], 32, Type.ID, 19)


# ---- the image ------------------------------------------------------------------

def rdump(image, where):
    out = tempfile.mkdtemp(prefix="fscrypt-unwrap.", dir=where)
    r = subprocess.run(["debugfs", "-R", f"rdump /.fscrypt {out}", image],
                       capture_output=True, text=True)
    if not os.path.isdir(os.path.join(out, ".fscrypt")):
        raise FormatError(f"{image}: no /.fscrypt ({r.stderr.strip()[-200:]})")
    return os.path.join(out, ".fscrypt")


def ext4_uuid(image):
    with open(image, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    if sb[56:58] != b"\x53\xef":
        raise FormatError(f"{image}: no ext4 superblock")
    u = sb[104:120].hex()
    return f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}"


def load(meta, sub):
    d = os.path.join(meta, sub)
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("secrets")
    ap.add_argument("out")
    ap.add_argument("--root-image")
    ap.add_argument("--manifest")
    a = ap.parse_args()
    failures = []

    def bad(msg):
        failures.append(msg)
        print("FAIL", msg)

    os.makedirs(a.out, exist_ok=True)
    meta = rdump(a.image, a.out)
    root_meta = rdump(a.root_image, a.out) if a.root_image else None
    root_uuid = ext4_uuid(a.root_image) if a.root_image else None

    protectors = {}
    for name, data in load(meta, "protectors").items():
        if name.endswith(".link"):
            desc = name[:-5]
            link = dict(l.split("=", 1) for l in data.decode().split("\n") if "=" in l)
            if root_meta is None or link.get("UUID") != root_uuid:
                bad(f"protector {desc}: link to {link} and no --root-image of that UUID")
                continue
            data = open(os.path.join(root_meta, "protectors", desc), "rb").read()
            where = f"linked, UUID {root_uuid}"
        else:
            desc, where = name, "on the image"
        p = parse_protector(data)
        if p["descriptor"] != desc:
            bad(f"protector file {name}: holds descriptor {p['descriptor']}")
        p["where"] = where
        protectors[desc] = p
        print(f"protector {desc}: {p['source']} {p['name']!r} uid {p['uid']} costs "
              f"t={p['time']} m={p['memory']} p={p['parallelism']} ({where})")
    policies = {}
    for name, data in load(meta, "policies").items():
        pol = parse_policy(data)
        if pol["descriptor"] != name:
            bad(f"policy file {name}: holds descriptor {pol['descriptor']}")
        policies[name] = pol
        print(f"policy {name}: v{pol['version']} modes {pol['contents']}/{pol['filenames']} "
              f"padding {pol['padding']}, protectors {', '.join(d for d, _ in pol['keys'])}")
    if not protectors or not policies:
        bad(f"{len(protectors)} protectors, {len(policies)} policies")

    secrets = {n: open(os.path.join(a.secrets, n), "rb").read()
               for n in sorted(os.listdir(a.secrets))}
    opens = {}  # secret -> {policy descriptor: key}
    allkeys = {}
    for sname, secret in list(secrets.items()) + [("(wrong)", b"not the passphrase\n"),
                                                    ("(wrong-raw)", bytes(range(32)))]:
        got = {}
        for pdesc, p in protectors.items():
            wk = wrapping_key(p, secret)
            if wk is None:
                continue
            pk = unwrap(wk, p["wrapped"])
            if pk is None:
                continue
            if len(pk) != 32 or descriptor_v1(pk) != pdesc:
                bad(f"protector {pdesc}: the key {sname} unwrapped has another descriptor")
                continue
            print(f"secret {sname} opens protector {pdesc} ({p['source']} {p['name']!r})")
            for poldesc, pol in policies.items():
                for d, w in pol["keys"]:
                    if d != pdesc:
                        continue
                    key = unwrap(pk, w)
                    want = {1: descriptor_v1, 2: identifier_v2}.get(pol["version"])
                    if key is None or len(key) != 64 or want is None or want(key) != poldesc:
                        bad(f"policy {poldesc}: protector {pdesc} does not unwrap its key")
                        continue
                    print(f"secret {sname} opens policy {poldesc} through protector {pdesc}")
                    got[poldesc] = key
        if sname.startswith("("):
            if got:
                bad(f"a made-up secret {sname} opened {sorted(got)}")
            continue
        opens[sname] = got
        d = os.path.join(a.out, "by-secret", sname)
        os.makedirs(d, exist_ok=True)
        for poldesc, key in got.items():
            if allkeys.setdefault(poldesc, key) != key:
                bad(f"policy {poldesc}: two protectors give two keys")
            with open(os.path.join(d, poldesc + ".key"), "wb") as f:
                f.write(key)
    os.makedirs(os.path.join(a.out, "all"), exist_ok=True)
    for poldesc, key in allkeys.items():
        with open(os.path.join(a.out, "all", poldesc + ".key"), "wb") as f:
            f.write(key)
    for poldesc in policies:
        if poldesc not in allkeys:
            bad(f"policy {poldesc}: no secret opens it")

    if a.manifest:
        records = []
        _, _ = check_extract.parse_manifest(a.manifest, records)
        trees = {}
        for line in open(a.manifest, encoding="ascii"):
            w = line.split()
            if w[:1] == ["tree"] and w[2] in ("enc", "enc2"):
                trees[w[1]] = w[3]
        n = 0
        for r in records:
            if r.type != "fscrypt-tree":
                continue
            n += 1
            tree, want = r.fields[0], set(r.fields[1].split(","))
            pol = trees.get(tree)
            have = {s for s, got in opens.items() if pol in got}
            if pol is None or have != want:
                bad(f"tree {tree} (policy {pol}): opened by {sorted(have)}, want {sorted(want)}")
            else:
                print(f"ok tree {tree} (policy {pol}): opened by {', '.join(sorted(have))}")
        if n == 0:
            bad("no fscrypt-tree record in the manifest")
    print(f"{len(protectors)} protectors, {len(policies)} policies, {len(allkeys)} keys "
          f"unwrapped, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (FormatError, OSError, check_extract.ManifestError) as e:
        print(f"FAIL {e}")
        sys.exit(1)
