#!/bin/bash
# The fscrypt tool's protectors, offline.  tests/cli/fscrypt_meta_craft.py
# (Python: its own protobuf encoding, argon2-cffi, python3-cryptography;
# nothing of e4dump's) wraps the kernel-written sample's policy key under a
# custom-passphrase protector and a raw-key protector, as google/fscrypt's
# crypto.go does, and debugfs -w puts that /.fscrypt into copies of the
# sample (never mounted).  Checked: extract with only the passphrase, and
# with only the raw key, is byte-exact with extract --key-file; a wrong
# passphrase, a truncated protobuf, costs of 4 TiB, a policy slot wrapped
# under another protector and a slot holding another key each give their
# message and leave the policy locked (exit 1); a login protector on a
# second image (mke2fs -d, its UUID named by a .link file) opens with
# --fscrypt-root; --write-policy-keys writes the sample's key; info and
# keyid list protectors, policies and links (text, and JSON the schema
# validates) and no output holds a secret; hostile metadata files (too
# large, not regular, random bytes, a /.fscrypt symlink) are each named.
# usage: fscrypt_meta.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
PY=/usr/bin/python3
POL=$(sed -n 's/^key fscrypt:\([0-9a-f]*\) .*/\1/p' "$S/sample.manifest")
M=$W/m
$PY "$top/tests/cli/fscrypt_meta_craft.py" set "$M" "$K" "$POL" ||
	give_up "fscrypt_meta_craft.py failed"
read -r _ DPASS < <(grep '^pass ' "$M/descs")
read -r _ DRAW < <(grep '^raw ' "$M/descs")
read -r _ DLOGIN < <(grep '^login ' "$M/descs")

# put VARIANT IMG: a copy of the sample with $M/VARIANT as its /.fscrypt
put() {
	cp "$W/s.img" "$2"
	{
		echo "mkdir /.fscrypt"
		echo "mkdir /.fscrypt/policies"
		echo "mkdir /.fscrypt/protectors"
		for d in policies protectors; do
			for f in "$M/$1/$d"/*; do
				[ -e "$f" ] && echo "write $f /.fscrypt/$d/$(basename "$f")"
			done
		done
	} >"$W/$1.debugfs"
	debugfs -w -f "$W/$1.debugfs" "$2" >"$W/$1.debugfs.out" 2>&1 ||
		give_up "debugfs -w $1"
}
for v in good truncated costly miswrapped wrongdesc linked pathlink; do
	put $v "$W/$v.img"
done
check "debugfs wrote the protector files" \
	'debugfs -R "ls -l /.fscrypt/protectors" "$W/good.img" 2>/dev/null | grep -q "$DPASS"'

expect "extract with the key file (the reference)" 0 '' -- \
	"$E4DUMP" extract --key-file "$K" -o "$W/ref" "$W/good.img"
expect "extract with only the passphrase" 0 '' -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/bypass" "$W/good.img"
check "the passphrase's extract is byte-exact with --key-file's" 'diff -r "$W/ref" "$W/bypass" >/dev/null'
check "and holds the decrypted files" '[ -s "$W/bypass/secret/hello.txt" ]'
expect "extract with only the raw protector key, -v" 0 \
	"protector $DRAW \(raw_key \"case raw key\", /\.fscrypt/protectors/$DRAW\) opened fscrypt policy $POL" -- \
	"$E4DUMP" -v extract --protector-key-file "$M/raw.key" -o "$W/byraw" "$W/good.img"
check "the raw key's extract is byte-exact with --key-file's" 'diff -r "$W/ref" "$W/byraw" >/dev/null'
cp "$W/err" "$W/raw.err"
expect "the passphrase from standard input, -v names protector and source" 0 \
	"protector $DPASS \(custom_passphrase \"case passphrase\".*opened with -" -- \
	sh -c '"$1" -v ls -R --passphrase-file - "$2" <"$3"' - "$E4DUMP" "$W/good.img" "$M/pass"
check "ls shows the decrypted names" 'grep -q "hello.txt" "$W/out"'

check "the passphrase typed at a terminal: a prompt, no echo, the files listed" \
	'$PY - "$E4DUMP" "$W/good.img" "$M/pass" >"$W/tty.out" 2>&1 <<"PY"
import os, select, subprocess, sys
e4dump, img, passfile = sys.argv[1:4]
pw = open(passfile, "rb").read().split(b"\n")[0]
m, s = os.openpty()
p = subprocess.Popen([e4dump, "ls", "--passphrase-file", "-", img, "/secret"],
                     stdin=s, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(s)
# echo is off once the prompt is out; without one, end the input (^D)
prompt = b""
if select.select([p.stderr], [], [], 20)[0]:
    prompt = os.read(p.stderr.fileno(), 12)
os.write(m, pw + b"\n" + (b"" if prompt else b"\x04"))
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
echo = b""
while select.select([m], [], [], 0.2)[0]:
    try:
        chunk = os.read(m, 4096)
    except OSError:
        break
    if not chunk:
        break
    echo += chunk
print(prompt, p.returncode, out, err, echo)
sys.exit(0 if prompt == b"Passphrase: " and p.returncode == 0 and
         b"hello.txt" in out and pw not in echo + out + err else 1)
PY'

# failures: one message each, the policy stays locked
expect "a wrong passphrase: the HMAC check fails, named per protector" 1 \
	"protector $DPASS \(custom_passphrase \"case passphrase\", /\.fscrypt/protectors/$DPASS\): the passphrase of .*wrong\.pass does not open it \(HMAC check failed: a wrong passphrase\)" -- \
	"$E4DUMP" extract --passphrase-file "$M/wrong.pass" -o "$W/wrong" "$W/good.img"
check "a wrong passphrase: one such message for the one passphrase protector" \
	'[ "$(grep -c "HMAC check failed" "$W/err")" = 1 ]'
check "a wrong passphrase: nothing decrypted" '[ ! -e "$W/wrong/secret/hello.txt" ]'
expect "a truncated protector protobuf" 1 \
	"/\.fscrypt/protectors/$DPASS: not a protector fscrypt can use: not a protobuf ProtectorData \(truncated or malformed\)" -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/trunc" "$W/truncated.img"
expect "Argon2id costs of 4 TiB: refused, not tried" 1 \
	"protector $DPASS .*: not tried: Argon2id memory of 4294967296 KiB \(4096\.0 GiB\) is above the cap of 1048576 KiB" -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/costly" "$W/costly.img"
expect "a policy slot wrapped under another protector" 1 \
	"/\.fscrypt/policies/$POL: its key slot for protector $DPASS does not authenticate under that protector's key \(HMAC check failed\)" -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/misw" "$W/miswrapped.img"
check "... and nothing was decrypted with it" '[ ! -e "$W/misw/secret/hello.txt" ]'
expect "a slot that opens but holds another key: not used" 1 \
	"/\.fscrypt/policies/$POL: the key its slot for protector $DPASS holds is not this policy's" -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/wdesc" "$W/wrongdesc.img"
expect "a cap below the protector's costs" 1 \
	"not tried: Argon2id memory of 64 KiB .* above the cap of 32 KiB" -- \
	"$E4DUMP" ls --argon2-max-memory 32 --passphrase-file "$M/pass" "$W/good.img" /secret
expect "a raw key file that is not 32 bytes" 2 'exactly 32 bytes' -- \
	"$E4DUMP" ls --protector-key-file "$K" "$W/good.img"
expect "a bad cap" 2 'argon2-max-time: "0" is not a number' -- \
	"$E4DUMP" ls --argon2-max-time 0 --passphrase-file "$M/pass" "$W/good.img"

# hostile files: a protector file over fscrypt's 16384 bytes, a
# directory among the protectors, a policy file of random bytes; and a
# /.fscrypt that is a symlink
cp "$W/good.img" "$W/hostile.img"
head -c 20000 /dev/zero >"$W/big"
head -c 300 /dev/urandom >"$W/noise"
printf '%s\n' "write $W/big /.fscrypt/protectors/0000000000000000" \
	"mkdir /.fscrypt/protectors/1111111111111111" \
	"write $W/noise /.fscrypt/policies/2222222222222222" |
	debugfs -w -f - "$W/hostile.img" >/dev/null 2>&1 || give_up "debugfs -w hostile"
expect "hostile metadata files: each reported, the good ones still open" 1 \
	"/\.fscrypt/protectors/0000000000000000 \(inode [0-9]+\): 20000 bytes, more than the 16384 fscrypt reads; left out" -- \
	"$E4DUMP" extract --passphrase-file "$M/pass" -o "$W/hostile" "$W/hostile.img"
check "hostile: the directory among the protectors is named" 'grep -q "protectors/1111111111111111 (inode [0-9]*): not a regular file; left out" "$W/err"'
check "hostile: the random policy file is named" 'grep -q "policies/2222222222222222: not a policy fscrypt can use" "$W/err"'
check "hostile: the real policy still opened, byte-exact" 'diff -r -x .fscrypt "$W/ref" "$W/hostile" >/dev/null'
cp "$W/s.img" "$W/symlink.img"
printf '%s\n' "mkdir /elsewhere" "symlink /.fscrypt /elsewhere" |
	debugfs -w -f - "$W/symlink.img" >/dev/null 2>&1 || give_up "debugfs -w symlink"
expect "a /.fscrypt symlink is said, not followed" 0 \
	"/\.fscrypt \(inode [0-9]+\): a symlink .*not followed" -- "$E4DUMP" info "$W/symlink.img"

# a login protector on the root filesystem, linked by UUID
mkdir -p "$M/root/.fscrypt/policies"
mke2fs -q -t ext4 -U "$(cat "$M/root.uuid")" -d "$M/root" "$W/root.img" 4M >/dev/null 2>&1 ||
	give_up "mke2fs -d root"
expect "the linked login protector without the root image: a dangling link" 1 \
	"protectors/$DLOGIN\.link: a dangling link: names another filesystem by UUID \(give it with --fscrypt-root IMAGE\)" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" -o "$W/nolink" "$W/linked.img"
expect "the login passphrase with --fscrypt-root" 0 '' -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" --fscrypt-root "$W/root.img" \
	-o "$W/bylogin" "$W/linked.img"
check "the login protector's extract is byte-exact with --key-file's (its own /.fscrypt aside)" 'diff -r -x .fscrypt "$W/ref" "$W/bylogin" >/dev/null && [ -s "$W/bylogin/secret/hello.txt" ]'

# a link by mount point only (PATH=/, no UUID), as fscrypt v0.3.3's
# makeLink writes one when it cannot tell the UUID; its getMountFromLink
# tries the UUID first, then the filesystem mounted at PATH.  Offline, the
# filesystem the kernel last mounted at PATH: s_last_mounted, which
# mke2fs -M sets here and dumpe2fs reads back.
mke2fs -q -t ext4 -M / -d "$M/root" "$W/root-slash.img" 4M >/dev/null 2>&1 ||
	give_up "mke2fs -M / -d root"
mke2fs -q -t ext4 -M /home -d "$M/root" "$W/root-home.img" 4M >/dev/null 2>&1 ||
	give_up "mke2fs -M /home -d root"
check "dumpe2fs: root-slash.img was last mounted on /, root.img nowhere" \
	'dumpe2fs -h "$W/root-slash.img" 2>/dev/null | grep -qx "Last mounted on: *[/]" &&
	 dumpe2fs -h "$W/root.img" 2>/dev/null | grep -qx "Last mounted on: *<not available>"'
expect "PATH=/ only, --fscrypt-root last mounted on /: followed, the login passphrase opens it" 0 \
	"protectors/$DLOGIN\.link: it names no UUID; followed by its PATH= to --fscrypt-root, which the kernel last mounted there" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" --fscrypt-root "$W/root-slash.img" \
	-o "$W/bypath" "$W/pathlink.img"
check "... byte-exact with --key-file's" 'diff -r -x .fscrypt "$W/ref" "$W/bypath" >/dev/null && [ -s "$W/bypath/secret/hello.txt" ]'
expect "PATH=/ only, --fscrypt-root never mounted: dangling, said why" 1 \
	"protectors/$DLOGIN\.link: a dangling link: names a filesystem only by its mount point /, and --fscrypt-root records no mount point" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" --fscrypt-root "$W/root.img" \
	-o "$W/bypath2" "$W/pathlink.img"
check "... nothing decrypted" '[ ! -e "$W/bypath2/secret/hello.txt" ]'
expect "PATH=/ only, --fscrypt-root last mounted on /home: dangling, said why" 1 \
	"a dangling link: names a filesystem only by its mount point /, and --fscrypt-root was last mounted on /home" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" --fscrypt-root "$W/root-home.img" \
	-o "$W/bypath3" "$W/pathlink.img"
expect "PATH=/ only, no --fscrypt-root: dangling" 1 \
	"a dangling link: names a filesystem by its mount point only \(give it with --fscrypt-root IMAGE\)" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" -o "$W/bypath4" "$W/pathlink.img"
expect "UUID= of neither filesystem and PATH=/: the mount point, as fscrypt falls back" 0 \
	"protectors/$DLOGIN\.link: its UUID names neither this filesystem nor --fscrypt-root; followed by its PATH=" -- \
	"$E4DUMP" extract --passphrase-file "$M/login.pass" --fscrypt-root "$W/root-slash.img" \
	-o "$W/bypath5" "$W/linked.img"
check "... byte-exact with --key-file's" 'diff -r -x .fscrypt "$W/ref" "$W/bypath5" >/dev/null'
"$E4DUMP" info --json --fscrypt-root "$W/root-slash.img" "$W/pathlink.img" >"$W/pathlink.json" 2>/dev/null
check "info --json: the link resolved by mount_path, not dangling" \
	'grep "\"type\": *\"fscrypt_link\"" "$W/pathlink.json" | grep "\"resolved_by\": *\"mount_path\"" | grep -q "\"dangling\": *false"'

# A passphrase is tried as an fscrypt protector's and as e4crypt's: on a
# copy of good.img (its passphrase protector intact) with a non-zero
# s_encrypt_pw_salt, /secret/empty's context names the key e4crypt
# derives from another passphrase (computed here with
# tests/vectors/verify_vectors.py's e4crypt_passphrase_key, from
# e2fsprogs' misc/e4crypt.c).  That passphrase opens no protector, and is
# no error: what it opened is said.
cp "$W/good.img" "$W/e4salt.img"
printf 'the e4crypt passphrase\n' >"$M/e4.pass"
SALT=00112233-4455-6677-8899-aabbccddeeff
export top
E4DESC=$($PY - "$W/e4salt.img" "$SALT" <<'PY'
import os, sys, uuid
top = os.environ["top"]
sys.path.insert(0, os.path.join(top, "tests", "lib"))
sys.path.insert(0, os.path.join(top, "tests", "vectors"))
import ext4img, verify_vectors
img, salt = sys.argv[1], uuid.UUID(sys.argv[2]).bytes
key = verify_vectors.e4crypt_passphrase_key(b"the e4crypt passphrase", salt)
desc = verify_vectors.e4crypt_descriptor(key)
im = ext4img.Image(img, write=True)
im.write_superblock({"encrypt_pw_salt": salt})
secret = im.lookup(b"/secret")
empty = [d.ino for d in im.dir_entries(secret) if d.name not in (b".", b"..")
         and im.inode(d.ino).is_dir() and
         not [e for e in im.dir_entries(d.ino) if e.name not in (b".", b"..")]]
assert len(empty) == 1, empty
x = im.find_xattr(empty[0], ext4img.XATTR_INDEX_ENCRYPTION, b"c")
im.set_xattr_value(empty[0], x, x.value[:4] + desc + x.value[12:])
print(desc.hex())
PY
)
check "the e4crypt descriptor was made ($E4DESC); dumpe2fs shows the salt" \
	'[ ${#E4DESC} = 16 ] && dumpe2fs -h "$W/e4salt.img" 2>/dev/null | grep -q "Encryption PW Salt: *$SALT"'
expect "the e4crypt passphrase with fscrypt protectors and a salt: said what it opened, no error" 0 \
	"passphrase file .*e4\.pass opens none of the image's fscrypt passphrase protectors; the key e4crypt derives from it names policy $E4DESC" -- \
	"$E4DUMP" info --passphrase-file "$M/e4.pass" "$W/e4salt.img"
check "... no error line; info lists the policy its e4crypt key names" \
	'! grep -q "error:" "$W/err" && grep -q "policy v1: .* descriptor $E4DESC, inodes 1," "$W/out"'
expect "the fscrypt passphrase on the same image: its protector opens, no error" 0 \
	"passphrase file .*/pass: opened 1 fscrypt protector" -- \
	"$E4DUMP" -v ls --passphrase-file "$M/pass" "$W/e4salt.img" /secret
check "... the decrypted names" 'grep -q hello.txt "$W/out" && ! grep -q "error:" "$W/err"'
expect "a passphrase that opens neither: the error says both" 1 \
	"passphrase file .*wrong\.pass opens none of the image's fscrypt passphrase protectors, and the key e4crypt derives from it names no policy of the image" -- \
	"$E4DUMP" ls --passphrase-file "$M/wrong.pass" "$W/e4salt.img" /plain

# --write-policy-keys
expect "--write-policy-keys warns that they are secrets" 0 'they are secrets' -- \
	"$E4DUMP" ls --passphrase-file "$M/pass" --write-policy-keys "$W/keys" "$W/good.img"
check "the policy key written is the sample's key" 'cmp -s "$W/keys/$POL.key" "$K"'
check "mode 0600" '[ "$(stat -c %a "$W/keys/$POL.key")" = 600 ]'

# info and keyid list it all, without secrets
must_run "info" "$W/info" -- "$E4DUMP" info --passphrase-file "$M/pass" "$W/good.img"
check "info: the passphrase protector with its costs, opened" \
	'grep -q "fscrypt protector $DPASS (custom_passphrase \"case passphrase\", /.fscrypt/protectors/$DPASS), Argon2id time 1, memory 64 KiB, parallelism 1: opened with .*/pass$" "$W/info"'
check "info: the raw-key protector, locked" \
	'grep -q "fscrypt protector $DRAW (raw_key \"case raw key\", /.fscrypt/protectors/$DRAW): locked$" "$W/info"'
check "info: the policy, its two protectors, who opened it, its 8 inodes" \
	'grep -q "fscrypt policy v1 descriptor $POL (contents AES-256-XTS, filenames AES-256-CTS-CBC, padding 32; 8 inodes in the image): protectors $DPASS $DRAW; opened by $DPASS$" "$W/info"'
must_run "info of the linked image, no secret" "$W/info2" -- "$E4DUMP" info "$W/linked.img"
check "info: the dangling links" \
	'[ "$(grep -c "fscrypt link /.fscrypt/protectors/[0-9a-f]*\.link: UUID .*, mount point /: dangling" "$W/info2")" = 2 ]'
must_run "info --fscrypt-root: the login protector, uid 1000" "$W/info3" -- \
	"$E4DUMP" info --fscrypt-root "$W/root.img" "$W/linked.img"
check "info: the login protector on the root" \
	'grep -q "fscrypt protector $DLOGIN (pam_passphrase \"login protector for uid 1000\", --fscrypt-root /.fscrypt/protectors/$DLOGIN), uid 1000, Argon2id time 1, memory 64 KiB, parallelism 1: locked" "$W/info3"'
must_run "keyid with the raw key" "$W/keyid" -- \
	"$E4DUMP" keyid --protector-key-file "$M/raw.key" "$W/good.img"
check "keyid: the policy key from the raw-key protector opens the sample's policy" \
	'grep -A1 "^fscrypt policy $POL from fscrypt protector $DRAW" "$W/keyid" | grep -q "opens policy v1 descriptor $POL"'
mkdir -p "$W/j"
n=0
for args in "info --passphrase-file $M/pass $W/good.img" \
	"info --fscrypt-root $W/root.img $W/linked.img" \
	"keyid --protector-key-file $M/raw.key $W/good.img" \
	"info $W/truncated.img" \
	"info --fscrypt-root $W/root-slash.img $W/pathlink.img"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$E4DUMP" $args --json >"$W/j/$n" 2>"$W/j/$n.err"
	echo $? >"$W/j/$n.rc"
done
checker schema $PY "$top/tests/cli/schema_check.py" "$top/schema/e4dump-records.schema.json" \
	fscrypt_protector,fscrypt_policy,fscrypt_link "$W"/j/1 "$W"/j/2 "$W"/j/3 "$W"/j/4 "$W"/j/5
check "JSON: the policy names its protectors and who opened it" \
	'grep "\"type\": *\"fscrypt_policy\"" "$W/j/1" | grep -q "\"opened_by\": *\"$DPASS\""'

# no secret in any output: passphrases, the raw key, the policy key, as
# text, as hex (whole or half) and as raw bytes
check "no passphrase or key bytes in any output" \
	'$PY - "$M/raw.key" "$K" "$W"/*.err "$W/err" "$W/out" "$W/info" "$W/info2" "$W/info3" "$W/keyid" "$W"/j/* <<"PY"
import sys
keys = [open(f, "rb").read() for f in sys.argv[1:3]]
secrets = [b"correct horse battery staple", b"login password 1"]
for k in keys:
    secrets += [k, k[:16], k.hex().encode(), k[:16].hex().encode()]
bad = [f for f in sys.argv[3:] for s in secrets
       if s.lower() in open(f, "rb").read().lower()]
for f in bad:
    print("secret in", f)
sys.exit(1 if bad else 0)
PY'
finish
