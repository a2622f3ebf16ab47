#!/bin/bash
# One escaping rule per output kind (found by a hostile review: extract
# --json wrote raw invalid UTF-8; --dfxml wrote U+FFFE/U+FFFF, the image's
# file name and the command line raw: not well-formed XML).  Names with
# invalid UTF-8, U+FFFE, U+FFFF, control bytes and a backslash, in an image
# made by mkfs.ext4 -d whose own file name has such bytes:
#   - extract --json, ls --json, verify --json: every line is UTF-8 and
#     parses (python3 json, strict); "output_path" and "path" decode (\xHH) to
#     the bytes of the file written and of the entry's raw name;
#   - extract --dfxml: xmllint --noout accepts it; every file's filename
#     decodes (\xHH) to its name in the image, its e4:output_path to the
#     file written, image_filename and command_line to the image's path
#     and the arguments;
#   - the terminal (ls) shows the names as before (\xHH).
# usage: escapes.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in mkfs.ext4 xmllint; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not found (scripts/install-deps.sh)"
done
mkdir -p "$W/tree/d"
/usr/bin/python3 - "$W/tree" <<'PY'
import os, sys
root = os.fsencode(sys.argv[1])
names = [b"bad\xff\xfe.txt", b"nc\xef\xbf\xbe", b"nc\xef\xbf\xbf", b"ctl\x01\x1b[31m\x7f",
         b"back\\slash", b"ok.txt"]
for i, n in enumerate(names):
    with open(os.path.join(root, b"d", n), "wb") as f:
        f.write(b"%d\n" % i)
PY
IMG=$W/$'img\xff-\xef\xbf\xbe-\x01.img'
mkfs.ext4 -q -F -b 4096 -N 64 -d "$W/tree" "$IMG" 8M >/dev/null || give_up "mkfs.ext4 -d failed"

decode='
import re
def undo(s):
    """bytes of a string in e4_escape form (\\xHH; everything else as is)"""
    out = bytearray()
    for part in re.split(r"(\\x[0-9a-f]{2})", s):
        out += bytes([int(part[2:], 16)]) if re.fullmatch(r"\\x[0-9a-f]{2}", part) else part.encode()
    return bytes(out)
'

expect extract-json 0 "" -- "$E4DUMP" extract --json --dfxml "$W/x.xml" "$IMG" -o "$W/x"
cp "$W/out" "$W/x.json"
check "extract --json: UTF-8, every line parses; output names the files written" \
	'/usr/bin/python3 -c "$decode"'"'"'
import json, os, sys
w = sys.argv[1]
lines = open(w + "/x.json", "rb").read().splitlines()
recs = [json.loads(l.decode("utf-8", "strict")) for l in lines]
outs = {undo(r["output_path"]) for r in recs if r.get("type") == "extracted" and r.get("file_type") == "regular"}
disk = {b"d/" + n for n in os.listdir(os.fsencode(w + "/x/d"))}
raw = {bytes.fromhex(r["raw_name_hex"]) for r in recs if r.get("type") == "extracted" and r.get("file_type") == "regular"}
want = {n for n in os.listdir(os.fsencode(w + "/tree/d"))}
sys.exit(not (outs == disk and len(outs) == 6 and raw == want))
'"'"' "$W"'
check "extract --json: paths decode to the entries' names" \
	'/usr/bin/python3 -c "$decode"'"'"'
import json, os, sys
w = sys.argv[1]
recs = [json.loads(l) for l in open(w + "/x.json", encoding="utf-8")]
got = {undo(r["path"]) for r in recs if r.get("file_type") == "regular"}
want = {b"/d/" + n for n in os.listdir(os.fsencode(w + "/tree/d"))}
sys.exit(got != want)
'"'"' "$W"'
check "--dfxml: well-formed (xmllint --noout)" 'xmllint --noout "$W/x.xml" 2>"$W/xmllint.err"'
check "--dfxml: filenames, output paths, image_filename and command_line decode to the bytes" \
	'/usr/bin/python3 -c "$decode"'"'"'
import os, sys
import xml.etree.ElementTree as ET
w, img = sys.argv[1], os.fsencode(sys.argv[2])
ns = {"d": "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML",
      "e4": "https://e4dump.invalid/dfxml/1"}
root = ET.parse(w + "/x.xml").getroot()
files = [f for f in root.iterfind("d:volume/d:fileobject", ns) if f.find("d:name_type", ns).text == "r"]
names = {undo(f.find("d:filename", ns).text) for f in files}
outs = {undo(f.find("e4:output_path", ns).text) for f in files}
given = {b"/d/" + n for n in os.listdir(os.fsencode(w + "/tree/d"))}
disk = {b"d/" + n for n in os.listdir(os.fsencode(w + "/x/d"))}
src = undo(root.find("d:source/d:image_filename", ns).text)
cmd = undo(root.find("d:creator/d:execution_environment/d:command_line", ns).text)
sys.exit(not (names == given and outs == disk and src == img and img in cmd and b"--dfxml" in cmd))
'"'"' "$W" "$IMG"'
expect ls-json 0 "" -- "$E4DUMP" ls -R --json "$IMG" /
check "ls --json: UTF-8, parses" \
	'/usr/bin/python3 -c "import json,sys; [json.loads(l.decode(\"utf-8\",\"strict\")) for l in open(sys.argv[1],\"rb\")]" "$W/out"'
expect verify-json 0 "" -- "$E4DUMP" verify --json "$IMG"
check "verify --json: UTF-8, parses" \
	'/usr/bin/python3 -c "import json,sys; [json.loads(l.decode(\"utf-8\",\"strict\")) for l in open(sys.argv[1],\"rb\")]" "$W/out"'
expect ls 0 "" -- "$E4DUMP" ls "$IMG" /d
check "ls on a terminal shows the names escaped as before" \
	'grep -qxF "bad\\xff\\xfe.txt" "$W/out" && grep -qxF "ctl\\x01\\x1b[31m\\x7f" "$W/out" && grep -qxF "back\\x5cslash" "$W/out"'
finish
