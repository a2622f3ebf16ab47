#!/usr/bin/env python3
"""The spec's claim (§17.3, §17.4) that the two SHA-512 states a v2 key's
HMAC-SHA512 transform keeps (crypto/hmac.c: hmac_setkey exports the state
after the ipad block and after the opad block) compute every HKDF-Expand
output, the key identifier first, without the master key or the PRK.

Independent of e4dump: a pure-Python SHA-512 compression function (FIPS
180-4) continues the two states; hashlib's HMAC-SHA512 gives the expected
HKDF (RFC 5869).  Also checks the spec's §17.3 table against the context
this test lays out from those states (struct sha512_state, twice), and
the spec's worked example of §17.4 (states and identifier).
usage: hmac_states.py SPEC"""
import hashlib
import hmac
import os
import re
import struct
import sys

M = (1 << 64) - 1
K = [
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
    0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
    0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
    0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
    0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
    0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
    0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
    0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
    0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
    0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
    0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817]
IV = [0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
      0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179]


def rotr(x, n):
    return ((x >> n) | (x << (64 - n))) & M


def compress(h, block):
    """One SHA-512 compression (FIPS 180-4 §6.4.2) of a 128-byte block."""
    w = list(struct.unpack(">16Q", block))
    for t in range(16, 80):
        s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ (w[t - 15] >> 7)
        s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ (w[t - 2] >> 6)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & M)
    a, b, c, d, e, f, g, hh = h
    for t in range(80):
        t1 = (hh + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) + ((e & f) ^ (~e & g))
              + K[t] + w[t]) & M
        t2 = ((rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))) & M
        hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & M, c, b, a, (t1 + t2) & M
    return [(x + y) & M for x, y in zip(h, [a, b, c, d, e, f, g, hh])]


def finish(state, count, tail):
    """Continue a state that has hashed `count` bytes (a multiple of 128)
    over `tail` to the digest, padding for count + len(tail) bytes."""
    total = count + len(tail)
    msg = tail + b"\x80" + b"\0" * ((111 - total) % 128) + struct.pack(">QQ", 0, total * 8)
    assert len(msg) % 128 == 0
    h = list(state)
    for i in range(0, len(msg), 128):
        h = compress(h, msg[i:i + 128])
    return struct.pack(">8Q", *h)


def setkey_states(key):
    """crypto/hmac.c: hmac_setkey for a key of at most 128 bytes: the
    states after one block of key ⊕ ipad and of key ⊕ opad."""
    assert len(key) <= 128
    block = key + b"\0" * (128 - len(key))
    hi = compress(IV, bytes(x ^ 0x36 for x in block))
    ho = compress(IV, bytes(x ^ 0x5c for x in block))
    return hi, ho


def hmac_from_states(hi, ho, msg):
    """crypto/hmac.c: hmac_init imports ipad, hmac_final imports opad."""
    inner = finish(hi, 128, msg)
    return finish(ho, 128, inner)


def expand_from_states(hi, ho, context, info, length):
    """fs/crypto/hkdf.c: fscrypt_hkdf_expand, HMAC from the states."""
    out, prev, n = b"", b"", 1
    while len(out) < length:
        prev = hmac_from_states(hi, ho, prev + b"fscrypt\0" + bytes([context]) + info + bytes([n]))
        out += prev
        n += 1
    return out[:length]


def hkdf_reference(master, context, info, length):
    """RFC 5869 with hashlib: extract with fs/crypto/hkdf.c's default_salt
    (64 zero bytes), expand with the "fscrypt\\0" || context prefix."""
    prk = hmac.new(b"\0" * 64, master, hashlib.sha512).digest()
    out, prev, n = b"", b"", 1
    while len(out) < length:
        prev = hmac.new(prk, prev + b"fscrypt\0" + bytes([context]) + info + bytes([n]),
                        hashlib.sha512).digest()
        out += prev
        n += 1
    return prk, out[:length]


def context_bytes(hi, ho, buf):
    """The transform's context as §17.3 describes it: two struct
    sha512_state (u64 state[8]; u64 count[2]; u8 buf[128]), little-endian."""
    one = lambda h: struct.pack("<8Q", *h) + struct.pack("<2Q", 128, 0) + buf
    return one(hi) + one(ho)


def check_spec_table(spec, ctx, bad):
    """Every row of §17.3's table with a number as its value names these
    bytes of the context; the rows tile the 416 bytes of the two states."""
    text = open(spec, encoding="utf-8").read()
    sec = re.search(r"^### 17\.3 .*?(?=^### )", text, re.M | re.S)
    if not sec:
        bad.append("spec: no section 17.3")
        return
    rows = re.findall(r"^\| (0x[0-9a-f]+) \| (\d+) \| ([^|]*) \|", sec.group(0), re.M)
    at = 0
    for off, size, value in rows:
        off, size = int(off, 16), int(size)
        if off >= len(ctx):
            break
        if off != at:
            bad.append("spec §17.3: row at 0x%x, expected 0x%x" % (off, at))
        at = off + size
        value = value.strip()
        if value.isdigit():
            got = int.from_bytes(ctx[off:off + size], "little")
            if got != int(value):
                bad.append("spec §17.3: 0x%x holds %d, the spec says %s" % (off, got, value))
    if at != len(ctx):
        bad.append("spec §17.3: the rows cover %d bytes, the states %d" % (at, len(ctx)))


def check_spec_example(spec, bad):
    """§17.4's worked example: the states are those of the master key's
    PRK, and the identifier follows from the states alone."""
    text = open(spec, encoding="utf-8").read()
    blk = re.search(r"^```hmac-states\n(.*?)^```", text, re.M | re.S)
    if not blk:
        bad.append("spec: no hmac-states example")
        return
    v = dict(line.split() for line in blk.group(1).splitlines() if line.strip())
    hi = list(struct.unpack("<8Q", bytes.fromhex(v["ipad_state"])))
    ho = list(struct.unpack("<8Q", bytes.fromhex(v["opad_state"])))
    prk, ident = hkdf_reference(bytes.fromhex(v["master"]), 1, b"", 16)
    if (hi, ho) != setkey_states(prk):
        bad.append("spec example: the states are not those of the master key's PRK")
    if expand_from_states(hi, ho, 1, b"", 16).hex() != v["identifier"] or ident.hex() != v["identifier"]:
        bad.append("spec example: the identifier does not follow from the states")


def main():
    bad = []
    # FIPS 180-4 sanity of the pure implementation against hashlib
    for m in (b"", b"abc", os.urandom(200)):
        if finish(IV, 0, m) != hashlib.sha512(m).digest():
            bad.append("pure SHA-512 differs from hashlib")
    for trial in range(4):
        master = os.urandom(64 if trial else 16 + trial)
        prk, ident = hkdf_reference(master, 1, b"", 16)
        hi, ho = setkey_states(prk)
        mine = expand_from_states(hi, ho, 1, b"", 16)
        if mine != ident:
            bad.append("identifier from the states %s != HKDF %s" % (mine.hex(), ident.hex()))
        nonce = os.urandom(16)
        _, ref = hkdf_reference(master, 2, nonce, 64)
        if expand_from_states(hi, ho, 2, nonce, 64) != ref:
            bad.append("per-file key from the states differs from HKDF")
        # a second output block (T(2)) exercises the chaining
        info = bytes([1]) + os.urandom(16)
        _, ref = hkdf_reference(master, 4, info, 100)
        if expand_from_states(hi, ho, 4, info, 100) != ref:
            bad.append("two-block output from the states differs from HKDF")
        if hi == ho or hi == IV:
            bad.append("degenerate states")
    # the zero-salt states of hkdf_extract are constants (§17.3)
    z1 = setkey_states(b"\0" * 64)
    if z1 != setkey_states(b"\0" * 64) or z1[0] == setkey_states(os.urandom(64))[0]:
        bad.append("zero-salt states")
    check_spec_table(sys.argv[1], context_bytes(hi, ho, b"\0" * 128), bad)
    check_spec_example(sys.argv[1], bad)
    for b in bad:
        print("FAIL:", b)
    print("HMAC states: %d problems" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
