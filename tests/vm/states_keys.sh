#!/bin/bash
# v2 keys given as their HMAC-SHA512 states only (what Linux 6.1 keeps of
# a v2 key, spec §17.3; the key file form of e4dump.1), on images the
# kernel wrote: every v2 key of the scenario converted by
# tests/vm/states_keyfile.py (hashlib and a pure-Python SHA-512, not
# e4dump), the v1 keys left raw; then
# * extract reproduces every tree of the manifest byte for byte (v2:
#   per-file keys, IV_INO_LBLK_64 and _32 with the inode hash key;
#   v2-casefold; adiantum-hctr2: DIRECT_KEY, HCTR2 names, and a v1 key
#   found by trial decryption among the states keys);
# * ls -lR prints what it prints with the raw keys;
# * verify has no finding (on v2-casefold: every stored hash pair
#   recomputed under the dirhash key derived from the states);
# * info says the states file opens each v2 policy.
# usage: states_keys.sh E4DUMP WORKDIR SCENARIO_WORKROOT
# Uses SCENARIO_WORKROOT/<scenario>/image.img (+ .manifest, keys/) that
# tests/vm/scenario.sh left, else writes the image itself.
set -u
E4DUMP=$1
ROOT=$3
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"

for s in v2 v2-casefold adiantum-hctr2; do
	img=$ROOT/$s/image.img
	keydir=$ROOT/$s/keys
	if ! [ -s "$img" ] || ! [ -s "$img.manifest" ] || ! ls "$keydir"/*.key >/dev/null 2>&1; then
		mkdir -p "$W/$s"
		img=$W/$s/image.img
		keydir=$W/$s/keys
		make_image "$top/vm/scenarios/$s.scn" "$img" "$W/$s/make.log"
	fi
	d=$W/$s
	mkdir -p "$d/states"
	raw=() st=() nstates=0
	for k in "$keydir"/*.key; do
		raw+=(--key-file "$k")
		id=$(basename "$k" .key)
		if [ ${#id} != 32 ]; then # a v1 key, named by its descriptor
			st+=(--key-file "$k")
			continue
		fi
		got=$(/usr/bin/python3 "$top/tests/vm/states_keyfile.py" "$k" "$d/states/$id.states")
		check "$s: states of key $id: the kernel's identifier ($got)" '[ "$got" = "$id" ]'
		st+=(--key-file "$d/states/$id.states")
		nstates=$((nstates + 1))
	done
	check "$s: at least one v2 key" '[ $nstates -gt 0 ]'
	"$E4DUMP" extract "${st[@]}" "$img" -o "$d/out" 2>"$d/extract.err" && ok ||
		bad "$s: extract with states keys exited $?: $(head -3 "$d/extract.err")"
	check_extract -q --apply-removed "$img.manifest" "$d/out" && ok ||
		bad "$s: extracted trees differ from the manifest"
	"$E4DUMP" ls -lR "${raw[@]}" "$img" >"$d/ls.raw" 2>/dev/null
	"$E4DUMP" ls -lR "${st[@]}" "$img" >"$d/ls.states" 2>"$d/ls.err"
	rc=$?
	check "$s: ls -lR with states keys (exit $rc) = with raw keys ($(wc -l <"$d/ls.states") lines)" \
		'[ $rc = 0 ] && ! sanitizer_report "$d/ls.err" && [ -s "$d/ls.raw" ] && cmp -s "$d/ls.raw" "$d/ls.states"'
	"$E4DUMP" verify "${st[@]}" "$img" >"$d/verify" 2>&1 && ok ||
		bad "$s: verify with states keys: $(head -3 "$d/verify")"
	"$E4DUMP" info "${st[@]}" "$img" >"$d/info" 2>&1
	while read -r _ id _; do
		check "$s: info: the states file opens identifier $id" \
			'grep -q "identifier $id, .* opened by .*/$id\.states (" "$d/info"'
	done < <(grep '^key2 ' "$img.manifest")
	check "$s: info: every v1 policy opened by its raw key" \
		'! grep "policy v1" "$d/info" | grep -qv "opened by .*/keys/[0-9a-f]*\.key ("'
	check "$s: info: no policy without a key" '! grep -q "no key opens it" "$d/info"' 
done
finish
