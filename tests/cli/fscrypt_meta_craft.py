#!/usr/bin/python3
"""The fscrypt tool's metadata, made here independently of e4dump: its own
protobuf encoding (the field numbers of google/fscrypt's
metadata/metadata.proto), Argon2id from argon2-cffi (python3-argon2),
HKDF-SHA256, AES-256-CTR and HMAC-SHA256 from python3-cryptography, as
google/fscrypt's crypto/crypto.go wraps keys:

  wrapping key (32 bytes): Argon2id(passphrase, salt, t, m KiB, p lanes),
                           or the raw key file's 32 bytes
  HKDF-SHA256(wrapping key, no salt, no info) -> 32 bytes AES key,
                                                 32 bytes HMAC key
  encrypted = AES-256-CTR(AES key, IV)(secret)
  hmac      = HMAC-SHA256(HMAC key, IV || encrypted)
  protector key: 32 random bytes, wrapped under the wrapping key;
                 descriptor: hex of SHA-512(SHA-512(protector key))[:8]
  policy key (64 bytes): wrapped under each protector key

usage:
  fscrypt_meta_craft.py set DIR POLICY_KEY_FILE POLICY_DESC
      writes DIR/{good,truncated,costly,miswrapped,wrongdesc}/{protectors,policies}/...,
      DIR/pass (the passphrase, with a newline), DIR/raw.key (32 bytes),
      DIR/root/.fscrypt/protectors/<login protector> and
      DIR/linked/... (a policy whose slot is a login protector linked by
      UUID to the root filesystem DIR/root.uuid names; DIR/pathlink/...
      the same linked by PATH=/ alone), DIR/login.pass,
      DIR/descs (NAME DESCRIPTOR per protector)
  fscrypt_meta_craft.py kat
      prints the values the unit test's known answers hold
"""
import hashlib
import os
import sys
import uuid

from argon2.low_level import Type, hash_secret_raw
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# the costs the test hashes with: small, so that a test takes milliseconds
# (FSC_COSTS=T,M,P overrides them, for timing larger costs)
T, M, P = (int(x) for x in os.environ.get("FSC_COSTS", "1,64,1").split(","))


def varint(n):
    if n < 0:
        n += 1 << 64
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_varint(num, v):
    return varint(num << 3 | 0) + varint(v) if v else b""


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b if b else b""


def argon2id(passphrase, salt, t, m, p):
    return hash_secret_raw(passphrase, salt, time_cost=t, memory_cost=m,
                           parallelism=p, hash_len=32, type=Type.ID,
                           version=19)


def stretch(key):
    out = HKDF(algorithm=hashes.SHA256(), length=64, salt=None,
               info=None).derive(key)
    return out[:32], out[32:]


def wrap(wrapping_key, secret, iv):
    enc_key, auth_key = stretch(wrapping_key)
    c = Cipher(algorithms.AES(enc_key), modes.CTR(iv)).encryptor()
    ct = c.update(secret) + c.finalize()
    h = hmac.HMAC(auth_key, hashes.SHA256())
    h.update(iv + ct)
    return iv, ct, h.finalize()


def wrapped_msg(w):
    iv, ct, mac = w
    return field_bytes(1, iv) + field_bytes(2, ct) + field_bytes(3, mac)


def desc_v1(key):
    return hashlib.sha512(hashlib.sha512(key).digest()).digest()[:8].hex()


def protector(desc, source, name, wrapped, salt=b"", costs=None, uid=0):
    m = field_bytes(1, desc.encode()) + field_varint(2, source)
    m += field_bytes(3, name.encode())
    if costs:
        t, mem, p = costs
        c = field_varint(2, t) + field_varint(3, mem) + field_varint(4, p)
        m += field_bytes(4, c)
    m += field_bytes(5, salt) + field_varint(6, uid)
    return m + field_bytes(7, wrapped_msg(wrapped))


def policy(desc, version, slots):
    opts = field_varint(1, 32) + field_varint(2, 1) + field_varint(3, 4) + \
        field_varint(4, version)
    m = field_bytes(1, desc.encode()) + field_bytes(2, opts)
    for pdesc, w in slots:
        m += field_bytes(3, field_bytes(1, pdesc.encode()) +
                         field_bytes(2, wrapped_msg(w)))
    return m


def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_set(top, policy_key, policy_desc):
    rnd = os.urandom
    passphrase = b"correct horse battery staple"
    login_pass = b"login password 1"
    raw_key = rnd(32)
    put(top + "/pass", passphrase + b"\n")
    put(top + "/login.pass", login_pass + b"\n")
    put(top + "/raw.key", raw_key)
    put(top + "/wrong.pass", b"correct horse battery stapler\n")

    pk_pass, pk_raw, pk_login, pk_other = rnd(32), rnd(32), rnd(32), rnd(32)
    d_pass, d_raw, d_login, d_other = (desc_v1(k) for k in
                                       (pk_pass, pk_raw, pk_login, pk_other))
    salt = rnd(16)
    lsalt = rnd(16)
    prot_pass = protector(d_pass, 2, "case passphrase",
                          wrap(argon2id(passphrase, salt, T, M, P), pk_pass,
                               rnd(16)), salt, (T, M, P))
    prot_raw = protector(d_raw, 3, "case raw key",
                         wrap(raw_key, pk_raw, rnd(16)))
    prot_login = protector(d_login, 1, "login protector for uid 1000",
                           wrap(argon2id(login_pass, lsalt, T, M, P),
                                pk_login, rnd(16)), lsalt, (T, M, P), 1000)
    slots = [(d_pass, wrap(pk_pass, policy_key, rnd(16))),
             (d_raw, wrap(pk_raw, policy_key, rnd(16)))]
    pol = policy(policy_desc, 1, slots)

    def write(variant, prots, pol_bytes):
        for d, data in prots:
            put("%s/%s/protectors/%s" % (top, variant, d), data)
        put("%s/%s/policies/%s" % (top, variant, policy_desc), pol_bytes)

    both = [(d_pass, prot_pass), (d_raw, prot_raw)]
    write("good", both, pol)
    # the passphrase protector cut short: its wrapped key's field ends early
    write("truncated", [(d_pass, prot_pass[:len(prot_pass) - 20])], pol)
    # Argon2id memory of 4 TiB (in KiB)
    write("costly", [(d_pass, protector(
        d_pass, 2, "case passphrase",
        wrap(argon2id(passphrase, salt, T, M, P), pk_pass, rnd(16)), salt,
        (T, 4 << 30, P)))], pol)
    # the slot names the passphrase protector, but was wrapped under
    # another protector's key
    write("miswrapped", [(d_pass, prot_pass)],
          policy(policy_desc, 1, [(d_pass, wrap(pk_other, policy_key,
                                                  rnd(16)))]))
    # a slot that opens, holding a key that is not the policy's
    write("wrongdesc", [(d_pass, prot_pass)],
          policy(policy_desc, 1, [(d_pass, wrap(pk_pass, rnd(64),
                                                  rnd(16)))]))
    # a login protector on the root filesystem, linked by UUID
    root_uuid = str(uuid.uuid4())
    put(top + "/root.uuid", root_uuid.encode() + b"\n")
    put("%s/root/.fscrypt/protectors/%s" % (top, d_login), prot_login)
    os.makedirs(top + "/root/.fscrypt/policies", exist_ok=True)
    put("%s/linked/protectors/%s.link" % (top, d_login),
        ("UUID=%s\nPATH=/\n" % root_uuid).encode())
    # and a link naming a protector that is nowhere
    put("%s/linked/protectors/%s.link" % (top, d_other),
        ("UUID=%s\nPATH=/\n" % uuid.uuid4()).encode())
    put("%s/linked/policies/%s" % (top, policy_desc),
        policy(policy_desc, 1, [(d_login, wrap(pk_login, policy_key,
                                                 rnd(16)))]))
    # the same login protector linked by mount point only, as fscrypt's
    # makeLink writes a link when it cannot tell the filesystem's UUID
    put("%s/pathlink/protectors/%s.link" % (top, d_login), b"PATH=/\n")
    put("%s/pathlink/policies/%s" % (top, policy_desc),
        policy(policy_desc, 1, [(d_login, wrap(pk_login, policy_key,
                                                 rnd(16)))]))
    with open(top + "/descs", "w") as f:
        f.write("pass %s\nraw %s\nlogin %s\nother %s\n" %
                (d_pass, d_raw, d_login, d_other))


def kat():
    # Argon2id: passphrase "password", salt 16 x 0x42, t=2, m=64 KiB, p=1
    # and p=4; unwrap: wrapping key 0..31, secret 32 or 64 bytes 0xa0.., IV
    # 16 x 0x11
    for p in (1, 4):
        print("argon2id p=%d" % p,
              argon2id(b"password", b"\x42" * 16, 2, 64, p).hex())
    wk = bytes(range(32))
    for n in (32, 64):
        iv, ct, mac = wrap(wk, bytes((0xa0 + i) & 0xff for i in range(n)),
                           b"\x11" * 16)
        print("wrap%d ct" % n, ct.hex())
        print("wrap%d hmac" % n, mac.hex())


def main():
    if sys.argv[1:2] == ["kat"]:
        kat()
    elif sys.argv[1:2] == ["set"] and len(sys.argv) == 5:
        with open(sys.argv[3], "rb") as f:
            key = f.read()
        if len(key) != 64:
            sys.exit("policy key: 64 raw bytes")
        make_set(sys.argv[2], key, sys.argv[4])
    else:
        sys.exit(__doc__)


main()
