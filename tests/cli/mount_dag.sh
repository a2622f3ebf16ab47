#!/bin/bash
# e4dump mount and a directory with several names (found by a hostile
# review: the mount followed every name, where ls and extract refuse the
# second, "second link to a directory already entered").  The image:
# mkfs.ext4 -d, then debugfs -w "ln" gives /a/d two more names, /b/e (in
# another directory) and /a/d2 (in the same one, after it).  ext4
# directories have one parent: the first name in the walk's order (depth
# first, entries in listing order) keeps the directory, the others are EIO
# with a message, whatever is asked first.  Which name is first comes from
# debugfs's listing order (ls of / and of /a), not from e4dump.  Checked
# through the kernel's view of the mount (stat, ls, cat).
# usage: mount_dag.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
mount_setup mkfs.ext4 debugfs
mkdir -p "$MNT" "$W/tree/a/d" "$W/tree/b"
echo x >"$W/tree/a/d/x"
echo y >"$W/tree/a/d/y"
trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
mkfs.ext4 -q -F -b 4096 -N 64 -d "$W/tree" "$W/img" 8M >/dev/null || give_up "mkfs.ext4 -d failed"
debugfs -w -f - "$W/img" >/dev/null 2>&1 <<'CMDS'
ln a/d b/e
ln a/d a/d2
CMDS
sha=$(sha256sum <"$W/img")
# the listing order, as debugfs gives it (ls -l: one entry per line)
order() { debugfs -R "ls -l $1" "$W/img" 2>/dev/null | awk 'NF >= 9 {print $NF}'; }
root=$(order / | grep -nx -e a -e b | tr '\n' ' ')
ina=$(order /a | grep -nx -e d -e d2 | tr '\n' ' ')
check "debugfs: /a before /b ($root), d before d2 in /a ($ina)" \
	'[ "${root%% *}" = "$(order / | grep -nx a)" ] && [ "${ina%% *}" = "$(order /a | grep -nx d)" ]'
dino=$(debugfs -R "stat /a/d" "$W/img" 2>/dev/null | sed -nE 's/^Inode: ([0-9]+).*/\1/p')
check "debugfs: /b/e and /a/d2 are inode $dino too" \
	'[ -n "$dino" ] && debugfs -R "ls -l /b" "$W/img" 2>/dev/null | grep -Eq "^ +$dino .* e *$" && debugfs -R "ls -l /a" "$W/img" 2>/dev/null | grep -Eq "^ +$dino .* d2 *$"'

"$E4DUMP" mount "$W/img" "$MNT" 2>"$W/daemon.err" >/dev/null
check "daemon mounted" 'mountpoint -q "$MNT"'
# the later names first: the answer must not depend on what is asked first
stat "$MNT/b/e" >/dev/null 2>"$W/e.err"
check "/b/e (a second name, asked first): EIO ($(cat "$W/e.err"))" 'grep -q "Input/output error" "$W/e.err"'
stat "$MNT/a/d2" >/dev/null 2>"$W/d2.err"
check "/a/d2 (a second name in the same directory): EIO" 'grep -q "Input/output error" "$W/d2.err"'
ls "$MNT/a/d" >"$W/ls.d" 2>"$W/ls.d.err"
check "/a/d (the first name) lists x, y ($(tr '\n' ' ' <"$W/ls.d"))" \
	'[ "$(sort "$W/ls.d" | tr "\n" " ")" = "x y " ]'
check "a file through the first name reads" '[ "$(cat "$MNT/a/d/x")" = x ]'
check "stat /a/d: inode $dino, a directory" '[ "$(stat -c "%i %F" "$MNT/a/d")" = "$dino directory" ]'
ls "$MNT/b/e/" >/dev/null 2>"$W/ls.e.err"
check "ls /b/e/: EIO still" 'grep -q "Input/output error" "$W/ls.e.err"'
cat "$MNT/b/e/x" >/dev/null 2>"$W/cat.e.err"
check "a file through the second name: refused" '[ -s "$W/cat.e.err" ]'
ls "$MNT/b" >"$W/ls.b" 2>/dev/null
check "readdir of /b still lists the name e" 'grep -qx e "$W/ls.b"'
sleep 0.2
check "the daemon says why ($(grep -m1 "second name" "$W/daemon.err" | head -c 200))" \
	'grep -q "second name of directory inode $dino" "$W/daemon.err"'
check "no sanitizer report" '! sanitizer_report "$W/daemon.err"'
fusermount3 -u "$MNT"
sleep 0.3
check "no daemon left" '! pgrep -f -- "e4dump mount .*$MNT\$" >/dev/null'
check "the image is unchanged" '[ "$(sha256sum <"$W/img")" = "$sha" ]'
finish
