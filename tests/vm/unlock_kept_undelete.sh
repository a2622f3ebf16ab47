#!/bin/bash
# Decrypt later after undelete: on the kernel-written deletion image of
# vm/scenarios/undelete-a.scn (v1 and v2 trees, small, sparse, fragmented
# and depth-1 files deleted), `undelete --keep-locked` without a key
# leaves an export (header, sidecars with the data units of the rebuilt
# block map and the ciphertext hashes, directory files with the stored
# names); unlock-kept with the keys, from that output alone (the image
# moved away), writes the tree `undelete` with the keys writes: the same
# paths (names decrypted), every regular file byte for byte (cmp), every
# symlink's target (its stored target saved in its sidecar): exit 0.
# usage: unlock_kept_undelete.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
deletion_image a
"$E4DUMP" undelete --keep-locked "$img" -o "$W/kl" >/dev/null 2>"$W/kl.err"
rc=$?
check "undelete --keep-locked without a key: exit 1 ($rc)" '[ $rc = 1 ]'
check "its output is an export" '[ -f "$W/kl/%e4dump-export.json" ]'
"$E4DUMP" undelete "${keys[@]}" "$img" -o "$W/direct" >/dev/null 2>"$W/direct.err"
rc=$?
check "undelete with the keys: exit 0 ($rc)" '[ $rc = 0 ]'
mv "$img" "$img.away"
"$E4DUMP" unlock-kept "${keys[@]}" "$W/kl" -o "$W/u" >/dev/null 2>"$W/u.err"
rc=$?
mv "$img.away" "$img"
check "unlock-kept: exit 0 ($rc): $(tail -1 "$W/u.err")" '[ $rc = 0 ]'
check "no sanitizer report" '! sanitizer_report "$W/u.err"'
n=0
while IFS= read -r -d '' f; do
	n=$((n + 1))
	if ! cmp -s "$W/direct/$f" "$W/u/$f"; then
		bad "$f: unlock-kept's differs from undelete's with the keys (or is missing)"
	else
		ok
	fi
done < <(cd "$W/direct" && find . -type f -print0)
check "regular files compared: $n, want at least 10" '[ $n -ge 10 ]'
n=0
while IFS= read -r -d '' f; do
	n=$((n + 1))
	check "$f: the target undelete gives with the keys" \
		'[ "$(readlink "$W/direct/$f")" = "$(readlink "$W/u/$f" 2>/dev/null)" ]'
done < <(cd "$W/direct" && find . -type l -print0)
check "symlinks compared: $n, want at least 3" '[ $n -ge 3 ]'
tree() { (cd "$1" && find . ! -name '*.e4dump.json' ! -name '%e4dump-*' | LC_ALL=C sort); }
check "the same paths: $(diff <(tree "$W/direct") <(tree "$W/u") | head -4)" \
	'[ "$(tree "$W/direct")" = "$(tree "$W/u")" ]'
finish
