#!/bin/bash
# Memory is bounded by the largest directory and the depth of the tree,
# never by the number of paths: a directory of 1,000,000 entries is listed,
# extracted and verified within 256 MiB, 4,096 nested directories of 255-byte names
# within 64 MiB (peak RSS of the e4dump process); a directory above
# --max-entries is refused with a clear error.  Sanitizer builds (whose
# shadow memory inflates RSS) run a 100,000-entry directory and check
# only what was printed and made.
# usage: memory.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
big=bigdir n=1000000
if sanitized "$E4DUMP"; then
	big=bigdir100k n=100000
fi
/usr/bin/python3 "$top/tests/safety/craft.py" "$W" $big deeptree \
	>"$W/craft.log" 2>&1 || give_up "craft.py: $(tail -3 "$W/craft.log")"
rss_within() { # NAME LIMIT_MB
	limit=$2
	if sanitized "$E4DUMP"; then
		ok
	else
		check "$1: peak RSS $RSS_MB MiB, limit $limit MiB" '[ "$RSS_MB" -le "$limit" ]'
	fi
	echo "$1: exit $RC, peak RSS $RSS_MB MiB"
}

peak_rss "$W/ls" -- "$E4DUMP" ls -l "$W/$big.img" /big
check "ls -l of $n entries: exit $RC, $(head -2 "$W/ls.err")" '[ "$RC" = 0 ] && [ ! -s "$W/ls.err" ]'
check "ls -l of $n entries: $(wc -l <"$W/ls") lines" '[ "$(wc -l <"$W/ls")" = $n ]'
rss_within "ls -l, $n entries" 256
peak_rss "$W/x.out" -- "$E4DUMP" extract "$W/$big.img" /big -o "$W/x"
check "extract of $n entries: exit $RC, $(head -2 "$W/x.out.err")" '[ "$RC" = 0 ]'
check "extract of $n entries: $(ls -f "$W/x/big" | wc -l) made" '[ "$(ls -f "$W/x/big" | wc -l)" = $((n + 2)) ]'
rss_within "extract, $n entries" 256
rm -rf "$W/x"
peak_rss "$W/v" -- "$E4DUMP" verify "$W/$big.img"
check "verify of $n entries: exit $RC, $(tail -1 "$W/v")" '[ "$RC" = 0 ] && grep -q "^verify: 0 findings (.*, $((n + 3)) entries;" "$W/v"'
rss_within "verify, $n entries" 256
expect "--max-entries" 1 "^e4dump: error: /big \(inode [0-9]+\): more than 1000 entries: not listed" -- \
	"$E4DUMP" ls --max-entries 1000 "$W/$big.img" /big

peak_rss "$W/deep" -- "$E4DUMP" ls -R "$W/deeptree.img"
check "ls -R of 4096 levels: exit $RC, $(head -2 "$W/deep.err")" '[ "$RC" = 0 ] && [ ! -s "$W/deep.err" ]'
depth=$(awk -F/ '{ if (NF > m) m = NF } END { print m }' "$W/deep")
check "ls -R of 4096 levels: $(wc -l <"$W/deep") lines, $depth names deep" '[ "$(wc -l <"$W/deep")" = 4098 ] && [ "$depth" = 4097 ]'
rm -f "$W/deep"
rss_within "ls -R, 4096 levels" 64
peak_rss "$W/dx.out" -- "$E4DUMP" extract "$W/deeptree.img" -o "$W/dx"
check "extract of 4096 levels: exit $RC, $(head -2 "$W/dx.out.err")" '[ "$RC" = 0 ]'
check "extract of 4096 levels: the file at the bottom" '[ "$(find "$W/dx" -name last -type f | wc -l)" = 1 ] && [ "$(find "$W/dx" -type d | wc -l)" = 4098 ]'
rss_within "extract, 4096 levels" 64
peak_rss "$W/dv" -- "$E4DUMP" verify "$W/deeptree.img"
check "verify of 4096 levels: exit $RC, $(tail -1 "$W/dv")" '[ "$RC" = 0 ] && grep -q "^verify: 0 findings (.*, 4098 directories" "$W/dv"'
rss_within "verify, 4096 levels" 64
expect "--max-depth" 1 "directories nested deeper than 100: not entered" -- \
	"$E4DUMP" ls -R --max-depth 100 "$W/deeptree.img"
rm -rf "$W/dx"
finish
