#!/bin/bash
# An inherent ambiguity of the 2015 format (kernel-patches/README.md,
# semantics 4): a 16-byte ciphertext X and the 17-byte X||00 have the same
# no-key name and htree hash.  With the key, two such names are made on
# purpose: B = P1||'z' where the first CBC block E(P1) starts with a zero
# byte (about 256 tries), and A = 'z'||E(P1)[1:16].  Then B's CBC-CTS
# ciphertext is E(A)||00 and A's is E(A).  The kernel in QEMU creates both;
# checked: their stored ciphertexts are what AES (Python, independent of
# e4dump and the kernel) predicts, readdir without the key lists the same
# no-key name twice, equal to the one computed here, and key-less lstat and
# unlink by that name act on one entry consistently: two lstats agree, the
# unlink removes that entry.  The name is then a negative dentry: lstat
# gives ENOENT while readdir still lists the other entry, until the dentry
# cache lets it go (here: a remount); then lstat finds the other entry, and
# after a second unlink the name is gone.
# usage: nokey_collision.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"

img1=$W/c1.img
make_image "$top/vm/scenarios/collide-2015.scn" "$img1" "$W/c1.log"
grep -q "^policy-try amb 0$" "$img1.manifest" || give_up "no policy on /amb: $(grep policy-try "$img1.manifest")"
key=$(awk '$1 == "key" { print $4 }' "$top/vm/scenarios/collide-2015.scn")
must_run "stat /amb" "$W/amb.json" -- "$E4DUMP" stat --json "$img1" /amb || finish
nonce=$(head -1 "$W/amb.json" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["encryption"]["nonce"])')
echo "nonce of /amb: $nonce"

# the two names, their ciphertexts and their common no-key name
/usr/bin/python3 - "$key" "$nonce" >"$W/names" <<'PY' || give_up "computing the names"
import sys, os
from Cryptodome.Cipher import AES
master, nonce = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
# v1 per-file key: AES-128-ECB of the master key under the nonce (spec 6)
k = AES.new(nonce, AES.MODE_ECB).encrypt(master)[:32]
E = AES.new(k, AES.MODE_ECB).encrypt
ok = lambda b: all(c not in (0, 0x2f) for c in b)
alnum = b"abcdefghijklmnopqrstuvwxyz0123456789"
for i in range(1, 1 << 20):
    p1 = bytes(alnum[(i >> (5 * j)) % 36] if j < 4 else alnum[(i * 7 + j) % 36] for j in range(16))
    c1 = E(p1)
    if c1[0] == 0 and ok(c1[1:]):
        break
else:
    sys.exit("no P1 found")
a = b"z" + c1[1:]
b = p1 + b"z"
x = E(a)
# B under CBC-CTS (CS3, zero IV): C1 = E(P1), C2 = E((P2||0^15) xor C1);
# the full last block comes first, then C1 cut to the length of P2
c2 = E(bytes(p ^ q for p, q in zip(b[16:] + bytes(15), c1)))
assert c2 == x
ct_b = c2 + c1[:1]
T = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+"
def enc(d):
    out = []
    for i in range(0, len(d), 3):
        g = d[i:i + 3] + bytes(3)
        b0, b1, b2 = g[0], g[1], g[2]
        out += [T[b0 & 63], T[(b0 >> 6) | ((b1 & 15) << 2)], T[(b1 >> 4) | ((b2 & 3) << 4)], T[b2 >> 2]]
    return "".join(out)
assert enc(x) == enc(ct_b)
print(a.hex(), b.hex(), x.hex(), ct_b.hex(), enc(x), i)
PY
read -r A B CTA CTB NOKEY TRIES <"$W/names"
echo "A=$A B=$B"
echo "ciphertexts: $CTA / $CTB; no-key name of both: $NOKEY ($TRIES tries)"

cat >"$W/step2.scn" <<EOS
@nomount
@fsck no
remount fscrypt_2015
key fscrypt 0001020304050607 $key
touch-names amb $A $B
forget-keys
readdir nokey amb
stat-name s1 amb $NOKEY
stat-name s2 amb $NOKEY
unlink-name u1 amb $NOKEY
stat-name s3a amb $NOKEY
readdir nokey2 amb
forget-keys
stat-name s3 amb $NOKEY
unlink-name u2 amb $NOKEY
stat-name s4 amb $NOKEY
EOS
img2=$W/c2.img
bash "$top/vm/make-image.sh" --from-image "$img1" "$W/step2.scn" "$img2" >"$W/c2.log" 2>&1 ||
	{ tail -20 "$W/c2.log"; give_up "step 2 failed"; }
man=$img2.manifest
grep -v '^n ' "$man" | grep -v '^#'
check "both names created" '[ "$(grep -c "^touched .* 0$" "$man")" = 2 ]'

# readdir without the key: the same no-key name twice
records "$man" n >/dev/null
names=$(awk '$1 == "n" && $2 == "nokey" { print $3 }' "$man" |
	/usr/bin/python3 -c 'import sys; [print(bytes.fromhex(l.strip()).decode()) for l in sys.stdin]')
echo "readdir without the key: $(echo $names)"
check "readdir lists $NOKEY twice" '[ "$names" = "$(printf "amb/%s\namb/%s" "$NOKEY" "$NOKEY")" ]'

field() { awk -v t="$1" -v c="$2" '($1 == "stat-name" || $1 == "unlink-name") && $2 == t { print $c }' "$man"; }
s1=$(field s1 3) s2=$(field s2 3) s3=$(field s3 3) s4e=$(field s4 4)
echo "lstat: $s1 $s2, unlink: $(field u1 3), lstat: errno $(field s3a 4) (cached), after a remount lstat: $s3, unlink: $(field u2 3), lstat: errno $s4e"
check "two lstats find one entry ($s1, $s2)" '[ "$s1" != 0 ] && [ "$s1" = "$s2" ] && [ "$(field s1 4)" = 0 ]'
check "first unlink succeeds" '[ "$(field u1 3)" = 0 ]'
check "right after it the name is a negative dentry (errno $(field s3a 4))" '[ "$(field s3a 4)" = 2 ]'
check "readdir still lists the other one" \
	'[ "$(awk '\''$1 == "readdir" && $2 == "nokey2" { print $4 }'\'' "$man")" = 1 ]'
check "after a remount the other entry is found ($s3)" '[ "$s3" != 0 ] && [ "$s3" != "$s1" ] && [ "$(field s3 4)" = 0 ]'
check "second unlink succeeds" '[ "$(field u2 3)" = 0 ]'
check "then the name is gone (errno $s4e)" '[ "$s4e" = 2 ]'

# the stored ciphertexts (step 1 + the two creations, before the unlinks, are
# not on any image; so check them in a third run that only creates them)
cat >"$W/step3.scn" <<EOS
@nomount
@fsck no
remount fscrypt_2015
key fscrypt 0001020304050607 $key
touch-names amb $A $B
EOS
img3=$W/c3.img
bash "$top/vm/make-image.sh" --from-image "$img1" "$W/step3.scn" "$img3" >"$W/c3.log" 2>&1 ||
	{ tail -20 "$W/c3.log"; give_up "step 3 failed"; }
# the raw entries, read by tests/lib/ext4img.py (not e4dump)
/usr/bin/python3 - "$img3" "$top/tests/lib" >"$W/raw" 2>&1 <<'PY' || bad "raw dirents: $(tail -2 "$W/raw")"
import sys
sys.path.insert(0, sys.argv[2])
import ext4img
im = ext4img.Image(sys.argv[1])
for d in im.dir_entries(im.lookup("amb")):
    if d.name not in (b".", b".."):
        print(d.name.hex())
PY
cat "$W/raw"
check "stored ciphertexts are E(A) and E(A)||00" \
	'grep -qx "$CTA" "$W/raw" && grep -qx "$CTB" "$W/raw"'
finish
