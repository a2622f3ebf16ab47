#!/bin/bash
# i_dtime that is the orphan list's link, not a time (issue 28): without
# the orphan_file feature the kernel chains the inodes it must finish
# (unlinked while open, truncates) from s_last_orphan through i_dtime.
# e2fsck's rule (pass1.c PR_1_LOW_DTIME): a nonzero i_dtime below
# s_inodes_count is such a link.  The truth here is e2fsck -fn's report
# and debugfs stat's raw i_dtime, never e4dump:
#   a copy of the sample with `sif /plain/hello.txt dtime 0xc`: e2fsck
#   says the inode "was part of the orphaned inode list"; e4dump stat
#   --json gives dtime null and orphan_next 12, its text "orphan list:
#   next inode 12" and no dtime line, ls still lists it, timeline --json
#   gives the same record (no 1970 time anywhere);
#   `sif /plain/link dtime 0x60000000` (a time, links 1): e2fsck says
#   "in use, but has dtime set"; e4dump gives that dtime and says the
#   kernel ignores it;
#   an orphan chain made with debugfs on a fresh image (s_last_orphan ->
#   X -> Y, links 0): every inode e2fsck names part of the orphaned list
#   has orphan_next = debugfs's i_dtime, dtime null; the chain's end
#   (i_dtime 0) has neither.
# usage: orphan_dtime.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in debugfs e2fsck mke2fs; do
	command -v $t >/dev/null || give_up "$t not found (scripts/install-deps.sh)"
done
py() { /usr/bin/python3 -c "$@"; }
# the i_dtime debugfs stat shows (hex), as a number
raw_dtime() {
	debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/^ *dtime: 0x\([0-9a-f]*\).*/\1/p' | head -1 | { read -r h; echo $((16#${h:-0})); }
}
# KEY of the first record of type stat in FILE (JSON), as Python prints it
field() { py 'import json,sys; o=[json.loads(l) for l in open(sys.argv[1])][0]; print(o.get(sys.argv[2], "absent"))' "$1" "$2" 2>/dev/null; }

sample s.img
img=$W/s.img
debugfs -w -R "sif /plain/hello.txt dtime 0xc" "$img" >/dev/null 2>&1
debugfs -w -R "sif /plain/link dtime 0x60000000" "$img" >/dev/null 2>&1
e2fsck -fn "$img" >"$W/fsck" 2>&1
ino=$(debugfs -R "stat /plain/hello.txt" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
check "e2fsck names inode $ino part of the orphaned inode list" \
	'grep -q "Inode $ino was part of the orphaned inode list" "$W/fsck"'
want=$(raw_dtime "$img" "<$ino>")
check "debugfs: i_dtime of inode $ino is 12 ($want)" '[ "$want" = 12 ]'
"$E4DUMP" stat --json "$img" /plain/hello.txt >"$W/st.json" 2>"$W/st.err"
check "stat --json: orphan_next $want ($(field "$W/st.json" orphan_next))" \
	'[ "$(field "$W/st.json" orphan_next)" = "$want" ]'
check "stat --json: dtime null ($(field "$W/st.json" dtime))" '[ "$(field "$W/st.json" dtime)" = None ]'
"$E4DUMP" stat "$img" /plain/hello.txt >"$W/st.txt" 2>&1
check "stat: says the orphan list's link" 'grep -q "^orphan list: next inode 12 " "$W/st.txt"'
check "stat: no dtime line (no 1970 time)" '! grep -q "^dtime:" "$W/st.txt"'
check "ls still lists it" '"$E4DUMP" ls "$img" /plain | grep -qx hello.txt'
"$E4DUMP" timeline --json "$img" /plain >"$W/tl.json" 2>"$W/tl.err"
check "timeline --json: orphan_next 12, dtime null for inode $ino" \
	'py "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; o=[x for x in r if x.get(\"inode\")==$ino]; sys.exit(not(len(o)==1 and o[0][\"orphan_next\"]==12 and o[0][\"dtime\"] is None))" "$W/tl.json"'
check "no 1970 time in timeline --json" '! grep -q "\"1970-01-01T00:00:12" "$W/tl.json"'
# a time on an inode with links: e2fsck keeps it a time ("in use, but
# has dtime set"), the kernel ignores it
p=/plain/link
i2=$(debugfs -R "stat $p" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
check "e2fsck: inode $i2 in use, but has dtime set" 'grep -q "Inode $i2 is in use, but has dtime set" "$W/fsck"'
"$E4DUMP" stat --json "$img" "$p" >"$W/st2.json" 2>/dev/null
check "stat --json $p: dtime 2021-01-14T08:25:36Z, orphan_next null" \
	'[ "$(field "$W/st2.json" dtime)" = 2021-01-14T08:25:36.000000000Z ] && [ "$(field "$W/st2.json" orphan_next)" = None ]'
"$E4DUMP" stat "$img" "$p" >"$W/st2.txt" 2>&1
check "stat $p: the dtime, said to be ignored on an inode with links" \
	'grep -q "^dtime: 2021-01-14T08:25:36.000000000Z (set on an inode with links" "$W/st2.txt"'

# an orphan chain: s_last_orphan -> X -> Y (links 0, names gone)
img=$W/chain.img
mke2fs -q -F -t ext4 -O ^orphan_file -N 64 "$img" 4M >/dev/null 2>&1 ||
	mke2fs -q -F -t ext4 -N 64 "$img" 4M >/dev/null 2>&1 || give_up "mke2fs"
echo data >"$W/data"
debugfs -w -f - "$img" >/dev/null 2>&1 <<EOD
write $W/data x
write $W/data y
EOD
X=$(debugfs -R "stat /x" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
Y=$(debugfs -R "stat /y" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
debugfs -w -f - "$img" >/dev/null 2>&1 <<EOD
unlink /x
unlink /y
sif <$X> links_count 0
sif <$X> dtime $Y
sif <$Y> links_count 0
sif <$Y> dtime 0
ssv last_orphan $X
EOD
e2fsck -fn "$img" >"$W/fsck2" 2>&1
listed=$(sed -n 's/^Inode \([0-9]*\) was part of the orphaned inode list.*/\1/p' "$W/fsck2" | sort -n | tr '\n' ' ')
check "e2fsck names inode $X (and only it) part of the orphaned inode list ($listed)" \
	'[ "$listed" = "$X " ]'
for i in $X $Y; do
	"$E4DUMP" stat --json "$img" "<$i>" >"$W/c$i.json" 2>/dev/null
	d=$(raw_dtime "$img" "<$i>")
	if grep -q "^Inode $i was part of the orphaned inode list" "$W/fsck2"; then
		check "inode $i: orphan_next $d as debugfs's i_dtime, dtime null" \
			'[ "$(field "$W/c$i.json" orphan_next)" = "$d" ] && [ "$(field "$W/c$i.json" dtime)" = None ]'
	else
		check "inode $i (the chain's end, i_dtime $d): no orphan_next, no dtime" \
			'[ "$d" = 0 ] && [ "$(field "$W/c$i.json" orphan_next)" = None ] && [ "$(field "$W/c$i.json" dtime)" = None ]'
	fi
done
finish
