#!/bin/bash
# Every worked example of spec/ext4-encryption.md (the ```jsonl blocks) is
# recomputed by the library (e4dump vectors --check) and, when given, by
# the independent Python implementation; every numbered section has one.
# usage: examples.sh E4DUMP WORKDIR [PYTHON_VERIFIER]
set -u
E4DUMP=$1
VERIFY=${3:-}
. "$(dirname "$0")/../lib/common.sh"
spec=${E4DUMP_SPEC:-$top/spec/ext4-encryption.md}
workdir "$2"

awk '/^```jsonl$/ {on = 1; next} /^```$/ {on = 0} on' "$spec" >"$W/examples.jsonl"
n=$(grep -c . "$W/examples.jsonl")
[ "$n" -ge 10 ] && ok || bad "only $n examples in the spec"
# Sections 2 to 13 each have worked examples (jsonl or image-bytes).
for sec in 2 3 4 5 6 7 8 9 10 11 12 13; do
	awk -v s="## $sec\\\\." 'index($0, "## ") == 1 {cur = ($0 ~ "^" s)} cur && /^```(jsonl|image-bytes)$/ {found = 1} END {exit !found}' "$spec" &&
		ok || bad "section $sec has no worked example"
done
"$E4DUMP" vectors --check "$W/examples.jsonl" >"$W/lib.out" 2>&1 && ok || bad "library: $(grep FAIL "$W/lib.out" | head -5)"
tail -1 "$W/lib.out"
if [ -n "$VERIFY" ]; then
	/usr/bin/python3 "$VERIFY" "$W/examples.jsonl" >"$W/py.out" 2>&1 && ok || bad "python: $(grep FAIL "$W/py.out" | head -5)"
	tail -1 "$W/py.out"
fi
# ```image-bytes blocks: "# file: PATH" (an .img.xz under the project),
# then "OFFSET HEXBYTES..." lines that must match the image.
awk '/^```image-bytes$/ {on = 1; next} /^```$/ {on = 0} on' "$spec" >"$W/bytes.txt"
nb=0
img=
while read -r off rest; do
	case $off in
	'#')
		set -- $rest
		[ "$1" = file: ] || continue
		img=$W/$(basename "$2" .xz)
		[ -f "$img" ] || xz -dc "$top/$2" >"$img" || bad "cannot read $2"
		continue ;;
	'') continue ;;
	esac
	want=$(echo "$rest" | sed 's/#.*//' | tr -d ' ')
	n=$((${#want} / 2))
	got=$(od -An -v -tx1 -j $((off)) -N "$n" "$img" | tr -d ' \n')
	nb=$((nb + 1))
	[ "$got" = "$want" ] && ok || bad "image bytes at $off: $got, spec says $want"
done <"$W/bytes.txt"
echo "image-bytes lines checked: $nb"
[ "$nb" -ge 3 ] && ok || bad "only $nb image-bytes lines in the spec"
finish
