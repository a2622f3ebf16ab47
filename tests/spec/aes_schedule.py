#!/usr/bin/env python3
"""The spec's §17.5 (struct crypto_aes_ctx: key_enc, key_dec of the
equivalent inverse cipher, key_length; the aesni XTS pair) and the v1
relation master = AES-128-ECB-Decrypt(nonce, per-file key), and the
layouts of §17.1 and §17.2, recomputed independently of e4dump.

Its own AES from FIPS-197: the S-box from the inverse in GF(2^8) and the
affine map (§5.1.1), KeyExpansion (§5.2), InvMixColumns (§5.3.3), the
cipher (§5.1) run with key_enc and the equivalent inverse cipher (§5.3.5)
run with key_dec, both against python3-cryptography's AES and the
FIPS-197 Appendix A and C known answers.  The layouts are computed with
ctypes (x86-64) from the kernel's declarations and compared with the
spec's tables.  The C unit test (tests/unit/test_memkeys.c) embeds the
schedules and the v1 example this script emits (--emit); the test fails
when that block is not its output.
usage: aes_schedule.py SPEC TEST_C | aes_schedule.py --emit"""
import ctypes
import hashlib
import os
import re
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def xtime(a):
    return ((a << 1) ^ (0x11b if a & 0x80 else 0)) & 0xff


def gmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = xtime(a), b >> 1
    return r


def make_sbox():
    """FIPS-197 §5.1.1: the multiplicative inverse (0 for 0), then the
    affine transformation b ^ rotl(b,1..4) ^ 0x63."""
    inv = [0] * 256
    for a in range(1, 256):
        inv[a] = next(b for b in range(1, 256) if gmul(a, b) == 1)
    rotl = lambda b, k: ((b << k) | (b >> (8 - k))) & 0xff
    return [inv[a] ^ rotl(inv[a], 1) ^ rotl(inv[a], 2) ^ rotl(inv[a], 3) ^ rotl(inv[a], 4) ^ 0x63
            for a in range(256)]


SBOX = make_sbox()
INV_SBOX = [SBOX.index(i) for i in range(256)]


def expand(key):
    """FIPS-197 §5.2: the 4 * (Nr + 1) words, each as its 4 bytes."""
    nk = len(key) // 4
    w = [key[4 * i:4 * i + 4] for i in range(nk)]
    rcon = 1
    for i in range(nk, 4 * (nk + 7)):
        t = w[i - 1]
        if i % nk == 0:
            t = bytes(SBOX[b] for b in t[1:] + t[:1])
            t = bytes([t[0] ^ rcon]) + t[1:]
            rcon = xtime(rcon)
        elif nk > 6 and i % nk == 4:
            t = bytes(SBOX[b] for b in t)
        w.append(bytes(x ^ y for x, y in zip(w[i - nk], t)))
    return w


def mix_column(c, m):
    return bytes(gmul(c[0], m[(0 - r) % 4]) ^ gmul(c[1], m[(1 - r) % 4]) ^
                 gmul(c[2], m[(2 - r) % 4]) ^ gmul(c[3], m[(3 - r) % 4]) for r in range(4))


def mix(s, m):
    return b"".join(mix_column(s[4 * c:4 * c + 4], m) for c in range(4))


MIX, INV_MIX = (2, 3, 1, 1), (14, 11, 13, 9)


def round_keys(words):
    return [b"".join(words[4 * r:4 * r + 4]) for r in range(len(words) // 4)]


def dec_schedule(enc):
    """The kernel's key_dec (lib/crypto/aes.c: aes_expandkey): the round
    keys of enc last first, InvMixColumns applied to all but the two ends."""
    rk = round_keys(enc)
    nr = len(rk) - 1
    return [rk[nr]] + [mix(rk[r], INV_MIX) for r in range(nr - 1, 0, -1)] + [rk[0]]


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def encrypt(enc, block):
    """FIPS-197 §5.1, the cipher, with the round keys of key_enc."""
    rk = round_keys(enc)
    s = xor(block, rk[0])
    for r in range(1, len(rk)):
        s = bytes(SBOX[b] for b in s)
        s = bytes(s[(x % 4) + 4 * ((x // 4 + x % 4) % 4)] for x in range(16))
        if r < len(rk) - 1:
            s = mix(s, MIX)
        s = xor(s, rk[r])
    return s


def decrypt_equivalent(dec, block):
    """FIPS-197 §5.3.5, the equivalent inverse cipher, with key_dec's
    round keys in the order the kernel stores them."""
    s = xor(block, dec[0])
    for r in range(1, len(dec)):
        s = bytes(INV_SBOX[b] for b in s)
        s = bytes(s[(x % 4) + 4 * ((x // 4 - x % 4) % 4)] for x in range(16))
        if r < len(dec) - 1:
            s = mix(s, INV_MIX)
        s = xor(s, dec[r])
    return s


def ecb(key, data, enc=True):
    c = Cipher(algorithms.AES(key), modes.ECB())
    op = c.encryptor() if enc else c.decryptor()
    return op.update(data) + op.finalize()


class CryptoAesCtx(ctypes.Structure):  # include/crypto/aes.h
    _fields_ = [("key_enc", ctypes.c_uint32 * 60), ("key_dec", ctypes.c_uint32 * 60),
                ("key_length", ctypes.c_uint32)]


class AesniXtsCtx(ctypes.Structure):  # aesni-intel_glue.c, AESNI_ALIGN_ATTR on both
    _fields_ = [("raw_tweak_ctx", ctypes.c_uint8 * ctypes.sizeof(CryptoAesCtx)),
                ("pad", ctypes.c_uint8 * (-ctypes.sizeof(CryptoAesCtx) % 16)),
                ("raw_crypt_ctx", ctypes.c_uint8 * ctypes.sizeof(CryptoAesCtx))]


class UserKeyPayload(ctypes.Structure):  # include/keys/user-type.h, data __aligned(8)
    _fields_ = [("rcu", ctypes.c_void_p * 2), ("datalen", ctypes.c_ushort),
                ("pad", ctypes.c_uint8 * 6), ("mode", ctypes.c_uint32),
                ("raw", ctypes.c_uint8 * 64), ("size", ctypes.c_uint32)]


class FscryptKey(ctypes.Structure):  # include/uapi/linux/fscrypt.h
    _fields_ = [("mode", ctypes.c_uint32), ("raw", ctypes.c_uint8 * 64), ("size", ctypes.c_uint32)]


class MasterKeySecret(ctypes.Structure):  # fs/crypto/fscrypt_private.h
    _fields_ = [("hmac_tfm", ctypes.c_void_p), ("size", ctypes.c_uint32),
                ("raw", ctypes.c_uint8 * 64)]


def ctx_image(key):
    """struct crypto_aes_ctx as aes_expandkey leaves it in a zeroed
    allocation: key_enc[i] = get_unaligned_le32(key + 4i), so in memory
    each word's bytes in FIPS order."""
    enc = expand(key)
    img = bytearray(ctypes.sizeof(CryptoAesCtx))
    img[0:4 * len(enc)] = b"".join(enc)
    d = b"".join(dec_schedule(enc))
    img[CryptoAesCtx.key_dec.offset:CryptoAesCtx.key_dec.offset + len(d)] = d
    img[CryptoAesCtx.key_length.offset:] = len(key).to_bytes(4, "little")
    return bytes(img)


# The keys the C test embeds: FIPS-197 Appendix C's (00 01 ...), and a
# second 32-byte key for the XTS pair; the v1 example's master key and nonce.
KEYS = [bytes(range(16)), bytes(range(24)), bytes(range(32)),
        hashlib.sha256(b"e4dump xts tweak half").digest()]
V1_MASTER = hashlib.sha512(b"e4dump v1 master in memory").digest()
V1_NONCE = hashlib.sha256(b"e4dump v1 nonce").digest()[:16]


def c_hex(h, indent):
    return "\n".join(indent + '"%s"' % h[i:i + 64] for i in range(0, len(h), 64))


def emit():
    """The block tests/unit/test_memkeys.c embeds."""
    out = ["/* BEGIN aes_schedule.py --emit: the used words of key_enc and key_dec",
           " * (its own FIPS-197 key expansion and InvMixColumns), and a v1",
           " * per-file key from python3-cryptography's AES-128-ECB.  spec.aes_schedule",
           " * fails when this block is not its output. */",
           "static const struct schedule {",
           "\tconst char *key, *enc, *dec;",
           "} SCHEDULES[] = {"]
    for k in KEYS:
        enc = expand(k)
        out.append("\t{ \"%s\"," % k.hex())
        out.append(c_hex(b"".join(enc).hex(), "\t  ") + ",")
        out.append(c_hex(b"".join(dec_schedule(enc)).hex(), "\t  ") + " },")
    out.append("};")
    out.append("static const char V1_MASTER[] =\n" + c_hex(V1_MASTER.hex(), "\t") + ";")
    out.append("static const char V1_NONCE[] = \"%s\";" % V1_NONCE.hex())
    out.append("static const char V1_FILE_KEY[] =\n" + c_hex(ecb(V1_NONCE, V1_MASTER).hex(), "\t") + ";")
    out.append("/* END aes_schedule.py --emit */")
    return "\n".join(out) + "\n"


# FIPS-197 Appendix A: the key and the last four words of its expansion.
APPENDIX_A = [
    ("2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6"),
    ("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "e98ba06f448c773c8ecc720401002202"),
    ("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
     "fe4890d1e6188d0b046df344706c631e"),
]
# FIPS-197 Appendix C: plaintext 00112233...ff under 000102... of each size.
APPENDIX_C = ["69c4e0d86a7b0430d8cdb78070b4c55a", "dda97ca4864cdfe06eaf70a0ec0d7191",
              "8ea2b7ca516745bfeafc49904b496089"]


def spec_rows(text, sec):
    m = re.search(r"^### %s .*?(?=^### |^## )" % re.escape(sec), text, re.M | re.S)
    if not m:
        return None
    return {int(o, 16): (int(s), v.strip()) for o, s, v in
            re.findall(r"^\| (0x[0-9a-f]+) \| (\d+) \| ([^|]*) \|", m.group(0), re.M)}


def check_table(text, sec, struct, fields, bad):
    """The section's rows tile the structure, and each named field is at
    the offset and of the size the declaration gives."""
    rows = spec_rows(text, sec)
    if not rows:
        bad.append("spec: no table in §%s" % sec)
        return
    at = 0
    for off in sorted(rows):
        if off != at:
            bad.append("spec §%s: row at 0x%x, expected 0x%x" % (sec, off, at))
        at = off + rows[off][0]
    if at != ctypes.sizeof(struct):
        bad.append("spec §%s: rows cover %d bytes, the struct has %d" % (sec, at, ctypes.sizeof(struct)))
    for name, base in fields:
        f = getattr(struct, name)
        if rows.get(base + f.offset, (None,))[0] != f.size:
            bad.append("spec §%s: %s is %d bytes at 0x%x" % (sec, name, f.size, base + f.offset))


def main():
    if sys.argv[1:] == ["--emit"]:
        sys.stdout.write(emit())
        return 0
    bad = []
    for key, last in APPENDIX_A:
        if b"".join(expand(bytes.fromhex(key))[-4:]).hex() != last:
            bad.append("FIPS-197 A: expansion of %d-byte key" % (len(key) // 2))
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    for n, ct in zip((16, 24, 32), APPENDIX_C):
        if encrypt(expand(bytes(range(n))), pt).hex() != ct or ecb(bytes(range(n)), pt).hex() != ct:
            bad.append("FIPS-197 C: %d-byte key" % n)
    # key_enc and key_dec are what a cipher needs: this AES with each of
    # them against python3-cryptography's
    for trial in range(12):
        key = os.urandom((16, 24, 32)[trial % 3])
        block = os.urandom(16)
        enc = expand(key)
        if encrypt(enc, block) != ecb(key, block):
            bad.append("key_enc of a %d-byte key does not encrypt" % len(key))
        if decrypt_equivalent(dec_schedule(enc), block) != ecb(key, block, enc=False):
            bad.append("key_dec of a %d-byte key does not decrypt" % len(key))
    for k in KEYS:  # the layout: key_dec at 240, key_length at 480
        img = ctx_image(k)
        if img[:len(k)] != k or int.from_bytes(img[480:484], "little") != len(k):
            bad.append("ctx image")
    # v1: the per-file key under the nonce gives the master key back
    fk = ecb(V1_NONCE, V1_MASTER)
    if ecb(V1_NONCE, fk, enc=False) != V1_MASTER or fk == V1_MASTER:
        bad.append("v1 relation")
    text = open(sys.argv[1], encoding="utf-8").read()
    if ctypes.sizeof(FscryptKey) != 72 or UserKeyPayload.mode.offset != 0x18:
        bad.append("struct fscrypt_key is not the payload's data")
    check_table(text, "17.1", UserKeyPayload, [("datalen", 0), ("raw", 0), ("size", 0)], bad)
    check_table(text, "17.2", MasterKeySecret, [("size", 0), ("raw", 0)], bad)
    check_table(text, "17.5", CryptoAesCtx, [("key_enc", 0), ("key_dec", 0), ("key_length", 0)], bad)
    apart = AesniXtsCtx.raw_crypt_ctx.offset
    if "(%d bytes apart)" % apart not in text:
        bad.append("spec §17.5: raw_crypt_ctx is %d bytes after raw_tweak_ctx" % apart)
    src = open(sys.argv[2], encoding="utf-8").read()
    m = re.search(r"^/\* BEGIN aes_schedule\.py --emit.*?END aes_schedule\.py --emit \*/\n", src, re.M | re.S)
    if not m or m.group(0) != emit():
        bad.append("%s: the embedded block is not aes_schedule.py --emit's output" % sys.argv[2])
    for b in bad:
        print("FAIL:", b)
    print("AES schedules: %d problems" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
