#!/bin/bash
# The 2015 format written by the patched kernel (kernel-patches/, mount
# option fscrypt_2015), read independently by e4dump:
#  - no-key behaviour and names (tests/vm/nokey.sh on format-2015.scn):
#    readdir without the key equals e4dump ls byte for byte (short names,
#    ciphertext over 32 bytes, 3000-entry htree directory); lookup of every
#    entry by no-key name and, after a remount, by name with the key; open
#    fails with ENOKEY; unlink by no-key name; policy on a non-empty directory
#    fails; files, directories and symlinks inherit the policy;
#  - names stored as max(len, 16) bytes, from the raw dirents;
#  - contents, names and symlink targets round-trip (e4dump extract);
#  - test_dummy_encryption in 2015 mode: e4dump --dummy-key decrypts it.
# usage: format2015.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"

E4DUMP_KEEP_WORK=1 bash "$top/tests/vm/nokey.sh" "$E4DUMP" "$W/nokey" "$top/vm/scenarios/format-2015.scn" >"$W/nokey.log" 2>&1
rc=$?
cat "$W/nokey.log"
[ $rc = 0 ] && ok || bad "no-key checks"
img=$W/nokey/nokey.img
man=$img.manifest
[ -f "$man" ] || give_up "no manifest $man"
grep -q "^readdir nokey " "$man" && ok || bad "no readdir records"

for t in t2015 u2015 u2015b; do
	python3 "$top/tests/vm/stored_lengths.py" "$img" "$man" "$t" 2015 >"$W/len.$t" 2>&1 &&
		ok || bad "$t stored lengths: $(cat "$W/len.$t")"
	cat "$W/len.$t"
done

K=$W/nokey/keys
"$E4DUMP" extract -k "$K/7c9fc345b9ec5163.key" -k "$K/8899aabbccddeeff.key" \
	--dfxml "$W/out.xml" --manifest "$W/out.tsv" "$img" -o "$W/out" 2>"$W/x.err"
rc=$?
[ $rc = 0 ] && ok || bad "extract: exit $rc: $(head -3 "$W/x.err")"
check_extract -q --apply-removed "$man" "$W/out" >"$W/x.check" 2>&1 && ok || bad "$(grep FAIL "$W/x.check" | head -5)"
tail -1 "$W/x.check"
# its DFXML (tests/vm/dfxml_verify.sh); debugfs reads a copy without the
# encrypt_2015 incompat bit, which it does not know
cp "$img" "$W/no2015.img"
/usr/bin/python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); f.seek(1024 + 0x60); v, = struct.unpack("<I", f.read(4))
f.seek(1024 + 0x60); f.write(struct.pack("<I", v & ~0x80000000))' "$W/no2015.img"
. "$top/tests/vm/dfxml_verify.sh"
dfxml_verify "extract --dfxml" "$W/out.xml" "$W/out.tsv" "$W/out" "$W/no2015.img" "$man"
rm -f "$W/no2015.img"

# test_dummy_encryption in 2015 mode
dimg=$W/dummy.img
if bash "$top/vm/make-image.sh" "$top/vm/scenarios/dummy-2015.scn" "$dimg" >"$W/dummy.log" 2>&1; then
	ok
	grep -q "^dummy-policy d 000104004242424242424242" "$dimg.manifest" && ok ||
		bad "dummy policy: $(grep dummy-policy "$dimg.manifest")"
	"$E4DUMP" extract --dummy-key "$dimg" -o "$W/dummy" 2>"$W/dummy.err"
	rc=$?
	[ $rc = 0 ] && ok || bad "extract --dummy-key: exit $rc: $(head -3 "$W/dummy.err")"
	check_extract -q "$dimg.manifest" "$W/dummy" >"$W/dummy.check" 2>&1 && ok || bad "$(grep FAIL "$W/dummy.check" | head -5)"
	tail -1 "$W/dummy.check"
	"$E4DUMP" extract "$dimg" -o "$W/dummy-nokey" 2>"$W/dummy-nokey.err"
	rc=$?
	[ $rc = 1 ] && grep -q "no key for descriptor 4242424242424242" "$W/dummy-nokey.err" && ok ||
		bad "without --dummy-key: exit $rc: $(head -2 "$W/dummy-nokey.err")"
else
	bad "dummy image: $(tail -5 "$W/dummy.log")"
fi
finish
