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

bash "$top/bench/run.sh" -n 1 -crypto 1 -w "$W/run" "$E4DUMP" "$img" "$W/tiny.key" \
	>"$W/run.out" 2>"$W/run.err"
rc=$?
check "run.sh exit $rc, want 0: $(grep -m3 'FAILED\|error' "$W/run.err" "$W/run.out")" \
	'[ $rc = 0 ]'

# Every pair of the detailed table has a number in its ratio column (the
# 7th field of "| id | subject | s | reference | s | ratio | ..."), and each
# workload has its first row.  run.sh leaves out the two e4dump mount
# workloads where FUSE cannot be used (the same test as its own).
ids="cat-large extract-large extract-small extract-few extract-many
	ls-many-key ls-many-nokey ls-few-nokey verify"
want=12
if [ -r /dev/fuse ] && [ -w /dev/fuse ] && command -v fusermount3 >/dev/null; then
	ids="$ids mount-cat mount-find" want=14
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
finish
