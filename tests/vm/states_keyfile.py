#!/usr/bin/env python3
"""A raw v2 master key file to e4dump's HKDF states key file (e4dump.1,
KEY FILES), independently of e4dump: the PRK by hashlib's HMAC-SHA512
with fs/crypto/hkdf.c's zero salt, the two states hmac_setkey keeps by
tests/spec/hmac_states.py's pure-Python SHA-512 compression, each
written as the kernel holds it (eight u64, little-endian: spec §17.3),
and the identifier by hashlib's HKDF-Expand (context 1), checked against
the one computed from the states alone.

usage: states_keyfile.py RAW_KEY_FILE OUT_FILE
RAW_KEY_FILE holds raw bytes or hex text, as make-image.sh writes keys/."""
import hashlib
import hmac
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec"))
sys.dont_write_bytecode = True
from hmac_states import expand_from_states, hkdf_reference, setkey_states  # noqa: E402


def read_key(path):
    raw = open(path, "rb").read()
    try:
        return bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return raw


def states_text(master):
    prk, ident = hkdf_reference(master, 1, b"", 16)
    assert prk == hmac.new(b"\0" * 64, master, hashlib.sha512).digest()
    hi, ho = setkey_states(prk)
    if expand_from_states(hi, ho, 1, b"", 16) != ident:
        raise SystemExit("states_keyfile: the states do not give the identifier")
    return ("# HKDF states of a v2 key (secret), written by tests/vm/states_keyfile.py\n"
            "e4dump-hkdf-states 1\n"
            "identifier %s\n"
            "ipad_state %s\n"
            "opad_state %s\n" % (ident.hex(), struct.pack("<8Q", *hi).hex(),
                                 struct.pack("<8Q", *ho).hex())), ident.hex()


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    text, ident = states_text(read_key(sys.argv[1]))
    fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    print(ident)


if __name__ == "__main__":
    main()
