#!/bin/bash
# The inode-table cache reads each 64 KiB window of the tables once while
# the windows fit in it (32 MiB, 512 windows): ls -l of a directory of
# 7,700 entries whose names sort in another order than their inodes (as
# an encrypted directory's no-key names do), so that it visits them all
# over the tables, on an image made by mke2fs -d with 4 KiB inodes (484
# windows).  Counted as the pread64 calls of 64 KiB at each offset
# (strace).  With 4-way sets of the same 32 MiB, windows of sets that got
# more than four were read again on every pass (ls -l of the bench's
# 100,000 no-key names: 2,754 reads of 480 windows).  The listing itself
# is checked against debugfs's.
# usage: itable_cache.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
N=7700
command -v strace >/dev/null && strace -f -qq -e trace=none true 2>/dev/null ||
	give_up "strace cannot trace here"
# inodes in the order of /all's names (mke2fs -d takes a directory's
# entries in name order), listed from /d, where the same inodes' names
# sort in a shuffled order
mkdir -p "$W/src/all" "$W/src/d"
/usr/bin/python3 -c '
import os, random, sys
src, n = sys.argv[1], int(sys.argv[2])
order = list(range(n))
random.Random(1).shuffle(order)
for i in range(n):
    f = os.path.join(src, "all", "f%05d" % i)
    open(f, "w").close()
    os.link(f, os.path.join(src, "d", "g%05d" % order[i]))
' "$W/src" "$N" || give_up "making the tree"
mke2fs -q -F -t ext4 -b 4096 -I 4096 -N $((N + 64)) -d "$W/src" "$W/img" 512M >/dev/null ||
	give_up "mke2fs -d"
debugfs -R "ls /d" "$W/img" 2>/dev/null | tr -s ' \n' '\n\n' | grep '^g[0-9]' | sort >"$W/want"
check "debugfs lists the $N files ($(wc -l <"$W/want"))" '[ "$(wc -l <"$W/want")" = $N ]'

# (LeakSanitizer cannot run under ptrace)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=pread64 -o "$W/strace" \
	"$E4DUMP" ls -l "$W/img" /d >"$W/ls" 2>"$W/ls.err"
rc=$?
check "ls -l exit $rc: $(tail -1 "$W/ls.err")" '[ $rc = 0 ]'
awk '{print $NF}' "$W/ls" | sort >"$W/got"
check "ls -l lists what debugfs lists" 'cmp -s "$W/want" "$W/got"'
# pread64(3, "..."..., 65536, 1048576) = 65536
grep -o ', 65536, [0-9]*)' "$W/strace" | sort | uniq -c | sort -rn >"$W/windows"
reads=$(awk '{n += $1} END {print n + 0}' "$W/windows")
distinct=$(wc -l <"$W/windows")
check "the tables' windows read: $reads reads of $distinct windows, want each once (most: $(head -1 "$W/windows"))" \
	'[ "$distinct" -ge 470 ] && [ "$reads" = "$distinct" ]'
finish
