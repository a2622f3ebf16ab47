#!/bin/bash
# e4dump keyid: descriptors and identifiers computed here with Python's
# hashlib as e4crypt and the kernel define them (v1 descriptor: the first
# 8 bytes of SHA-512(SHA-512(key)); v2 identifier: HKDF-SHA512 of the key,
# no salt, info "fscrypt\0" + 0x01, 16 bytes), and against the
# kernel-written sample.  (e4crypt's passphrase derivation is checked by
# the passphrase VM scenario.)
# Key bytes never appear in the output.
# usage: keyid.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample
ids() { # KEYFILE: "DESC ID" as Python computes them
	python3 - "$@" <<'PY'
import hashlib, hmac, sys
raw = open(sys.argv[1], "rb").read()
try:
    key = bytes.fromhex(raw.decode().strip())
except ValueError:
    key = raw
desc = hashlib.sha512(hashlib.sha512(key).digest()).digest()[:8].hex()
prk = hmac.new(b"\0" * 64, key, hashlib.sha512).digest()
ident = hmac.new(prk, b"fscrypt\0\x01" + b"\x01", hashlib.sha512).digest()[:16].hex()
print(desc, ident)
PY
}
head -c 32 /dev/urandom >"$W/a.key"
printf 'correct horse\n' >"$W/pass"
must_run "keyid of two keys and a passphrase" "$W/out1" -- \
	"$E4DUMP" keyid --key-file "$K" --key-file "$W/a.key" --passphrase-file "$W/pass" --salt 00112233
for f in "$K" "$W/a.key"; do
	read -r desc id < <(ids "$f")
	check "$f: descriptor $desc, identifier $id" 'grep -qF "$f: $(wc -c <"$f") bytes, v1 descriptor $desc, v2 identifier $id" "$W/out1"'
done
check "the passphrase's key: 64 bytes" 'grep -q "/pass: 64 bytes, v1 descriptor [0-9a-f]\{16\}, v2 identifier [0-9a-f]\{32\}$" "$W/out1"'
check "no key bytes in the output" '! grep -qi "$(xxd -p -c 64 "$W/a.key")" "$W/out1"'
expect "a passphrase without an image needs --salt" 2 'needs --salt' -- "$E4DUMP" keyid --passphrase-file "$W/pass"
expect "no key given" 2 'give --key-file, --passphrase-file or --protector-key-file' -- "$E4DUMP" keyid
sample s.img
must_run "keyid with the image" "$W/out2" -- "$E4DUMP" keyid --key-file "$K" --key-file "$W/a.key" "$W/s.img" &&
	check "the sample key opens the kernel's v1 policy (5430581507fd59c1, the manifest's key line)" \
		'grep -q "^  opens policy v1 descriptor $(sed -n "s/^key fscrypt:\([0-9a-f]*\) .*/\1/p" "$S/sample.manifest"): .*flags PAD_32; 8 inodes" "$W/out2"' &&
	check "the other opens nothing" 'grep -A1 "a\.key:" "$W/out2" | grep -q "opens nothing in"'
finish
