#!/bin/bash
# Extended attributes written by Linux 6.1 (vm/scenarios/xattrs.scn: user.*
# on an encrypted file and directory and on plain files, in the inode, the
# xattr block and an EA inode; many small ones; binary values; trusted.*;
# an image's own user.e4dump.context).  The truth is what the guest's
# listxattr/getxattr returned (the manifest's xattr records); debugfs
# (ea_list, ea_get) is the independent check on the host.
#   stat, ls and extract --json: "xattrs" in listxattr's order, "value" for text
#   stat (text): one line each, escaped; the encryption context apart
#   mount: getfattr/listxattr as the guest saw them, the image's own
#     user.e4dump.context winning over the virtual one, which the other
#     encrypted entries still have
#   extract --xattrs: user.* on the output files (also kept locked);
#     --xattrs=all (root): all
# usage: xattrs.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
W=$(cd "$W" && pwd)
PY=/usr/bin/python3
XC=$top/tests/vm/xattrs_check.py
for t in debugfs getfattr; do
	command -v $t >/dev/null || give_up "SKIPPED: $t is missing (scripts/install-deps.sh)"
done
img=$W/x.img
make_image "$top/vm/scenarios/xattrs.scn" "$img" "$W/make.log"
man=$img.manifest
K=$(ls "$W"/keys/*.key)
must_run "the guest's truth" "$W/truth" -- $PY "$XC" truth "$man"
check "the truth has the EA-inode value (user.huge, 20000 bytes)" \
	'grep -qx "plain/hello.txt user.huge 20000" "$W/truth"'

# stat --json and ls --json against the truth, and debugfs against both
$PY "$XC" json "$E4DUMP" "$img" "$K" "$man" >"$W/json" 2>&1; rc=$?
check "stat/ls/extract --json xattrs are the kernel's and debugfs's: $(tail -1 "$W/json")" '[ $rc = 0 ]'

# stat's text: escaped values, where each is stored, the context apart
"$E4DUMP" stat --key-file "$K" "$img" /enc/hello.txt >"$W/stat.enc" 2>&1
check "stat: a text value as it is" \
	'grep -Eq "^  user\.note \(block [0-9]+, 20 bytes\): in an encrypted file$" "$W/stat.enc"'
check "stat: a binary value escaped" \
	'grep -Fq "  user.bin (" "$W/stat.enc" && grep -F "  user.bin (" "$W/stat.enc" | grep -Fq "bytes): \\x00\\x01\\xff\\x0a\\x1b[31m"'
check "stat: the encryption context apart, not among the xattrs" \
	'grep -Eq "^encryption context: 40 bytes \(inode;" "$W/stat.enc" && ! grep -q "^  c (" "$W/stat.enc"'
"$E4DUMP" stat "$img" /plain/hello.txt >"$W/stat.plain" 2>&1
check "stat: the value in an EA inode is read" \
	'grep -Eq "^  user\.huge \(inode, value in EA inode [0-9]+, 20000 bytes\): " "$W/stat.plain"'
"$E4DUMP" stat "$img" /plain/sub >"$W/stat.none" 2>&1
check "stat: none" 'grep -qx "xattrs: none" "$W/stat.none"'

# extract --xattrs: user.* only; --xattrs=all as root: trusted.* too.  The
# output directory's filesystem may not hold user.huge (20000 bytes: ext4
# without ea_inode gives ENOSPC): then that one attribute is an error naming
# the entry, the exit status 1, and everything else restored.
touch "$W/probe"
if setfattr -n user.probe -v "0s$(head -c 20000 /dev/zero | base64 -w0)" "$W/probe" 2>/dev/null; then
	huge=ok want=0 skip=
else
	huge=no want=1 skip=--except=plain/hello.txt:user.huge
fi
"$E4DUMP" extract --xattrs --key-file "$K" "$img" -o "$W/out-user" >"$W/ex-user" 2>&1; rc=$?
check "extract --xattrs: exit $want (20000-byte values fit here: $huge; $(tail -1 "$W/ex-user"))" '[ $rc = $want ]'
[ $huge = ok ] || check "extract --xattrs: the one failure names the entry and the attribute" \
	'[ "$(grep -c "error: " "$W/ex-user")" = 1 ] && grep -q "^e4dump: error: /plain/hello.txt (inode [0-9]*): --xattrs: user.huge not restored: " "$W/ex-user"'
$PY "$XC" tree "$W/out-user" "$man" --no-trusted $skip >"$W/tree-user" 2>&1; rc=$?
check "extract --xattrs: user.* restored as the kernel listed them ($(tail -1 "$W/tree-user"))" '[ $rc = 0 ]'
if [ "$(id -u)" = 0 ]; then
	"$E4DUMP" extract --xattrs=all --key-file "$K" "$img" -o "$W/out-all" >"$W/ex-all" 2>&1; rc=$?
	check "extract --xattrs=all: exit $want ($(tail -1 "$W/ex-all"))" '[ $rc = $want ]'
	$PY "$XC" tree "$W/out-all" "$man" $skip >"$W/tree-all" 2>&1; rc=$?
	check "extract --xattrs=all: trusted.* too ($(tail -1 "$W/tree-all"))" '[ $rc = 0 ]'
fi
# without the key, --keep-locked: the ciphertext under its no-key name
# takes the attributes (fscrypt encrypts no attribute)
"$E4DUMP" extract --xattrs --keep-locked "$img" -o "$W/out-locked" >/dev/null 2>&1
getfattr --absolute-names -R -d -m - "$W/out-locked/enc" >"$W/locked.attrs" 2>/dev/null
check "extract --xattrs --keep-locked: the locked file's and directory's attributes" \
	'[ "$(grep -c "^user.note=\"in an encrypted file\"$" "$W/locked.attrs")" = 1 ] && [ "$(grep -c "^user.dir=\"directory\"$" "$W/locked.attrs")" = 1 ]'
"$E4DUMP" extract --key-file "$K" "$img" -o "$W/out-none" >/dev/null 2>&1
check "extract without --xattrs: none restored" \
	'[ -z "$(getfattr --absolute-names -d -m - "$W/out-none/enc/hello.txt" "$W/out-none/plain/hello.txt" 2>/dev/null)" ]'

# the mount: as the kernel's mount shows them to root; the image's own
# user.e4dump.context wins, the virtual one stays on the other entries
if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
	MNT=$W/mnt
	mkdir -p "$MNT"
	trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
	if "$E4DUMP" mount --key-file "$K" "$img" "$MNT" 2>"$W/mount.err"; then
		$PY "$XC" tree "$MNT" "$man" --ordered --virtual >"$W/tree-mnt" 2>&1; rc=$?
		check "mount: listxattr/getxattr are the kernel's ($(tail -1 "$W/tree-mnt"))" '[ $rc = 0 ]'
		v=$(getfattr --absolute-names --only-values -n user.e4dump.context "$MNT/enc/hello.txt" 2>&1)
		check "mount: the image's own user.e4dump.context wins ($v)" '[ "$v" = "the image'"'"'s own" ]'
		n=$(getfattr --absolute-names -d -m - "$MNT/enc/hello.txt" 2>/dev/null | grep -c "^user.e4dump.context=")
		check "mount: listed once ($n)" '[ "$n" = 1 ]'
		setfattr -n user.x -v y "$MNT/plain/hello.txt" 2>"$W/set.err"
		check "mount: setfattr refused ($(cat "$W/set.err"))" '[ -s "$W/set.err" ]'
		fusermount3 -u "$MNT"
	else
		bad "mount failed: $(head -3 "$W/mount.err")"
	fi
fi
finish
