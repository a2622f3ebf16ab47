#!/bin/bash
# e4dump mount's start reads no inode of a non-directory (issue 27: the
# walk that gives each directory its one name read every entry's inode,
# 70,000 on the bench image, and kept the inode-table cache it filled).
# The walk scans the inode tables first and reads, entry by entry, only
# the inodes the scan did not find in use and not a directory.  The image
# (mkfs.ext4 -d): 3 directories with 60 regular files, a symlink and a
# fifo; with lost+found and the root, 5 directories, so the walk reads 4
# entries' inodes (the root's is the start), counted from the tree given
# to mkfs and from debugfs, not from e4dump.  The daemon says the count
# with -v.  Then the files are read through the mount as before.  The
# walk sorts only the entries it visits: debugfs "ln a/b a/0b" appends a
# second name of /a/b after b on disk, but 0b comes first in byte order,
# the listing order of ls (hand-derived): /a/0b keeps the directory,
# /a/b is EIO, and the walk reads one inode more, 0b's.
# usage: mount_start.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
[ -w /dev/fuse ] || give_up "SKIPPED: /dev/fuse is not usable"
for t in fusermount3 mountpoint mkfs.ext4 debugfs mkfifo; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not found (scripts/install-deps.sh)"
done
MNT=$W/mnt
mkdir -p "$MNT" "$W/tree/a/b" "$W/tree/c"
for i in $(seq 20); do
	echo "a$i" >"$W/tree/a/f$i"
	echo "b$i" >"$W/tree/a/b/f$i"
	echo "r$i" >"$W/tree/f$i"
done
ln -s a/f1 "$W/tree/link"
mkfifo "$W/tree/c/fifo"
trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
mkfs.ext4 -q -F -b 4096 -N 256 -d "$W/tree" "$W/img" 8M >/dev/null || give_up "mkfs.ext4 -d failed"
debugfs -w -R "ln a/b a/0b" "$W/img" >/dev/null 2>&1
ndirs=$(( $(find "$W/tree" -type d | wc -l) + 1 ))   # and lost+found
nent=$(find "$W/tree" -mindepth 1 | wc -l)
check "debugfs: in /a, b before 0b on disk" \
	'[ "$(debugfs -R "ls /a" "$W/img" 2>/dev/null | tr -s " \n" "\n\n" | grep -nxF -e b -e 0b | cut -d: -f2 | tr "\n" " ")" = "b 0b " ]'
check "debugfs: lost+found, a, c under / ($ndirs directories, $nent entries in the tree)" \
	'[ "$(debugfs -R "ls -l /" "$W/img" 2>/dev/null | awk "\$2 ~ /^40/ {print \$NF}" | grep -vxF -e . -e .. | sort | tr "\n" " ")" = "a c lost+found " ]'

"$E4DUMP" mount -v "$W/img" "$MNT" 2>"$W/daemon.err" >/dev/null
check "daemon mounted" 'mountpoint -q "$MNT"'
line=$(grep -m1 "found before serving" "$W/daemon.err")
check "the start read $ndirs entries' inodes, of $ndirs directories ($line)" \
	'[[ "$line" == *" $ndirs directories, "*", $ndirs of their inodes read"* ]]'
check "/a/0b, first in listing order, is the directory" '[ "$(cat "$MNT/a/0b/f7")" = b7 ]'
stat "$MNT/a/b" >/dev/null 2>"$W/b.err"
check "/a/b, its second name, is EIO" 'grep -q "Input/output error" "$W/b.err"'
check "a regular file reads ($(cat "$MNT/a/f7" 2>&1))" '[ "$(cat "$MNT/a/f7")" = a7 ]'
check "the symlink reads" '[ "$(readlink "$MNT/link")" = a/f1 ]'
check "the fifo is a fifo" '[ -p "$MNT/c/fifo" ]'
check "find lists the tree's entries and the second name (not entered)" \
	'[ "$(find "$MNT" -mindepth 1 -not -path "$MNT/lost+found" 2>/dev/null | wc -l)" = "$((nent + 1))" ]'
check "no sanitizer report" '! sanitizer_report "$W/daemon.err"'
fusermount3 -u "$MNT"
finish
