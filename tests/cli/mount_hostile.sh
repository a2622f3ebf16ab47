#!/bin/bash
# e4dump mount on damaged images (issue 17: a corrupt entry or file gives
# EIO for that entry and a message, never a crash of the daemon; found by
# a hostile review):
#   - an entry naming inode 1 (FUSE's root node) or the root elsewhere: EIO
#     for that name, and the root stays usable;
#   - an entry naming an inode not in use: EIO;
#   - a file whose block lies past the end of a truncated image: EIO on
#     read, never zeros;
# each with a message on stderr, also from the daemon (no -f), whose
# stderr is kept.  Images: mkfs.ext4 -d, damaged with debugfs -w.
# usage: mount_hostile.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
mount_setup mkfs.ext4 debugfs
mkdir -p "$MNT" "$W/tree/sub"
head -c 100000 /dev/urandom >"$W/tree/sub/big.bin"
echo hello >"$W/tree/hello.txt"
trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
mkfs.ext4 -q -F -b 4096 -N 64 -d "$W/tree" "$W/img" 8M || give_up "mkfs.ext4 -d failed"
# the damage: names for inode 1, the root and an unused inode
debugfs -w -f - "$W/img" >/dev/null 2>&1 <<'CMDS'
ln <1> evil
sif <1> mode 0100644
sif <1> links_count 1
sif <1> generation 5
ln <2> rootagain
ln <40> unused
CMDS
# the image ends before big.bin's last block
last=$(debugfs -R "blocks /sub/big.bin" "$W/img" 2>/dev/null | awk '{print $NF}')
check "big.bin has blocks ($last)" '[ -n "$last" ] && [ "$last" -gt 0 ]'
truncate -s $(( last * 4096 )) "$W/img"
sha=$(sha256sum <"$W/img")

# as a daemon: stderr is kept for its messages
"$E4DUMP" mount "$W/img" "$MNT" 2>"$W/daemon.err" >/dev/null
check "daemon mounted" 'mountpoint -q "$MNT"'
stat "$MNT/evil" >/dev/null 2>"$W/evil.err"
check "inode 1 under a name: EIO ($(cat "$W/evil.err"))" 'grep -q "Input/output error" "$W/evil.err"'
stat "$MNT/rootagain" >/dev/null 2>"$W/root.err"
check "the root under a name: EIO" 'grep -q "Input/output error" "$W/root.err"'
stat "$MNT/unused" >/dev/null 2>"$W/unused.err"
check "an unused inode: EIO" 'grep -q "Input/output error" "$W/unused.err"'
ls "$MNT" >"$W/ls" 2>"$W/ls.err"
check "the root still lists ($(tr '\n' ' ' <"$W/ls"))" 'grep -qx hello.txt "$W/ls" && grep -qx sub "$W/ls"'
check "a healthy file reads" '[ "$(cat "$MNT/hello.txt")" = hello ]'
cat "$MNT/sub/big.bin" >"$W/big.out" 2>"$W/big.err"
check "a file past the image's end: EIO, not zeros" 'grep -q "Input/output error" "$W/big.err"'
sleep 0.2
check "the daemon reported the names ($(head -c 300 "$W/daemon.err"))" \
	'grep -q "inode 1" "$W/daemon.err" && grep -q "the root" "$W/daemon.err" && grep -q "not in use" "$W/daemon.err"'
check "the daemon reported the unreadable block" 'grep -qi "block\|read" "$W/daemon.err"'
check "no sanitizer report" '! sanitizer_report "$W/daemon.err"'
fusermount3 -u "$MNT"
sleep 0.3
check "no daemon left" '! pgrep -f -- "e4dump mount .*$MNT\$" >/dev/null'
check "the image is unchanged" '[ "$(sha256sum <"$W/img")" = "$sha" ]'
finish
