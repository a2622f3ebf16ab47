#!/bin/bash
# Extended attributes on an image made on the host (mkfs.ext4, then debugfs
# ea_set, which writes them without the kernel): security.* (which the vm
# test's kernel cannot write), trusted.*, binary and text values, the
# xattr block, a symlink with a user.* attribute (Linux refuses those) and
# an EA inode.  The truth is debugfs's ea_get.
#   stat / stat --json / ls --json: every attribute, escaped, "value" for text
#   damage: a broken xattr block is reported and the in-inode ones still
#     shown; an EA inode without its flag is an error of that attribute
#   extract --xattrs: user.* restored; each failure (a symlink; an output
#     filesystem without xattrs, ramfs) names the entry and the attribute,
#     exit 1, the rest done; --xattrs=all: security.* and trusted.* too,
#     refused (exit 2) without root; a read-only file takes them
#   mount: security.* served, trusted.* to root
# usage: xattrs.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
W=$(cd "$W" && pwd)
for t in mkfs.ext4 debugfs getfattr setfattr; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not installed"
done
img=$W/x.img
printf 'data\n' >"$W/data"
head -c 900 /dev/zero | tr '\0' 'B' >"$W/big"
printf '\001\002' >"$W/bin"
mkfs.ext4 -q -F -b 1024 -I 256 -O ea_inode "$img" 4M >/dev/null || give_up "mkfs.ext4 failed"
debugfs -w -f - "$img" >"$W/debugfs.log" 2>&1 <<EOF2
write $W/data f
ea_set /f user.small hello
ea_set /f security.selinux system_u:object_r:x
ea_set -f $W/bin /f trusted.t
ea_set -f $W/big /f user.big
mkdir d
ea_set /d user.d dirval
write $W/data ro
sif /ro mode 0100444
ea_set /ro user.r readonly
symlink l /f
ea_set l user.onlink v
write $W/data g
EOF2
# g: a value in an EA inode, which then loses its EA_INODE flag
head -c 1024 /dev/zero | tr '\0' 'E' >"$W/huge"
debugfs -w -R "ea_set -f $W/huge /g user.huge" "$img" >>"$W/debugfs.log" 2>&1
cp "$img" "$W/ea.img"
eaino=
for i in $(seq 12 24); do
	debugfs -R "stat <$i>" "$img" 2>/dev/null | grep -Eq "Flags: 0x2[0-9a-f]{5}$" && eaino=$i
done
debugfs -R "ea_list /f" "$img" 2>/dev/null >"$W/ea_list"
check "debugfs wrote the attributes" 'grep -q "trusted.t (2)" "$W/ea_list" && grep -q "user.big (900)" "$W/ea_list"'
getval() { debugfs -R "ea_get -f $W/v.$2 $1 $2" "$img" >/dev/null 2>&1; od -An -tx1 -v "$W/v.$2" | tr -d ' \n'; }

# stat --json: every attribute in the order debugfs lists them (the
# inode's, then the block's), the values debugfs gives
"$E4DUMP" stat --json "$img" /f >"$W/f.json" 2>"$W/f.err"
names=$(sed -n 's/^  \([a-z.]*\) (.*/\1/p' "$W/ea_list")
want=$(for n in $names; do
	printf '%s=%s ' $n "$(getval /f $n)"; done)
got=$(python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][0]
print(" ".join(x["name"] + "=" + x["value_hex"] for x in r["xattrs"]), end=" ")' "$W/f.json")
check "stat --json: the attributes debugfs wrote ($got)" '[ "$got" = "$want" ]'
got=$(python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][0]
print(",".join(x["name"] + ":" + str(x.get("value")) for x in r["xattrs"]))' "$W/f.json")
check "stat --json: value for text only ($got)" \
	'[ "$got" = "user.small:hello,security.selinux:system_u:object_r:x,user.big:$(cat "$W/big"),trusted.t:None" ]'
"$E4DUMP" ls --json "$img" / >"$W/ls.json" 2>/dev/null
got=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("path") == "/d":
        print(r["xattrs"])' "$W/ls.json")
check "ls --json: a directory's ($got)" \
	'[ "$got" = "[{'"'"'name'"'"': '"'"'user.d'"'"', '"'"'value_hex'"'"': '"'"'64697276616c'"'"', '"'"'value'"'"': '"'"'dirval'"'"'}]" ]'
"$E4DUMP" stat "$img" /f >"$W/f.txt" 2>&1
check "stat: one line each, escaped" \
	'grep -qx "  user.small (inode, 5 bytes): hello" "$W/f.txt" && grep -qx "  trusted.t (block [0-9]*, 2 bytes): \\\\x01\\\\x02" "$W/f.txt"'

# inline data: system.data, which Linux does not list, apart
mkfs.ext4 -q -F -O inline_data -b 1024 -I 256 "$W/inline.img" 4M >/dev/null
debugfs -w -R "write $W/data s" "$W/inline.img" >/dev/null 2>&1
if debugfs -R "ea_list /s" "$W/inline.img" 2>/dev/null | grep -q "system.data"; then
	"$E4DUMP" stat "$W/inline.img" /s >"$W/s.txt" 2>&1
	"$E4DUMP" stat --json "$W/inline.img" /s >"$W/s.json" 2>&1
	check "system.data: shown apart in stat, not in the JSON xattrs" \
		'grep -qx "xattrs: none" "$W/s.txt" && grep -A1 -x "xattrs Linux does not list:" "$W/s.txt" | grep -q "^  system.data (inode, 0 bytes): " && grep -q "\"xattrs\":\[\]" "$W/s.json"'
fi

# damage: the xattr block of /f with a bad magic; the EA inode unflagged
blk=$(debugfs -R "stat /f" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
cp "$img" "$W/bad.img"
printf 'XXXX' | dd of="$W/bad.img" bs=1 seek=$((blk * 1024)) conv=notrunc 2>/dev/null
"$E4DUMP" stat "$W/bad.img" /f >"$W/bad.txt" 2>"$W/bad.err"; rc=$?
check "a broken xattr block: reported, exit 1, the inode's still shown" \
	'[ $rc = 1 ] && grep -q "xattr block $blk: bad xattr block magic" "$W/bad.err" && grep -q "^  user.small (inode" "$W/bad.txt" && ! grep -q "user.big" "$W/bad.txt"'
if [ -n "$eaino" ]; then
	debugfs -w -R "sif <$eaino> flags 0x80000" "$W/ea.img" >/dev/null 2>&1
	"$E4DUMP" stat --json "$W/ea.img" /g >"$W/g.json" 2>"$W/g.err"
	check "an EA inode without EA_INODE: an error of that attribute" \
		'grep -q "\"name\":\"user.huge\",\"error\":\"its EA inode is not flagged EA_INODE\"" "$W/g.json" && grep -q "xattr user.huge: value in EA inode" "$W/g.err"'
	# the three forms of an attribute ("value" text, hex only, "error")
	# are the schema's: the records of stat and ls validate against it
	sj() {
		"$E4DUMP" "$@" --json >"$W/schema.$1.$#.${#2}" 2>/dev/null
		echo $? >"$W/schema.$1.$#.${#2}.rc"
	}
	sj stat "$img" /f
	sj ls "$img" /
	sj stat "$W/ea.img" /g
	sj timeline "$img"
	/usr/bin/python3 "$top/tests/cli/schema_check.py" "$top/schema/e4dump-records.schema.json" \
		entry,stat $(ls "$W"/schema.* | grep -v '\.rc$') >"$W/schema.check" 2>&1
	rc=$?
	check "xattrs in the records validate against the schema ($(tail -1 "$W/schema.check"))" \
		'[ $rc = 0 ]'
	"$E4DUMP" stat "$img" /g >"$W/g.txt" 2>&1
	check "the EA inode's value, read" \
		'grep -q "^  user.huge (inode, value in EA inode $eaino, 1024 bytes): EEEE" "$W/g.txt"'
else
	bad "debugfs made no EA inode"
fi

# extract --xattrs
"$E4DUMP" extract --xattrs "$img" -o "$W/ext" >/dev/null 2>"$W/ext.err"; rc=$?
check "extract --xattrs: exit 1, the symlink's user.* named ($(grep error "$W/ext.err"))" \
	'[ $rc = 1 ] && [ "$(grep -c "error: " "$W/ext.err")" = 1 ] && grep -q "error: /l (inode [0-9]*): --xattrs: user.onlink not restored: Linux allows user.\* attributes on files and directories only" "$W/ext.err"'
check "extract --xattrs: user.* restored, nothing else" \
	'[ "$(getfattr --absolute-names --only-values -n user.small "$W/ext/f")" = hello ] &&
	 [ "$(getfattr --absolute-names --only-values -n user.big "$W/ext/f")" = "$(cat "$W/big")" ] &&
	 [ "$(getfattr --absolute-names --only-values -n user.d "$W/ext/d")" = dirval ] &&
	 [ "$(getfattr --absolute-names --only-values -n user.r "$W/ext/ro")" = readonly ] &&
	 [ "$(stat -c %a "$W/ext/ro")" = 444 ] &&
	 [ -z "$(getfattr --absolute-names -d -m "^(security|trusted)\." "$W/ext/f" 2>/dev/null)" ]'
if [ "$(id -u)" = 0 ]; then
	"$E4DUMP" extract --xattrs=all "$img" -o "$W/all" >/dev/null 2>&1
	check "extract --xattrs=all (root): security.* and trusted.* too" \
		'[ "$(getfattr --absolute-names --only-values -n security.selinux "$W/all/f")" = system_u:object_r:x ] &&
		 [ "$(getfattr --absolute-names --only-values -n trusted.t "$W/all/f" | od -An -tx1 | tr -d " \n")" = 0102 ]'
	if command -v setpriv >/dev/null; then
		mkdir -p "$W/nobody" && chown 65534 "$W/nobody"
		expect "extract --xattrs=all without root: refused" 2 "run it as root" -- \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$E4DUMP" extract --xattrs=all "$img" -o "$W/nobody/o"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$E4DUMP" extract --xattrs "$img" -o "$W/nobody/u" >/dev/null 2>&1
		check "extract --xattrs as a user: a read-only file takes its user.* and stays 0444" \
			'[ "$(getfattr --absolute-names --only-values -n user.r "$W/nobody/u/ro")" = readonly ] && [ "$(stat -c %a "$W/nobody/u/ro")" = 444 ]'
	fi
	# an output filesystem without extended attributes: ramfs
	if unshare -m true 2>/dev/null; then
		unshare -m sh -c "mkdir -p '$W/ram' && mount -t ramfs none '$W/ram' && '$E4DUMP' extract --xattrs '$img' -o '$W/ram/o' >/dev/null 2>'$W/ram.err'; echo \$? >'$W/ram.rc'; cat '$W/ram/o/f' >'$W/ram.f'"
		check "extract --xattrs to ramfs: each failure named, exit 1, the files written" \
			'[ "$(cat "$W/ram.rc")" = 1 ] && grep -q "error: /f (inode [0-9]*): --xattrs: user.small not restored: the output filesystem does not support it" "$W/ram.err" && grep -q "error: /d (inode [0-9]*): --xattrs: user.d not restored" "$W/ram.err" && cmp -s "$W/ram.f" "$W/data"'
	fi
fi

# mount: security.* served; trusted.* to root only
if [ -w /dev/fuse ] && command -v fusermount3 >/dev/null; then
	MNT=$W/mnt
	mkdir -p "$MNT"
	trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
	if "$E4DUMP" mount -o allow_other "$img" "$MNT" 2>"$W/mount.err" ||
	   "$E4DUMP" mount "$img" "$MNT" 2>"$W/mount.err"; then
		# getfattr -d sorts by name
		got=$(getfattr --absolute-names -d -m - -e hex "$MNT/f" 2>/dev/null | sed 1d | tr '\n' ' ')
		want=$(for n in $(printf '%s\n' $names | sort); do printf '%s=0x%s ' $n "$(getval /f $n)"; done)
		check "mount: listxattr and getxattr as debugfs reads them" '[ "$got" = "$want " ]'
		if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && grep -q allow_other /proc/mounts; then
			# listxattr itself: the kernel checks only getxattr of trusted.*
			got=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c \
				'import os, sys; print(" ".join(sorted(os.listxattr(sys.argv[1]))))' "$MNT/f" 2>&1)
			check "mount: listxattr for another user: no trusted.* ($got)" \
				'[ "$got" = "security.selinux user.big user.small" ]'
		fi
		fusermount3 -u "$MNT"
	else
		bad "mount failed: $(head -3 "$W/mount.err")"
	fi
fi
finish
