#!/bin/bash
# verify --evidence checks an E01's media against the hashes it stores,
# as ewfverify does (issue 28).  ewfacquire (MD5 and SHA-1) of an ext4
# volume (mke2fs -d):
#  - as acquired: ewfverify says SUCCESS; verify --evidence says match for
#    both, with md5sum's and sha1sum's hashes of the volume, exit 0; the
#    same in --json (the summary's "evidence");
#  - a byte flipped in the compressed data of the chunk holding /h's first
#    block (evidence_craft.py, from the table section): ewfverify says
#    FAILURE and names the chunk's sectors; verify --evidence names the
#    same bytes as unreadable, and both hashes MISMATCH, exit 1; cat of /h
#    is no longer its damaged bytes with exit 0: the block is an error,
#    exit 1; the other files still read as mke2fs wrote them.
# usage: evidence_e01.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/evidence_common.sh"
evidence_setup "$1" "$2" ewfacquire ewfverify ewfinfo debugfs
CRAFT="python3 $top/tests/cli/evidence_craft.py"
ewfacquire -u -q -t "$W/good" -f encase6 -c deflate:fast -d sha1 -C case-28 -E ev-28 \
	-e examiner -D volume -N notes "$W/vol.raw" >"$W/acq.log" 2>&1 ||
	give_up "ewfacquire: $(tail -3 "$W/acq.log")"
md5=$(md5sum <"$W/vol.raw" | cut -d' ' -f1)
sha1=$(sha1sum <"$W/vol.raw" | cut -d' ' -f1)
ewfverify -q -d sha1 "$W/good.E01" >"$W/ewfverify.good" 2>&1
check "ewfverify: the acquisition verifies" 'grep -q "ewfverify: SUCCESS" "$W/ewfverify.good"'
check "ewfinfo: it stores md5sum's MD5" 'ewfinfo "$W/good.E01" | grep -q "MD5:.*$md5"'

expect "as acquired: verify --evidence" 0 '' -- "$E4DUMP" verify --evidence "$W/good.E01"
check "as acquired: the MD5 matches md5sum's" \
	'grep -qx "evidence: md5 stored in the container: $md5; computed over the media: $md5: match" "$W/out"'
check "as acquired: the SHA-1 matches sha1sum's" \
	'grep -qx "evidence: sha1 stored in the container: $sha1; computed over the media: $sha1: match" "$W/out"'
expect "as acquired: verify --evidence --json" 0 '' -- "$E4DUMP" verify --evidence --json "$W/good.E01"
check "as acquired: the summary's evidence" \
	'python3 -c "import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])[\"evidence\"]; sys.exit(0 if e[\"md5\"] == {\"stored\": \"$md5\", \"computed\": \"$md5\", \"match\": True} and e[\"sha1\"][\"match\"] and e[\"unreadable_bytes\"] == 0 and e[\"media_size\"] == $(stat -c %s "$W/vol.raw") else 1)" "$W/out"'

# the chunk of /h's first block (debugfs, ewfinfo's chunk size)
blk=$(debugfs -R "bmap /h 0" "$W/vol.raw" 2>/dev/null)
spc=$(ewfinfo "$W/good.E01" | sed -n 's/^[[:space:]]*Sectors per chunk:[[:space:]]*//p')
bps=$(ewfinfo "$W/good.E01" | sed -n 's/^[[:space:]]*Bytes per sector:[[:space:]]*//p')
chunk=$((blk * 4096 / (spc * bps)))
check "debugfs maps /h ($blk), ewfinfo: $spc sectors of $bps a chunk" '[ "${blk:-0}" -gt 0 ] && [ "${spc:-0}" -gt 0 ]'
$CRAFT e01-flip "$W/good.E01" "$W/bad.E01" "$chunk" >"$W/flip" || give_up "evidence_craft.py e01-flip"
check "the chunk flipped is compressed" 'grep -q compressed "$W/flip"'
ewfverify -q -d sha1 "$W/bad.E01" >"$W/ewfverify.bad" 2>&1
check "ewfverify: the damage is found" 'grep -q "ewfverify: FAILURE" "$W/ewfverify.bad"'
read -r s0 s1 < <(sed -n 's/^[[:space:]]*at sector(s): \([0-9]*\) - \([0-9]*\) .*/\1 \2/p' "$W/ewfverify.bad")
check "ewfverify names the chunk's sectors ($s0-$s1)" '[ "$s0" = $((chunk * spc)) ]'
expect "damaged: verify --evidence: findings" 1 '' -- "$E4DUMP" verify --evidence "$W/bad.E01"
check "damaged: the bytes ewfverify names are unreadable" \
	'grep -q "^evidence\.hash: inode 0: -: the media cannot be read at bytes $((s0 * bps)) to $(((s1 + 1) * bps - 1)) " "$W/out"'
check "damaged: the MD5 mismatches" \
	'grep -q "^evidence: md5 stored in the container: $md5; computed over the media: [0-9a-f]*: MISMATCH" "$W/out" &&
	 grep -q "^evidence\.hash: inode 0: -: the md5 of the media is [0-9a-f]*; the EWF container stores $md5" "$W/out"'
check "damaged: the SHA-1 mismatches" \
	'grep -q "^evidence: sha1 stored in the container: $sha1; computed over the media: [0-9a-f]*: MISMATCH" "$W/out"'
expect "damaged: verify --evidence --json" 1 '' -- "$E4DUMP" verify --evidence --json "$W/bad.E01"
check "damaged: the summary's evidence" \
	'python3 -c "import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])[\"evidence\"]; sys.exit(0 if e[\"md5\"][\"stored\"] == \"$md5\" and e[\"md5\"][\"match\"] is False and e[\"sha1\"][\"match\"] is False and e[\"unreadable_bytes\"] == ($s1 - $s0 + 1) * $bps else 1)" "$W/out"'
expect "damaged: cat /h: an error, not the damaged bytes" 1 '/h \(inode [0-9]+\): 1 blocks cannot be read' -- \
	"$E4DUMP" cat "$W/bad.E01" /h
expect "damaged: verify without --evidence reads no data" 0 '' -- "$E4DUMP" verify "$W/bad.E01"
# /big: its blocks in the chunk (debugfs blocks) are errors, the others mke2fs's
debugfs -R "blocks /big" "$W/vol.raw" 2>/dev/null >"$W/big.blocks"
"$E4DUMP" cat "$W/bad.E01" /big >"$W/big" 2>"$W/big.err"
rc=$?
check "damaged: cat /big: exit 1 for the blocks in the chunk, every other block is mke2fs's" \
	'[ $rc = 1 ] && python3 - "$W/big.blocks" "$W/big" "$W/src/big" $((chunk * spc * bps / 4096)) $((spc * bps / 4096)) "$W/big.err" <<'"'"'PY'"'"'
import re, sys
phys = [int(b) for b in open(sys.argv[1]).read().split()]
got, want = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
first, n = int(sys.argv[4]), int(sys.argv[5])
inside = [i for i, p in enumerate(phys) if first <= p < first + n]
same = all(got[i * 4096:(i + 1) * 4096] == want[i * 4096:(i + 1) * 4096]
           for i in range(len(phys)) if i not in inside)
said = re.search(r"/big \(inode \d+\): %d blocks cannot be read" % len(inside),
                 open(sys.argv[6]).read())
sys.exit(0 if inside and same and said and len(got) == len(want) else 1)
PY'
finish
