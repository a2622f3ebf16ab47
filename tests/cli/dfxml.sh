#!/bin/bash
# extract --dfxml on the kernel-written sample, checked by
# tests/cli/dfxml_check.py against the rules of the DFXML schema
# (dfxml_schema's dfxml.xsd, version 1.1.1, which e4dump follows, and
# 2.0.0-beta.0 where it differs), written down there, and against facts
# from elsewhere: sha256sum of the files written, the kernel's manifest
# (paths in the image, types, modes, mtimes, sizes, symlink targets,
# content hashes, policies) and debugfs (each file's blocks, each inode's
# encryption context):
#  - the whole image with the key, with one and with three threads;
#  - the rules reject each of a set of changed documents (they can fail);
#  - one file: its path in the image, not its path in DIR;
#  - the sample in a GPT partition at 1 MiB (sfdisk): the volume's offset
#    is the partition's, each byte run's img_offset points at the file's
#    bytes in the disk image;
#  - without the key, --keep-locked: every file, directory and symlink
#    kept has its fileobject, its policy and e4:state locked.
# usage: dfxml.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
dc() { /usr/bin/python3 "$top/tests/cli/dfxml_check.py" "$@"; }
# dfxml_check.py ARGS: counted, its failures shown
checked() {
	local name=$1
	shift
	dc "$@" >"$W/check" 2>&1 && ok || bad "$name: $(grep -m8 FAIL "$W/check"; tail -1 "$W/check")"
	echo "$name: $(tail -1 "$W/check")"
}

for t in 1 3; do
	expect "extract --dfxml --threads $t" 0 '' -- \
		"$E4DUMP" extract --threads $t --dfxml "$W/x$t.xml" --manifest "$W/x$t.tsv" \
		--key-file "$K" "$W/s.img" -o "$W/x$t"
	checked "--threads $t: the schema's rules, DIR, the manifest, the kernel's manifest, debugfs" \
		"$W/x$t.xml" --tsv "$W/x$t.tsv" --out "$W/x$t" --all --image "$W/s.img" \
		--guest "$S/sample.manifest"
done
check "a fileobject for each of the kernel's 16 entries and lost+found" \
	'[ "$(grep -c "<fileobject>" "$W/x1.xml")" = 17 ]'
checked "the rules reject changed documents" --mutants "$W/x1.xml"

expect "extract --dfxml of one file" 0 '' -- \
	"$E4DUMP" extract --dfxml "$W/one.xml" --key-file "$K" "$W/s.img" /secret/hello.txt -o "$W/one"
checked "one file: the schema's rules, DIR" "$W/one.xml" --out "$W/one" --all --image "$W/s.img"
check "one file: filename is its path in the image, e4:output_path in DIR" \
	'grep -q "<filename>/secret/hello.txt</filename>" "$W/one.xml" &&
	 grep -q "<e4:output_path>hello.txt</e4:output_path>" "$W/one.xml"'

# the sample in the first partition of a GPT disk, at sector 2048
truncate -s $((4 + 2))M "$W/disk.img"
echo 'start=2048, size=8192, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4' |
	sfdisk -q --label gpt "$W/disk.img" >/dev/null 2>&1 || give_up "sfdisk"
start=$(sfdisk -J "$W/disk.img" | /usr/bin/python3 -c 'import json, sys
print(json.load(sys.stdin)["partitiontable"]["partitions"][0]["start"] * 512)')
dd if="$W/s.img" of="$W/disk.img" bs=1M seek=1 conv=notrunc status=none
expect "extract --dfxml of a partition" 0 '' -- \
	"$E4DUMP" extract --dfxml "$W/p.xml" --key-file "$K" "$W/disk.img" -o "$W/p"
checked "partition: the schema's rules, DIR, debugfs on the filesystem" \
	"$W/p.xml" --out "$W/p" --all --image "$W/s.img" --guest "$S/sample.manifest"
check "partition: volume offset $start (sfdisk), image_size $(stat -c %s "$W/disk.img")" \
	'grep -q "<volume offset=\"$start\">" "$W/p.xml" &&
	 grep -q "e4:image_size=\"$(stat -c %s "$W/disk.img")\"" "$W/p.xml"'
check "partition: each plaintext file's byte runs are its bytes in the disk image" \
	'/usr/bin/python3 - "$W/p.xml" "$W/disk.img" "$W/p" <<'"'"'PY'"'"'
import sys
import xml.etree.ElementTree as ET
D = "{http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML}"
E4 = "{https://e4dump.invalid/dfxml/1}"
doc, disk, out = sys.argv[1:]
img = open(disk, "rb").read()
n = 0
for fo in ET.parse(doc).getroot().iter(D + "fileobject"):
    if fo.find(D + "name_type").text != "r" or fo.find(E4 + "encryption") is not None:
        continue
    data = open(out + "/" + fo.find(E4 + "output_path").text, "rb").read()
    for r in fo.iter(D + "byte_run"):
        o, f, ln = (int(r.get(k)) for k in ("img_offset", "file_offset", "len"))
        assert img[o:o + ln] == data[f:f + ln], (fo.find(D + "filename").text, r.attrib)
        n += 1
assert n >= 3, n
PY'

# no key: what --keep-locked keeps of /secret, as the kernel shows it
expect "extract --keep-locked --dfxml without the key" 1 '' -- \
	"$E4DUMP" extract --keep-locked --dfxml "$W/k.xml" --manifest "$W/k.tsv" "$W/s.img" -o "$W/k"
checked "--keep-locked: the schema's rules, DIR, the manifest, debugfs" \
	"$W/k.xml" --tsv "$W/k.tsv" --out "$W/k" --all --image "$W/s.img"
check "--keep-locked: every entry below /secret is locked under the kernel's policy" \
	'/usr/bin/python3 - "$W/k.xml" "$S/sample.manifest" <<'"'"'PY'"'"'
import sys
import xml.etree.ElementTree as ET
D = "{http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML}"
E4 = "{https://e4dump.invalid/dfxml/1}"
doc, man = sys.argv[1:]
tree = [l.split() for l in open(man) if l.startswith("tree secret ")][0]
n = 0
for fo in ET.parse(doc).getroot().iter(D + "fileobject"):
    if not fo.find(D + "filename").text.startswith("/secret/"):
        continue
    enc = fo.find(E4 + "encryption")
    assert fo.find(E4 + "name_state").text == "no-key", fo.find(D + "filename").text
    assert enc.find(E4 + "descriptor").text == tree[3], tree
    assert enc.find(E4 + "state").text == "locked"
    assert enc.find(E4 + "key") is None
    n += 1
assert n == 7, n  # 2 directories, 3 files, 2 symlinks below /secret
PY'
finish
