#!/bin/bash
# ctest bench.tiny: the benchmark's generator and runner once at a tiny scale
# (SCALE 0.01: an 8 MiB file, 300 small files, 1,000 + 100 empty files, twice),
# one repetition, so that neither can rot.  Asserts no timing: only that the
# image and key were made, that the runner's checks passed (the sides agree),
# and that every workload ran and printed a ratio.
# usage: tiny-test.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../tests/lib/common.sh"
workdir "$2"

img=$W/tiny.img
bash "$top/bench/make-image.sh" 0.01 "$img" >"$W/make.log" 2>&1 || {
	tail -20 "$W/make.log"
	give_up "bench/make-image.sh 0.01 failed"
}
check "image and key" '[ -s "$img" ] && [ "$(stat -c %s "$W/tiny.key")" = 64 ]'
check "manifest: both trees" '[ "$(grep -c "^bench-tree " "$img.manifest")" = 2 ]'

# bench/all.sh (without the journal image: 30 minutes of QEMU when not
# cached) runs run.sh, containers.py and start.sh and makes the table
bash "$top/bench/all.sh" -n 1 -scale 0.01 -skip journal -o "$W/all" "$E4DUMP" \
	>"$W/all.out" 2>"$W/all.err"
rc=$?
cp "$W/all/run.txt" "$W/run.out" 2>/dev/null
cp "$W/all/run.err" "$W/run.err" 2>/dev/null
check "all.sh exit $rc, want 0: $(grep -m3 'FAILED\|error' "$W/all.err" "$W/run.err" "$W/run.out")" \
	'[ $rc = 0 ]'
check "all.sh: the E01 and qcow2 rows of every container workload" \
	'[ "$(grep -c "^| 1 | .* through the \(E01\|qcow2\): raw time / .* | [0-9.]* (" "$W/all/latest.md")" = 10 ]'
check "all.sh: both-cores rows" '[ "$(grep -c "^| 2 | .* | [0-9.]* " "$W/all/latest.md")" = 4 ]'
check "all.sh: start rows" 'grep -q "^| 4 | e4dump --version | < 10 ms | [0-9.]* ms" "$W/all/latest.md"'
check "all.sh: no journal rows (skipped)" '! grep -q "^| 3 |" "$W/all/latest.md"'
check "all.sh: the images' links removed, the cache's files kept" \
	'[ ! -e "$W/all/img" ] && [ -s "$img" ]'

# Every pair of the detailed table has a number in its ratio column (the
# 7th field of "| id | subject | s | reference | s | ratio | ..."), and each
# workload has its first row.  run.sh leaves out the two e4dump mount
# workloads where FUSE cannot be used (the same test as its own).
ids="cat-large extract-large extract-small extract-few extract-many
	ls-many-key ls-many-nokey ls-few-nokey verify"
want=12
if [ -r /dev/fuse ] && [ -w /dev/fuse ] && command -v fusermount3 >/dev/null; then
	ids="$ids mount-cat mount-find" want=14
		check "all.sh: mount rows" '[ "$(grep -c "^| 5 | " "$W/all/latest.md")" = 2 ]'
	for id in mount-cat mount-find; do
		check "$id in the goals table" \
			'grep -q "^| $id | .* | [0-9.]* ([0-9.]*-[0-9.]*) [^ |]* | [0-9.]* (" "$W/run.out"'
	done
fi
for id in $ids; do
	check "workload $id has a row" 'grep -q "\[$id\] |" "$W/run.out"'
done
pairs=$(awk -F'|' '/^\| / && $3 ~ /e4dump/ && $7 ~ /^ [0-9.]+ $/ { n++ } END { print n + 0 }' \
	"$W/run.out")
check "$want pairs with a ratio, found $pairs" '[ "$pairs" = $want ]'
check "no FAILED in the tables" '! grep -q FAILED "$W/run.out"'
for l in "extract of empty files" "ls -l without the key"; do
	check "scaling of '$l' printed" \
		'grep -- "^  $l: e4dump (/enc) [0-9.]*x, debugfs [0-9.]*x$" "$W/run.out"'
done
for l in "one core" "-multi 2" "raw read"; do
	check "limit '$l' measured" 'grep -- "$l" "$W/run.out" | grep -q "GB/s"'
done

# -base: a second e4dump (here the same binary) beside the first; the
# before/after tables have a row for each e4dump side and each pair.
only=cat-large,extract-small
[ $want = 14 ] && only=$only,mount-cat
bash "$top/bench/run.sh" -n 2 -crypto 1 -w "$W/base" -only $only -base "$E4DUMP" \
	"$E4DUMP" "$img" "$W/tiny.key" >"$W/base.out" 2>"$W/base.err"
rc=$?
check "run.sh -base exit $rc, want 0: $(grep -m3 'FAILED\|error' "$W/base.err" "$W/base.out")" \
	'[ $rc = 0 ]'
# | workload | side | after s | before s | after / before | per repetition | RSS |
for side in "e4dump (/enc)" "e4dump (/plain)"; do
	check "-base: after / before of $side" \
		'grep -q "^| .* | $side | [0-9.]* ([0-9.]*-[0-9.]*) | [0-9.]* ([0-9.]*-[0-9.]*) | [0-9.]* | [0-9.]* (" "$W/base.out"'
done
befaft=$(awk -F'|' 'NF == 7 && $5 ~ /^ [0-9.]+ $/ && $6 ~ /^ [0-9.]+ $/ { n++ } END { print n + 0 }' "$W/base.out")
bwant=5
[ $want = 14 ] && bwant=6
check "-base: $bwant pairs with a ratio before and after, found $befaft" '[ "$befaft" = $bwant ]'
if [ $want = 14 ]; then
	check "-base: mount-cat.base in the goals table" 'grep -q "^| mount-cat.base | " "$W/base.out"'
	check "-base: after / before of e4dump mount" 'grep -q "^| .* | e4dump mount (/enc) | [0-9.]* (" "$W/base.out"'
fi
check "-base: the base binary named" 'grep -q "^base e4dump: $E4DUMP " "$W/base.out"'
finish
