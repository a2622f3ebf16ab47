#!/bin/bash
# The hashes of a file only partly extracted say so (issue 28 review): an
# ext4 image (mke2fs -d) cut short inside one file's blocks, after the
# other's; extract --json --manifest --dfxml.
#   JSON: the partial file's "hashes" has "partial": true, the complete
#     one's none; the schema validates them
#   manifest: hashes_of "plaintext-partial" for the partial file only
#   DFXML: the partial file has no hashdigest (a reader takes that for the
#     file's hash) but e4:partial_hashdigest, the SHA-256 sha256sum gives
#     of what was written; the complete file's hashdigest is sha256sum's of
#     the source file; the DFXML passes dfxml_check.py (the DFXML schema's
#     rules, the manifest) and writers_check.py (the JSON records)
# Which blocks each file has: debugfs's blocks; the truth of the hashes:
# sha256sum.
# usage: partial_hash.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/evidence_common.sh"
evidence_setup "$1" "$2" debugfs sha256sum
last() { debugfs -R "blocks $1" "$W/vol.raw" 2>/dev/null | tr ' ' '\n' | grep . | sort -n | tail -1; }
hl=$(last /h) bl=$(last /big)
# cut after the last block of the file that ends first
if [ "$hl" -lt "$bl" ]; then
	whole=h part=big cut=$((hl + 1))
else
	whole=big part=h cut=$((bl + 1))
fi
check "debugfs: /$part has blocks past block $cut (h ends at $hl, big at $bl)" \
	'[ "$(last /$part)" -ge "$cut" ] && [ "$(last /$whole)" -lt "$cut" ]'
head -c $((cut * 4096)) "$W/vol.raw" >"$W/cut.raw"
"$E4DUMP" extract --json --manifest "$W/m.tsv" --dfxml "$W/x.xml" "$W/cut.raw" -o "$W/out" \
	>"$W/schema.extract" 2>"$W/extract.err"
echo $? >"$W/schema.extract.rc"
check "extract: exit 1, /$part partial" \
	'[ "$(cat "$W/schema.extract.rc")" = 1 ] && grep "\"path\":\"/$part\"" "$W/schema.extract" | grep -q "\"status\":\"partial\""'
got=$(python3 -c '
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r.get("type") == "extracted" and r.get("hashes"):
        print(r["path"] + ":" + r["status"] + ":" + str(r["hashes"].get("partial")), end=" ")' "$W/schema.extract")
check "JSON: the partial file's hashes say partial, the complete one's not ($got)" \
	'case " $got" in *" /$part:partial:True "*) ;; *) false ;; esac &&
	 case " $got" in *" /$whole:complete:None "*) ;; *) false ;; esac'
got=$(awk -F'\t' 'NR > 1 {print $1 ":" $14}' "$W/m.tsv" | sort | tr '\n' ' ')
check "manifest: hashes_of plaintext-partial for /$part alone ($got)" \
	'[ "$got" = "$(printf "/%s:%s\n" $part plaintext-partial $whole plaintext | sort | tr "\n" " ")" ]'
read -r ps _ < <(sha256sum "$W/out/$part")
read -r ws _ < <(sha256sum "$W/src/$whole")
got=$(python3 -c '
import sys, xml.etree.ElementTree as ET
D = "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML"
E = "https://e4dump.invalid/dfxml/1"
for fo in ET.parse(sys.argv[1]).getroot().iter("{%s}fileobject" % D):
    h = {x.get("type"): x.text for x in fo.findall("{%s}hashdigest" % D)}
    p = {x.get("type"): x.text for x in fo.findall("{%s}partial_hashdigest" % E)}
    print(fo.find("{%s}filename" % D).text, h.get("sha256", "-"), p.get("sha256", "-"))' "$W/x.xml")
check "DFXML: /$part has no hashdigest, e4:partial_hashdigest sha256sum's of what was written" \
	'echo "$got" | grep -qx "/$part - $ps"'
check "DFXML: /$whole has the hashdigest of the source file" \
	'echo "$got" | grep -qx "/$whole $ws -"'
python3 "$top/tests/cli/dfxml_check.py" "$W/x.xml" --tsv "$W/m.tsv" --out "$W/out" >"$W/dfxml.check" 2>&1
check "dfxml_check: the DFXML schema's rules, the manifest, DIR ($(tail -1 "$W/dfxml.check"))" '[ $? = 0 ]'
python3 "$top/tests/cli/writers_check.py" dfxml "$W/x.xml" "$W/schema.extract" >"$W/writers.check" 2>&1
check "writers_check: the DFXML is the JSON records ($(tail -1 "$W/writers.check"))" '[ $? = 0 ]'
/usr/bin/python3 "$top/tests/cli/schema_check.py" "$top/schema/e4dump-records.schema.json" extracted \
	"$W/schema.extract" >"$W/schema.check" 2>&1
check "the records validate against the schema ($(tail -1 "$W/schema.check"))" '[ $? = 0 ]'
finish
