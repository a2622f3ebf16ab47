#!/bin/bash
# POSIX ACLs (issue 28 review): ext4 stores system.posix_acl_access and
# _default in its own format (fs/ext4/acl.h: version 1, 4-byte entries for
# user::, group::, mask::, other::); Linux's getxattr gives the VFS format
# (include/uapi/linux/posix_acl_xattr.h: version 2, 8-byte entries, id
# 0xffffffff where the tag has none).  The VFS blobs are built here in
# python; debugfs's ea_set converts them to ext4's format itself
# (lib/ext2fs/ext_attr.c), and ea_get -r gives what it stored.
#   stat --json: value_hex the blob given, byte for byte; stored_hex what
#     debugfs stored; acl the text getfacl prints for it
#   stat: the ACL as text
#   a malformed stored ACL (written raw: an unknown tag; a size no count
#     of entries fits): an error naming the inode, shown as stored with
#     acl_error; not served, not restored
#   mount: getxattr gives the blob, getfacl shows it
#   extract --xattrs=all (root): getfacl on what was written shows the
#     ACLs; plain --xattrs sets none
# usage: acl.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
W=$(cd "$W" && pwd)
for t in mke2fs debugfs getfattr; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not installed"
done
SCHEMA=$top/schema/e4dump-records.schema.json
img=$W/a.img
printf 'data\n' >"$W/data"
# the VFS blobs, and ext4's form of the same ACLs as fs/ext4/acl.h lays
# them out (what debugfs must have stored)
python3 - "$W" <<'EOF2'
import struct, sys
w = sys.argv[1]
U = 0xffffffff
def vfs(ents):
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in ents)
def ext4(ents):
    return struct.pack("<I", 1) + b"".join(
        struct.pack("<HHI", t, p, i) if t in (2, 8) else struct.pack("<HH", t, p)
        for t, p, i in ents)
acls = {
    # /f, mode 0644: user::rw-,user:1000:r--,group::r--,mask::r--,other::r--
    "f": [(1, 6, U), (2, 4, 1000), (4, 4, U), (0x10, 4, U), (0x20, 4, U)],
    # /d, mode 0755: access and default
    "d": [(1, 7, U), (2, 5, 1000), (4, 5, U), (0x10, 5, U), (0x20, 5, U)],
    "dd": [(1, 7, U), (4, 5, U), (8, 7, 100), (0x10, 7, U), (0x20, 0, U)],
}
for k, e in acls.items():
    open(f"{w}/{k}.vfs", "wb").write(vfs(e))
    open(f"{w}/{k}.ext4", "wb").write(ext4(e))
# malformed, ext4's format: an unknown tag (0x40); a size no count fits
open(f"{w}/badtag.ext4", "wb").write(struct.pack("<IHHHHHH", 1, 1, 6, 0x40, 4, 0x20, 4))
open(f"{w}/badsize.ext4", "wb").write(struct.pack("<IHHH", 1, 1, 6, 4))
# a header with no entry: ext4_acl_from_disk gives NULL, Linux has no ACL
open(f"{w}/none.ext4", "wb").write(struct.pack("<I", 1))
EOF2
mke2fs -q -F -t ext4 -b 1024 -I 256 "$img" 4M >/dev/null || give_up "mke2fs failed"
debugfs -w -f - "$img" >"$W/debugfs.log" 2>&1 <<EOF2
write $W/data f
mkdir d
ea_set -f $W/f.vfs /f system.posix_acl_access
ea_set -f $W/d.vfs /d system.posix_acl_access
ea_set -f $W/dd.vfs /d system.posix_acl_default
write $W/data badtag
ea_set -r -f $W/badtag.ext4 /badtag system.posix_acl_access
write $W/data badsize
ea_set -r -f $W/badsize.ext4 /badsize system.posix_acl_access
write $W/data none
ea_set -r -f $W/none.ext4 /none system.posix_acl_access
EOF2
hexof() { od -An -tx1 -v "$1" | tr -d ' \n'; }
rawget() { debugfs -R "ea_get -r -f $W/raw $1 $2" "$img" >/dev/null 2>&1 && hexof "$W/raw"; }
check "debugfs stored ext4's form (fs/ext4/acl.h)" \
	'[ "$(rawget /f system.posix_acl_access)" = "$(hexof "$W/f.ext4")" ] &&
	 [ "$(rawget /d system.posix_acl_default)" = "$(hexof "$W/dd.ext4")" ] &&
	 [ "$(rawget /badtag system.posix_acl_access)" = "$(hexof "$W/badtag.ext4")" ]'

# stat --json: the VFS form, byte for byte what was given
j() {
	"$E4DUMP" stat --json "$img" "$1" >"$W/schema.$2" 2>"$W/$2.err"
	echo $? >"$W/schema.$2.rc"
	python3 -c '
import json, sys
r = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "stat"][0]
for x in r["xattrs"]:
    if x["name"] == sys.argv[2]:
        print(x.get("value_hex"), x.get("stored_hex"), x.get("acl"), x.get("acl_error"))' "$W/schema.$2" "$3"
}
got=$(j /f f system.posix_acl_access)
check "stat --json /f: value_hex the VFS blob, stored_hex ext4's, acl its text ($got)" \
	'[ "$got" = "$(hexof "$W/f.vfs") $(hexof "$W/f.ext4") user::rw-,user:1000:r--,group::r--,mask::r--,other::r-- None" ]'
got=$(j /d d system.posix_acl_default)
check "stat --json /d: the default ACL ($got)" \
	'[ "$got" = "$(hexof "$W/dd.vfs") $(hexof "$W/dd.ext4") user::rwx,group::r-x,group:100:rwx,mask::rwx,other::--- None" ]'
"$E4DUMP" stat "$img" /f >"$W/f.txt" 2>&1
check "stat: the ACL as text" \
	'grep -qx "  system.posix_acl_access (inode, ACL, 28 bytes stored): user::rw-,user:1000:r--,group::r--,mask::r--,other::r--" "$W/f.txt"'
for b in badtag badsize; do
	got=$(j /$b $b system.posix_acl_access)
	rc=$(cat "$W/schema.$b.rc")
	check "$b: as stored, acl_error, an error naming the inode, exit 1 ($got; $(cat "$W/$b.err"))" \
		'[ "$rc" = 1 ] && [ "${got%% *}" = "$(hexof "$W/$b.ext4")" ] && [ "$(echo "$got" | cut -d" " -f2-3)" = "None None" ] &&
		 [ "$(echo "$got" | cut -d" " -f4-)" != None ] &&
		 [ "$(grep -c "error: /$b (inode [0-9]*): xattr system.posix_acl_access: not an ACL Linux reads" "$W/$b.err")" = 1 ]'
done
# an ACL of no entries: Linux reads none; a note, not an error, exit 0
got=$(j /none none system.posix_acl_access)
rc=$(cat "$W/schema.none.rc")
check "none: as stored, acl_error, a note (no error), exit 0 ($got; $(cat "$W/none.err"))" \
	'[ "$rc" = 0 ] && [ "${got%% *}" = 01000000 ] && [ "$(echo "$got" | cut -d" " -f2-3)" = "None None" ] &&
	 echo "$got" | grep -q "Linux reads it as no ACL" && ! grep -q "error:" "$W/none.err" &&
	 grep -q "/none (inode [0-9]*): xattr system.posix_acl_access: no entries" "$W/none.err" &&
	 grep -q "\"acl_none\":true" "$W/schema.none"'
"$E4DUMP" stat "$img" /badtag >"$W/badtag.txt" 2>/dev/null
check "stat: a malformed ACL marked as stored" \
	'grep -q "^  system.posix_acl_access (inode, 16 bytes): .*\[as stored: not an ACL Linux reads: ACL entry of an unknown tag\]$" "$W/badtag.txt"'
/usr/bin/python3 "$top/tests/cli/schema_check.py" "$SCHEMA" stat \
	$(ls "$W"/schema.* | grep -v '\.rc$') >"$W/schema.check" 2>&1
check "the records validate against the schema ($(tail -1 "$W/schema.check"))" '[ $? = 0 ]'

# extract: --xattrs sets no ACL; --xattrs=all (root) sets them, as getfacl
# then shows them and getxattr gives them
acltext() { getfacl -c -n --absolute-names "$1" 2>/dev/null | grep -v '^$' | tr '\n' ','; }
if [ "$(id -u)" = 0 ] && command -v getfacl >/dev/null &&
   touch "$W/acltest" && setfacl -m u:1000:r "$W/acltest" 2>/dev/null; then
	"$E4DUMP" extract --xattrs "$img" -o "$W/u" >/dev/null 2>&1
	check "extract --xattrs: no ACL set" \
		'[ -z "$(getfattr --absolute-names -m "^system\.posix_acl" -d "$W/u/f" 2>/dev/null)" ]'
	"$E4DUMP" extract --xattrs=all "$img" -o "$W/all" >/dev/null 2>"$W/all.err"; rc=$?
	check "extract --xattrs=all: getfacl shows the ACLs ($(acltext "$W/all/d"))" \
		'[ "$(acltext "$W/all/f")" = "user::rw-,user:1000:r--,group::r--,mask::r--,other::r--," ] &&
		 [ "$(acltext "$W/all/d")" = "user::rwx,user:1000:r-x,group::r-x,mask::r-x,other::r-x,default:user::rwx,default:group::r-x,default:group:100:rwx,default:mask::rwx,default:other::---," ]'
	check "extract --xattrs=all: getxattr gives the blobs" \
		'[ "$(getfattr --absolute-names --only-values -n system.posix_acl_access "$W/all/f" | od -An -tx1 -v | tr -d " \n")" = "$(hexof "$W/f.vfs")" ] &&
		 [ "$(getfattr --absolute-names --only-values -n system.posix_acl_default "$W/all/d" | od -An -tx1 -v | tr -d " \n")" = "$(hexof "$W/dd.vfs")" ] &&
		 [ "$(stat -c %a "$W/all/f")" = 644 ]'
	check "extract --xattrs=all: the malformed ones not restored, each named, exit 1 ($(grep -c "error: " "$W/all.err") errors)" \
		'[ $rc = 1 ] && grep -q "error: /badtag (inode [0-9]*): --xattrs: system.posix_acl_access not restored: " "$W/all.err" &&
		 grep -q "error: /badsize (inode [0-9]*): --xattrs: system.posix_acl_access not restored: " "$W/all.err" &&
		 [ -z "$(getfattr --absolute-names -m "^system\.posix_acl" -d "$W/all/badtag" 2>/dev/null)" ]'
	check "extract --xattrs=all: an ACL Linux reads as none is not set, and not an error" \
		'! grep -q "error: /none " "$W/all.err" && [ -z "$(getfattr --absolute-names -m "^system\.posix_acl" -d "$W/all/none" 2>/dev/null)" ]'
else
	echo "SKIPPED: extract --xattrs=all (needs root, getfacl and ACLs on $W)"
fi

# mount: the VFS form through getxattr, getfacl reads it
if [ -w /dev/fuse ] && command -v fusermount3 >/dev/null; then
	MNT=$W/mnt
	mkdir -p "$MNT"
	trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
	if "$E4DUMP" mount "$img" "$MNT" 2>"$W/mount.err"; then
		got=$(getfattr --absolute-names --only-values -n system.posix_acl_access "$MNT/f" 2>&1 | od -An -tx1 -v | tr -d ' \n')
		check "mount: getxattr gives the VFS blob ($got)" '[ "$got" = "$(hexof "$W/f.vfs")" ]'
		got=$(getfattr --absolute-names --only-values -n system.posix_acl_default "$MNT/d" 2>&1 | od -An -tx1 -v | tr -d ' \n')
		check "mount: the default ACL ($got)" '[ "$got" = "$(hexof "$W/dd.vfs")" ]'
		if command -v getfacl >/dev/null; then
			check "mount: getfacl ($(acltext "$MNT/f"))" \
				'[ "$(acltext "$MNT/f")" = "user::rw-,user:1000:r--,group::r--,mask::r--,other::r--," ]'
		fi
		check "mount: a malformed ACL gives an error, not bytes" \
			'! getfattr --absolute-names --only-values -n system.posix_acl_access "$MNT/badtag" >/dev/null 2>&1'
		check "mount: an ACL Linux reads as none gives ENODATA, as the kernel's getxattr" \
			'getfattr --absolute-names --only-values -n system.posix_acl_access "$MNT/none" 2>&1 | grep -q "No such attribute"'
		fusermount3 -u "$MNT"
	else
		bad "mount failed: $(head -3 "$W/mount.err")"
	fi
fi
finish
