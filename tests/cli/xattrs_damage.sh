#!/bin/bash
# Extended attributes that cannot be read are never shown as none (issue 28
# review): an xattr block outside the filesystem, with a bad magic, with a
# bad checksum (metadata_csum), and an in-inode area with an entry out of
# bounds.  Images made by mke2fs and debugfs (ea_set), then damaged here;
# debugfs itself then lists none of them (its ea_list is the independent
# word that the area is unreadable, not empty).
#   stat: "xattrs: unreadable: REASON", never "xattrs: none"; exit 1, one
#     error naming the inode
#   stat/ls/extract --json: "xattrs_error" names the area and the reason,
#     "xattrs" null (or only what could be read), valid under the schema
#   extract --dfxml: e4:xattrs_error in the fileobject; the DFXML still
#     passes the DFXML schema's rules (dfxml_check.py); one error per inode
#     also with --json and --xattrs reading the same attributes
# usage: xattrs_damage.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
W=$(cd "$W" && pwd)
for t in mke2fs debugfs; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not installed"
done
SCHEMA=$top/schema/e4dump-records.schema.json
printf 'data\n' >"$W/data"
head -c 600 /dev/zero | tr '\0' 'B' >"$W/big"

# IMG FEATURES: /f with user.small in the inode and user.big in the block,
# /g with user.onlyblock in the block alone
mkimg() {
	mke2fs -q -F -t ext4 -O "$2" -b 1024 -I 256 "$1" 4M >/dev/null || give_up "mke2fs failed"
	debugfs -w -f - "$1" >/dev/null 2>&1 <<EOF2
write $W/data f
ea_set /f user.small hello
ea_set -f $W/big /f user.big
write $W/data g
ea_set -f $W/big /g user.onlyblock
EOF2
}
mkimg "$W/plain.img" ^metadata_csum
mkimg "$W/csum.img" metadata_csum
check "debugfs wrote them" \
	'debugfs -R "ea_list /g" "$W/csum.img" 2>/dev/null | grep -q "user.onlyblock (600)" &&
	 debugfs -R "ea_list /f" "$W/plain.img" 2>/dev/null | grep -q "user.small (5) = \"hello\""'
acl() { debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p'; }
gino=$(debugfs -R "ls -l /" "$W/plain.img" 2>/dev/null | awk '$NF == "g" {print $1}')
fino=$(debugfs -R "ls -l /" "$W/plain.img" 2>/dev/null | awk '$NF == "f" {print $1}')

# the damaged images
cp "$W/plain.img" "$W/magic.img"
b=$(acl "$W/magic.img" /g)
printf 'XXXX' | dd of="$W/magic.img" bs=1 seek=$((b * 1024)) conv=notrunc 2>/dev/null
cp "$W/plain.img" "$W/range.img"
debugfs -w -R "sif /g file_acl 99999999" "$W/range.img" >/dev/null 2>&1
cp "$W/csum.img" "$W/csum_bad.img"
cb=$(acl "$W/csum_bad.img" /g)
# a byte of the value: the magic and entries stay valid, the checksum not
printf 'Z' | dd of="$W/csum_bad.img" bs=1 seek=$((cb * 1024 + 1000)) conv=notrunc 2>/dev/null
# the in-inode area of /f: its first entry's e_value_size far past the inode
cp "$W/plain.img" "$W/ibody.img"
python3 - "$W/ibody.img" "$(debugfs -R "imap /f" "$W/plain.img" 2>/dev/null)" <<'EOF2'
import re, struct, sys
img, imap = sys.argv[1], sys.argv[2]
m = re.search(r"located at block (\d+), offset (0x[0-9a-f]+)", imap)
off = int(m.group(1)) * 1024 + int(m.group(2), 16)
with open(img, "r+b") as f:
    f.seek(off + 128)
    extra = struct.unpack("<H", f.read(2))[0]
    area = off + 128 + extra
    f.seek(area)
    assert struct.unpack("<I", f.read(4))[0] == 0xEA020000, "no in-inode xattrs"
    f.seek(area + 4 + 8)                  # first entry's e_value_size
    f.write(struct.pack("<I", 0x7000))
EOF2
check "debugfs lists none of the damaged ones" \
	'! debugfs -R "ea_list /g" "$W/magic.img" 2>/dev/null | grep -q onlyblock &&
	 ! debugfs -R "ea_list /g" "$W/range.img" 2>/dev/null | grep -q onlyblock &&
	 ! debugfs -R "ea_list /g" "$W/csum_bad.img" 2>/dev/null | grep -q onlyblock &&
	 ! debugfs -R "ea_list /f" "$W/ibody.img" 2>/dev/null | grep -q small'

# stat: text and JSON; one error naming the inode; exit 1
# case_ IMAGE PATH INO REASON-REGEX TAG (then $W/TAG.got: "XATTRS | XATTRS_ERROR")
case_() {
	local img=$1 p=$2 ino=$3 re=$4 tag=$5
	"$E4DUMP" stat "$img" "$p" >"$W/$tag.txt" 2>"$W/$tag.err"; rc=$?
	check "$tag: stat says unreadable ($(grep '^xattrs' "$W/$tag.txt" | head -2 | tr '\n' ' '))" \
		'[ $rc = 1 ] && grep -Eq "^xattrs: unreadable: $re" "$W/$tag.txt" && ! grep -q "^xattrs: none" "$W/$tag.txt"'
	check "$tag: one error naming the inode ($(cat "$W/$tag.err"))" \
		'[ "$(grep -c "error: " "$W/$tag.err")" = 1 ] && grep -Eq "error: $p \(inode $ino\): $re" "$W/$tag.err"'
	"$E4DUMP" stat --json "$img" "$p" >"$W/schema.$tag" 2>/dev/null; echo $? >"$W/schema.$tag.rc"
	got=$(python3 -c '
import json, sys
r = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "stat"][0]
print(json.dumps(r.get("xattrs")), "|", r.get("xattrs_error"))' "$W/schema.$tag")
	echo "$got" >"$W/$tag.got"
}
# the block broken (/g has no attribute elsewhere): xattrs null
for c in "magic.img|xattr block $b: bad xattr block magic" \
	 "range.img|xattr block 99999999: xattr block outside the filesystem" \
	 "csum_bad.img|xattr block $cb: checksum does not match (metadata_csum)"; do
	tag=${c%%.img|*} why=${c#*|}
	case_ "$W/$tag.img" /g "$gino" "${why//[()]/.}" "$tag"
	check "$tag: JSON xattrs null, xattrs_error ($(cat "$W/$tag.got"))" \
		'[ "$(cat "$W/$tag.got")" = "null | $why" ]'
done
# the in-inode area broken, the block still read: what could be read, and
# the error
case_ "$W/ibody.img" /f "$fino" "(xattrs )?in the inode: xattr value outside its area" ibody
check "ibody: JSON has the block's, and the error ($(cut -c1-60 "$W/ibody.got"))" \
	'grep -q "\"name\": \"user.big\"" "$W/ibody.got" && ! grep -q "user.small" "$W/ibody.got" && grep -q "| in the inode: " "$W/ibody.got"'
# undamaged: none is none
"$E4DUMP" stat --json "$W/plain.img" /f >"$W/schema.plain" 2>/dev/null; echo $? >"$W/schema.plain.rc"
check "an undamaged inode has no xattrs_error" '! grep -q xattrs_error "$W/schema.plain"'

# ls --json and extract --json --dfxml: the record and the fileobject;
# --xattrs reads them a third time: still one error
"$E4DUMP" ls --json "$W/magic.img" / >"$W/schema.ls" 2>"$W/ls.err"; echo $? >"$W/schema.ls.rc"
check "ls --json: exit 1, the record of /g has xattrs_error" \
	'[ "$(cat "$W/schema.ls.rc")" = 1 ] && grep "\"path\":\"/g\"" "$W/schema.ls" | grep -q "\"xattrs\":null,\"xattrs_error\":\"xattr block $b: bad xattr block magic\""'
for opt in "" --xattrs; do
	rm -rf "$W/out$opt" "$W/x$opt.xml"
	"$E4DUMP" extract $opt --json --dfxml "$W/x$opt.xml" "$W/magic.img" -o "$W/out$opt" \
		>"$W/schema.extract$opt" 2>"$W/extract$opt.err"
	echo $? >"$W/schema.extract$opt.rc"
	check "extract $opt --json --dfxml: exit 1, one error for /g" \
		'[ "$(cat "$W/schema.extract$opt.rc")" = 1 ] && [ "$(grep -c "error: /g (inode $gino): xattr block" "$W/extract$opt.err")" = 1 ]'
done
check "extract --json: the record of /g has xattrs_error" \
	'grep "\"path\":\"/g\"" "$W/schema.extract" | grep -q "\"xattrs_error\":\"xattr block $b: bad xattr block magic\""'
got=$(python3 -c '
import sys, xml.etree.ElementTree as ET
D = "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML"
E = "https://e4dump.invalid/dfxml/1"
for fo in ET.parse(sys.argv[1]).getroot().iter("{%s}fileobject" % D):
    e = fo.find("{%s}xattrs_error" % E)
    print(fo.find("{%s}filename" % D).text + "=" + (e.text if e is not None else "-"), end=" ")' "$W/x.xml")
check "extract --dfxml: e4:xattrs_error of /g alone ($got)" \
	'[ "$got" = "/f=- /g=xattr block $b: bad xattr block magic /lost+found=- " ] ||
	 [ "$(printf "%s\n" $got | sort | tr "\n" " ")" = "/f=- /g=xattr block $b: bad xattr block magic /lost+found=- " ]'
rm -rf "$W/outd" "$W/d.xml"
"$E4DUMP" extract --dfxml "$W/d.xml" "$W/magic.img" -o "$W/outd" >/dev/null 2>"$W/d.err"; rc=$?
check "extract --dfxml alone: the DFXML's reading reports it, exit 1" \
	'[ $rc = 1 ] && [ "$(grep -c "error: /g (inode $gino): xattr block" "$W/d.err")" = 1 ] && grep -q "<e4:xattrs_error>" "$W/d.xml"'
python3 "$top/tests/cli/dfxml_check.py" "$W/x.xml" --out "$W/out" >"$W/dfxml.check" 2>&1
check "the DFXML passes the DFXML schema's rules ($(tail -1 "$W/dfxml.check"))" '[ $? = 0 ]'
/usr/bin/python3 "$top/tests/cli/schema_check.py" "$SCHEMA" stat,entry,extracted \
	$(ls "$W"/schema.* | grep -v '\.rc$') >"$W/schema.check" 2>&1
rc=$?
check "every record validates against the schema ($(tail -1 "$W/schema.check"))" '[ $rc = 0 ]'
# the schema says so: [] is not allowed to stand for what was not read
check "the schema: xattrs null needs xattrs_error" \
	'python3 -c "
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
r = [r for r in map(json.loads, open(sys.argv[2])) if r[\"type\"] == \"stat\"][0]
del r[\"xattrs_error\"]
v = jsonschema.Draft202012Validator(s)
sys.exit(0 if any(True for _ in v.iter_errors(r)) else 1)" "$SCHEMA" "$W/schema.magic"'
finish
