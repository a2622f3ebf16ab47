#!/bin/bash
# The cross-check: Linux 6.1 in QEMU writes fscrypt v1 trees (padding 4, 8,
# 16, 32; keys under "fscrypt:" and "ext4:"; e4crypt-style and arbitrary
# descriptors) into an ext4 image; e4dump decrypts them on the host and
# check_extract.py compares every entry with the guest's manifest.
# usage: crosscheck.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
keep_work  # v1-pad.img is vm.mount_v1's fixture
verified=0

# check_extract wrapper: counts the entries it verified.
verify() {
	local name=$1
	shift
	if check_extract -q "$@" >"$W/$name.check" 2>&1; then
		ok
		verified=$((verified + $(awk '/ passed, /{print $1}' "$W/$name.check" | tail -1)))
	else
		bad "$name: $(grep -m5 FAIL "$W/$name.check")"
	fi
}

img=$W/v1-pad.img
make_image "$top/vm/scenarios/v1-pad.scn" "$img" "$W/make-image.log"
man=$img.manifest
A=$W/keys/7c9fc345b9ec5163.key   # e4crypt-style descriptor: pad4, pad16
B=$W/keys/0011223344556677.key   # "ext4:" prefix, arbitrary descriptor: pad8
C=$W/keys/8899aabbccddeeff.key   # "ext4:" prefix, arbitrary descriptor: pad32
sum_before=$(sha256sum <"$img")

# 1. All keys: every tree, byte for byte; exit 0.
"$E4DUMP" extract --key-file "$A" --key-file "$B" --key-file "$C" "$img" -o "$W/all" 2>"$W/all.err"
rc=$?
[ $rc = 0 ] && ok || bad "extract with all keys: exit $rc: $(head -3 "$W/all.err")"
verify all "$man" "$W/all"
# lost+found is the only entry outside the manifest.
[ "$(ls "$W/all" | sort | tr '\n' ' ')" = "lost+found pad16 pad32 pad4 pad8 plain " ] && ok ||
	bad "top level of extraction: $(ls "$W/all")"

# 2. Only key A: pad4 and pad16 complete, pad8 and pad32 skipped; exit 1;
#    one message naming each missing descriptor.
"$E4DUMP" extract -o "$W/onlyA" "$img" --key-file "$A" 2>"$W/onlyA.err"
rc=$?
[ $rc = 1 ] && ok || bad "extract with key A only: exit $rc, want 1"
verify onlyA "$man" "$W/onlyA" --tree pad4 --tree pad16 --tree plain \
	--expect-missing pad8 --expect-missing pad32
for d in 0011223344556677 8899aabbccddeeff; do
	grep -q "^e4dump: error: no key for descriptor $d" "$W/onlyA.err" && ok ||
		bad "no message for descriptor $d: $(head -3 "$W/onlyA.err")"
done
grep -q "skipped" "$W/onlyA.err" && ok || bad "no skip count on stderr"

# 3. A single subtree by decrypted PATH, key given as hex text on stdin.
od -An -v -tx1 "$B" | tr -d " \n" | "$E4DUMP" extract --key-file - "$img" /pad8 -o "$W/pad8" 2>"$W/pad8.err"
rc=$?
[ $rc = 0 ] && ok || bad "extract /pad8 with hex key on stdin: exit $rc: $(head -3 "$W/pad8.err")"
verify pad8 "$man" "$W/pad8" --tree pad8

# 4. ls -R with the keys lists exactly the manifest's paths.
# (into files first: piped into grep and sort, the exit statuses were lost)
must_run "ls -R with the keys" "$W/ls.raw" -- "$E4DUMP" ls -R -k "$A" -k "$B" -k "$C" "$img" /
must_run "manifest --list" "$W/want.raw" -- check_extract "$man" --list
grep -v '^lost+found' "$W/ls.raw" | LC_ALL=C sort >"$W/ls.txt"
LC_ALL=C sort "$W/want.raw" >"$W/want.txt"
if cmp -s "$W/ls.txt" "$W/want.txt"; then ok; else bad "ls -R differs from the manifest: $(diff "$W/want.txt" "$W/ls.txt" | head -5)"; fi

# 5. cat of files, a sparse file and a symlink, against the extraction.
n=0
while IFS= read -r -d '' f; do
	rel=${f#"$W/all/"}
	"$E4DUMP" cat -k "$A" -k "$B" -k "$C" "$img" "/$rel" >"$W/cat.out" 2>>"$W/cat.err" &&
		cmp -s "$W/cat.out" "$f" || bad "cat /$rel differs or failed"
	n=$((n + 1))
done < <(find "$W/all/pad4" "$W/all/pad32" -maxdepth 2 -type f ! -path '*/bigdir/*' -print0)
[ $n -gt 10 ] && ok || bad "cat covered only $n files"
t=$("$E4DUMP" cat -k "$A" "$img" /pad16/link-long) && [ -n "$t" ] &&
	[ "$t" = "$(readlink "$W/all/pad16/link-long")" ] && ok || bad "cat of a symlink"

# 6. A wrong key: a clear message naming the descriptor, no output.
"$E4DUMP" cat -k "$B" "$img" /pad4/a >"$W/wrong.out" 2>"$W/wrong.err"
rc=$?
[ $rc = 1 ] && [ ! -s "$W/wrong.out" ] && grep -q "no key for descriptor 7c9fc345b9ec5163" "$W/wrong.err" &&
	ok || bad "wrong key: exit $rc, stderr $(head -2 "$W/wrong.err")"
# (the listing itself must be there: an empty one passes the grep)
# (ls exits 1: a key was given and the policy stays locked)
expect "ls with a wrong key" 1 'none of the given keys opens it' -- "$E4DUMP" ls -k "$B" "$img" /pad4
check "ls with a wrong key: no-key names only" '[ -s "$W/out" ] && ! grep -q "sixteen-bytes-16" "$W/out"'

# 7. info names every policy and the key that opens it.
must_run "info with the keys" "$W/info.txt" -- "$E4DUMP" info -k "$A" -k "$B" -k "$C" "$img"
for d in 7c9fc345b9ec5163 0011223344556677 8899aabbccddeeff; do
	grep -q "descriptor $d, .*opened by" "$W/info.txt" && ok || bad "info: descriptor $d"
done
grep -q "descriptor 7c9fc345b9ec5163.*SHA-512" "$W/info.txt" && ok || bad "info: key A not matched by e4crypt convention"
grep -q "descriptor 0011223344556677.*trial decryption" "$W/info.txt" && ok || bad "info: key B not matched by trial decryption"
grep -q "^encrypt feature: yes" "$W/info.txt" && ok || bad "info: encrypt feature"

# 8. Stored name lengths follow the padding rule (raw dirents via debugfs).
for t in 4 8 16 32; do
	python3 "$top/tests/vm/stored_lengths.py" "$img" "$man" "pad$t" "pad$t" >"$W/len$t" 2>&1 &&
		ok || bad "pad$t stored lengths: $(cat "$W/len$t")"
done

# 9. The kernel's image conforms (e4dump verify, all keys); without the
# keys, e4dump ls prints what the kernel's readdir printed.
"$E4DUMP" verify --key-file "$A" --key-file "$B" --key-file "$C" "$img" >"$W/verify" 2>&1 &&
	ok || bad "verify: $(head -3 "$W/verify")"
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img"

# 10. The image was not modified.
[ "$(sha256sum <"$img")" = "$sum_before" ] && ok || bad "image modified"

echo "kernel-written entries verified byte-exact: $verified"
finish
