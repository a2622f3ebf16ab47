#!/bin/bash
# The bundled sample (written by Linux 6.1 in QEMU, testvectors/sample/):
# extracted with its key it matches the guest's manifest byte for byte;
# without the key nothing of the encrypted tree is written and exit is 1;
# with the key, no-key names are accepted in PATH.
# usage: sample.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
S=$top/testvectors/sample
workdir "$2"

xz -dc "$S/sample.img.xz" >"$W/sample.img"
chmod 0444 "$W/sample.img"
"$E4DUMP" extract --key-file "$S/sample.key" "$W/sample.img" -o "$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && ok || bad "extract: exit $rc: $(head -3 "$W/err")"
check_extract -q "$S/sample.manifest" "$W/out" >"$W/check" 2>&1 &&
	ok || bad "$(grep FAIL "$W/check" | head -5)"
tail -1 "$W/check"
"$E4DUMP" extract "$W/sample.img" -o "$W/nokey" 2>"$W/nokey.err"
rc=$?
[ $rc = 1 ] && ok || bad "extract without key: exit $rc"
check_extract -q "$S/sample.manifest" "$W/nokey" \
	--tree plain --expect-missing secret >"$W/check2" 2>&1 && ok || bad "$(grep FAIL "$W/check2" | head -5)"
grep -q "no key for descriptor 5430581507fd59c1" "$W/nokey.err" && ok || bad "no descriptor message"
# With the key, a no-key name (what ls shows without it) is accepted as a
# PATH component: cat by it gives the same bytes as cat by the real name.
# (ls into files first: a pipe into awk would drop its exit status)
must_run "ls -l /secret without the key" "$W/nk.raw" -- "$E4DUMP" ls -l "$W/sample.img" /secret
must_run "ls -l /secret with the key" "$W/k.raw" -- \
	"$E4DUMP" ls -l --key-file "$S/sample.key" "$W/sample.img" /secret
awk '$2 == "-" {print $1, $NF}' "$W/nk.raw" | sort >"$W/nk.ls"
awk '$2 == "-" {print $1, $NF}' "$W/k.raw" | sort >"$W/k.ls"
nf=0
while read -r ino nk; do
	name=$(awk -v i="$ino" '$1 == i {print $2}' "$W/k.ls")
	"$E4DUMP" cat --key-file "$S/sample.key" "$W/sample.img" "/secret/$nk" >"$W/cat.nk" 2>"$W/cat.err" &&
		"$E4DUMP" cat --key-file "$S/sample.key" "$W/sample.img" "/secret/$name" >"$W/cat.real" &&
		cmp -s "$W/cat.nk" "$W/cat.real" && ok || bad "cat by no-key name $nk (inode $ino): $(head -1 "$W/cat.err")"
	nf=$((nf + 1))
done <"$W/nk.ls"
[ "$nf" -ge 2 ] && ok || bad "only $nf files listed without the key"
# extract by such a PATH writes the file under the name given
first=$(head -1 "$W/nk.ls" | cut -d' ' -f2)
"$E4DUMP" extract --key-file "$S/sample.key" "$W/sample.img" "/secret/$first" -o "$W/one" 2>/dev/null &&
	"$E4DUMP" cat --key-file "$S/sample.key" "$W/sample.img" "/secret/$first" >"$W/cat.first" &&
	cmp -s "$W/cat.first" "$W/one/$first" && ok || bad "extract by a no-key PATH"
finish
