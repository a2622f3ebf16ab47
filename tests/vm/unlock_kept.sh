#!/bin/bash
# Decrypt later (extract --keep-locked, then unlock-kept) on images the
# kernel wrote: without a key, extract keeps every locked file as its
# ciphertext with its hashes (manifest and JSON, marked as of the
# ciphertext: hashlib's of the kept files); unlock-kept, given the keys
# and the export alone (the image moved away), writes the same tree as a
# direct extract with the keys (names, types, modes, sizes, mtimes,
# contents, symlink targets) and the tree the guest's manifest records;
# with a wrong key it keeps everything (exit 1), and its output, an export
# again, is finished by a second run with the keys.  Its --json records of
# the symlinks it decrypted give the size and target the guest's lstat and
# readlink gave with the keys (the manifest's), as extract's records do.
# usage: unlock_kept.sh E4DUMP WORKDIR SCENARIO...
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
shift 2
for scn in "$@"; do
	s=$(basename "$scn" .scn)
	D=$W/$s
	mkdir -p "$D"
	img=$D/image.img
	make_image "$scn" "$img" "$D/make.log"
	keys=()
	for k in "$D"/keys/*.key; do keys+=(--key-file "$k"); done
	"$E4DUMP" extract --keep-locked --manifest "$D/kl.tsv" --json "$img" -o "$D/kl" \
		>"$D/kl.json" 2>"$D/kl.err"
	rc=$?
	check "$s: extract --keep-locked without a key: exit 1 ($rc)" '[ $rc = 1 ]'
	n=$(/usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" hashes "$D/kl" "$D/kl.tsv" "$D/kl.json" 2>&1)
	check "$s: the ciphertext hashes of every kept file ($n)" '[[ $n =~ ^[0-9]+$ ]]'
	n=$(/usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" export "$D/kl" "$img" 2>&1)
	st=$?
	check "$s: what the export saved is the image's (ext4img.py): $(echo $n | tail -c 300)" '[ $st = 0 ]'
	"$E4DUMP" extract --json "${keys[@]}" "$img" -o "$D/direct" >"$D/direct.json" 2>"$D/direct.err"
	st=$?
	check "$s: direct extract with the keys: exit 0" '[ $st = 0 ]'
	mv "$img" "$img.away" # the export alone
	"$E4DUMP" unlock-kept "${keys[@]}" --manifest "$D/u.tsv" --json "$D/kl" -o "$D/u" \
		>"$D/u.json" 2>"$D/u.err"
	rc=$?
	check "$s: unlock-kept with the keys: exit 0 ($rc): $(tail -1 "$D/u.err")" '[ $rc = 0 ]'
	r=$(/usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" same "$D/direct" "$D/u" 2>&1)
	st=$?
	check "$s: unlock-kept = direct extract: $(echo $r | head -c 300)" '[ $st = 0 ]'
	check "$s: diff -r" 'diff -r --no-dereference "$D/direct" "$D/u" >/dev/null'
	r=$(/usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" links "$img.manifest" "$D/u.json" "$D/direct.json" 2>&1)
	st=$?
	check "$s: unlock-kept's symlink records: size and target as the kernel's lstat and readlink with the keys, and extract's: $(echo $r | tail -c 300)" '[ $st = 0 ]'
	check "$s: unlock-kept = the guest's manifest" \
		'check_extract -q --apply-removed "$img.manifest" "$D/u" >/dev/null 2>&1'
	check "$s: no export file left in a complete output" \
		'[ -z "$(find "$D/u" -name "%e4dump-*")" ]'
	# a wrong key: everything stays kept; then the rest with the keys
	head -c 64 /dev/urandom >"$D/wrong.key"
	"$E4DUMP" unlock-kept --key-file "$D/wrong.key" "$D/kl" -o "$D/p" 2>"$D/p.err"
	rc=$?
	check "$s: unlock-kept with a wrong key: exit 1 ($rc), kept: $(tail -1 "$D/p.err")" \
		'[ $rc = 1 ] && grep -q " 0 files, 0 symlinks made; .* [1-9][0-9]* kept locked" "$D/p.err"'
	"$E4DUMP" unlock-kept "${keys[@]}" "$D/p" -o "$D/u2" 2>"$D/u2.err"
	rc=$?
	r=$(/usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" same "$D/direct" "$D/u2" 2>&1)
	check "$s: then with the keys: exit 0 ($rc), = direct extract: $(echo $r | head -c 300)" \
		'[ $rc = 0 ] && /usr/bin/python3 "$top/tests/vm/unlock_kept_check.py" same "$D/direct" "$D/u2" >/dev/null'
	mv "$img.away" "$img"
done
finish
