#!/bin/bash
# Casefold + encryption (vm/scenarios/v2-casefold.scn, written by Linux 6.1):
# * every entry of every casefolded encrypted directory carries the hash
#   pair the kernel computed, and e4_casefold_dirhash() (e4dump/
#   image/casefold.c) recomputes each one from the decrypted name and the
#   directory's dirhash key (casefold_check image); hashing without folding
#   changes exactly the pairs of the names that folding changes (Python's
#   unicodedata says which), so the check depends on the fold;
# * the counts of directories and entries are the manifest's;
# * without the key, the kernel's no-key names carry the stored (non-zero)
#   pairs and e4dump ls prints them byte for byte;
# * the kernel's case-insensitive lookups (with the key) and its lookups by
#   no-key name (without) all worked; e4dump cat finds a name in another case.
# usage: casefold.sh E4DUMP CASEFOLD_CHECK SCENARIO_WORKDIR WORKDIR
# Uses SCENARIO_WORKDIR/image.img (+ .manifest, keys/) left by
# tests/vm/scenario.sh for v2-casefold.scn, else writes the image itself.
set -u
E4DUMP=$1
CHECK=$2
SW=$3
. "$(dirname "$0")/../lib/common.sh"
PY=/usr/bin/python3
workdir "$4"

img=$SW/image.img
keydir=$SW/keys
if ! [ -s "$img" ] || ! [ -s "$img.manifest" ] || ! ls "$keydir"/*.key >/dev/null 2>&1; then
	img=$W/image.img
	keydir=$W/keys
	make_image "$top/vm/scenarios/v2-casefold.scn" "$img" "$W/make.log"
fi
man=$img.manifest
keys=("$keydir"/*.key)
keyargs=()
for k in "${keys[@]}"; do keyargs+=(--key-file "$k"); done

# What the manifest says: directories and entries of the casefold trees, and
# how many names folding changes.
$PY - "$man" "$top" >"$W/expect" <<'EOF' || bad "manifest: $(cat "$W/expect")"
import sys
top = sys.argv[2]
sys.path[:0] = [top + "/tests/vm", top + "/tests/unit"]
from check_extract import parse_manifest
from casefold_vectors import fold
trees, entries = parse_manifest(sys.argv[1])
cf = {t for t, w in trees.items() if "casefold" in w}
ents = [e for e in entries if e.tree in cf and e.path != e.tree.encode()]
dirs = sum(1 for e in entries if e.tree in cf and e.type == "d")
names = [e.path.rsplit(b"/", 1)[1] for e in ents]
print(len(cf), dirs, len(ents), sum(1 for n in names if fold(n) != n))
EOF
read -r ntrees ndirs nents nchanged <"$W/expect"
echo "manifest: $ntrees casefold trees, $ndirs directories, $nents entries, $nchanged names changed by folding"
[ "${ntrees:-0}" -gt 0 ] && ok || bad "no casefold tree in the manifest"

# Stored pairs recomputed from the decrypted names.
"$CHECK" image "$img" "${keys[@]}" >"$W/check" 2>&1 && ok ||
	bad "casefold_check: $(grep -m5 FAIL "$W/check")"
tail -1 "$W/check"
want="casefold_check: $ndirs casefolded encrypted directories (2 indexed), $nents entries, $nents stored hash pairs recomputed, 0 failures"
[ "$(tail -1 "$W/check")" = "$want" ] && ok || bad "counts: want: $want"
"$CHECK" image-nofold "$img" "${keys[@]}" >"$W/nofold" 2>&1
nofold_rc=$?
tail -1 "$W/nofold"
[ $nofold_rc = 0 ] && [ "$nchanged" -gt 0 ] && [ "$(tail -1 "$W/nofold")" = "casefold_check: without folding $nchanged of $nents stored hash pairs differ, 0 failures" ] &&
	ok || bad "without folding: want $nchanged differing pairs"

# The kernel's no-key names carry non-zero pairs (major hash even), and
# e4dump ls prints the same names.
records "$man" n
$PY -c '
import base64, struct, sys
n = zero = odd = 0
for line in sys.stdin.buffer:
    name = line.rstrip(b"\n").split(b"\t")[1].rsplit(b"/", 1)[1]
    raw = base64.urlsafe_b64decode(name + b"=" * (-len(name) % 4))
    h, m = struct.unpack("<II", raw[:8])
    n += 1
    zero += h == 0 and m == 0
    odd += h & 1
print(n, zero, odd)' <"$W/records.n" >"$W/pairs"
read -r npairs nzero nodd <"$W/pairs"
echo "no-key names: $npairs, $nzero with a zero hash pair, $nodd with an odd hash"
[ "$npairs" -gt 0 ] && [ "$nzero" = 0 ] && [ "$nodd" = 0 ] && ok || bad "no-key hash pairs"
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img"

# Kernel lookups: case-insensitive with the key, by no-key name without.
records "$man" exists
while IFS=$'\t' read -r tag path found; do
	want=1
	[ "$tag" = ci-none ] && want=0
	[ "$found" = "$want" ] && ok || bad "exists $tag $path: $found, want $want"
done <"$W/records.exists"
[ "$(wc -l <"$W/records.exists")" -ge 2 ] || bad "no exists records"
records "$man" lookup
while IFS=$'\t' read -r tag dir total okc; do
	[ "$total" -gt 0 ] && [ "$total" = "$okc" ] && ok || bad "lookup $tag: $okc of $total"
done <"$W/records.lookup"

# e4dump cat: the exact name and another case of it give the same bytes.
"$E4DUMP" cat "${keyargs[@]}" "$img" "/v2cf/Folding/Straße" >"$W/exact" 2>"$W/cat.err" &&
	"$E4DUMP" cat "${keyargs[@]}" "$img" "/v2cf/FOLDING/strasse" >"$W/other" 2>>"$W/cat.err" &&
	[ "$(stat -c %s "$W/exact")" = 7 ] && cmp -s "$W/exact" "$W/other" && ok ||
	bad "cat in another case: $(head -2 "$W/cat.err")"
"$E4DUMP" cat "${keyargs[@]}" "$img" "/v2cf/Folding/STRASE" >/dev/null 2>&1 &&
	bad "cat of a name that does not exist succeeded" || ok

finish
