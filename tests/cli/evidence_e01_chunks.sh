#!/bin/bash
# An E01 with hundreds of damaged chunks (a byte flipped in each, as
# evidence_e01.sh does with one): reading it costs a few look-ups in
# libewf's list of checksum errors per read, not a walk of the whole list
# on every read (which made verify --evidence, with its retries piece by
# piece, and extract quadratic in the number of damaged chunks); and what
# is unreadable is still exactly what ewfverify names.
#  ewfacquire with 8 KiB chunks (-b 16) of the 8 MiB volume; flipped:
#  every other chunk inside the journal's blocks and inside /big's
#  (debugfs), and a run of 7 adjacent chunks in /big (libewf merges them
#  into one range as it reads them: the range grows, the count does not).
#  - verify --evidence: the unreadable bytes are ewfverify's sectors, in
#    as many ranges, the first 16 named one by one; exit 1;
#  - cat /big and extract: exactly /big's blocks (debugfs) in those
#    sectors are errors (exit 1), every other block is mke2fs's;
#  - each of these: look-ups in the list linear in what is read: at most
#    4 per read from libewf and 1 per chunk read (tests/cli/ewf_calls.c,
#    preloaded, counts them); a walk of the list on every read makes
#    hundreds per read.
# usage: evidence_e01_chunks.sh E4DUMP WORKDIR EWF_CALLS.so
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/evidence_common.sh"
SHIM=$3
evidence_setup "$1" "$2" ewfacquire ewfverify ewfinfo debugfs
[ -f "$SHIM" ] || give_up "no $SHIM"
CRAFT="python3 $top/tests/cli/evidence_craft.py"
ewfacquire -u -q -t "$W/good" -f encase6 -c deflate:fast -b 16 -d sha1 "$W/vol.raw" \
	>"$W/acq.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$W/acq.log")"
spc=$(ewfinfo "$W/good.E01" | sed -n 's/^[[:space:]]*Sectors per chunk:[[:space:]]*//p')
bps=$(ewfinfo "$W/good.E01" | sed -n 's/^[[:space:]]*Bytes per sector:[[:space:]]*//p')
check "ewfinfo: chunks of 16 sectors of 512" '[ "$spc" = 16 ] && [ "$bps" = 512 ]'
debugfs -R "blocks <8>" "$W/vol.raw" 2>/dev/null >"$W/journal.blocks"
debugfs -R "blocks /big" "$W/vol.raw" 2>/dev/null >"$W/big.blocks"
# the chunks to flip: inside each range of blocks (not its first and last
# chunk), every other one; in /big, a run of 7 adjacent ones past the middle
python3 - "$W/journal.blocks" "$W/big.blocks" $((spc * bps / 4096)) >"$W/chunks" <<'PY' ||
import sys
per = int(sys.argv[3])
out = []
for i, path in enumerate(sys.argv[1:3]):
    blocks = [int(b) for b in open(path).read().split()]
    first, last = min(blocks) // per + 1, max(blocks) // per - 1
    if i == 0:
        out += range(first + 1, last, 2)
    else:
        mid = (first + last) // 2
        out += list(range(first + 1, mid, 2)) + list(range(mid + 1, mid + 8)) + \
            list(range(mid + 10, last, 2))
print(" ".join(map(str, out)))
PY
	give_up "chunks to flip"
read -ra chunks <"$W/chunks"
$CRAFT e01-flip "$W/good.E01" "$W/bad.E01" "${chunks[@]}" >"$W/flips" ||
	give_up "evidence_craft.py e01-flip"
ewfverify -q -d sha1 "$W/bad.E01" >"$W/ewfverify.bad" 2>&1
sed -n 's/^[[:space:]]*at sector(s): \([0-9]*\) - \([0-9]*\) .*/\1 \2/p' "$W/ewfverify.bad" >"$W/ranges"
nr=$(wc -l <"$W/ranges")
check "ewfverify: $nr damaged ranges for ${#chunks[@]} chunks flipped (one run of 7 merged)" \
	'[ "${#chunks[@]}" -gt 300 ] && [ "$nr" = $((${#chunks[@]} - 6)) ]'

# counted OUT -- CMD...: CMD with tests/cli/ewf_calls.c preloaded (stdout in
# OUT, stderr in OUT.err); RC, READS, CHUNKS (the bytes they asked for, in
# chunks) and LOOKUPS, summed over its processes
counted() {
	local out=$1
	shift 2
	rm -f "$W/calls"
	E4_EWF_CALLS="$W/calls" LD_PRELOAD="$SHIM" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$@" >"$out" 2>"$out.err"
	RC=$?
	read -r READS CHUNKS LOOKUPS < <(awk -v c=$((spc * bps)) '{ r += $2; b += $4; l += $6 }
		END { printf "%d %d %d\n", r, (b + c - 1) / c, l }' "$W/calls" 2>/dev/null)
	echo "$(basename "$out"): $READS reads from libewf ($CHUNKS chunks), $LOOKUPS look-ups in its list of checksum errors"
	if sanitizer_report "$out.err"; then
		bad "$(basename "$out"): sanitizer report"
		cat "$out.err"
	fi
}
few_lookups() {
	check "$1: look-ups in the list: at most 4 per read and 1 per chunk read ($READS reads, $CHUNKS chunks, $LOOKUPS look-ups)" \
		'[ "${READS:-0}" -gt 0 ] && [ "$LOOKUPS" -le $((4 * READS + CHUNKS)) ]'
}

counted "$W/verify" -- "$E4DUMP" verify --evidence "$W/bad.E01"
check "verify --evidence: findings, exit 1" '[ "$RC" = 1 ]'
few_lookups "verify --evidence"
check "verify --evidence: the first 16 unreadable ranges are ewfverify's first 16" \
	'diff <(head -16 "$W/ranges" | while read -r a b; do echo "$((a * bps)) $(((b + 1) * bps - 1))"; done) \
	      <(sed -n "s/^evidence\.hash: inode 0: -: the media cannot be read at bytes \([0-9]*\) to \([0-9]*\) .*/\1 \2/p" "$W/verify")'
sum=$(awk -v b="$bps" '{ s += ($2 - $1 + 1) * b } END { print s }' "$W/ranges")
check "verify --evidence: $sum bytes in $nr ranges unreadable, as ewfverify says" \
	'grep -q "^evidence\.hash: inode 0: -: $sum bytes of the media in $nr ranges cannot be read" "$W/verify"'

# /big's blocks in the damaged sectors (debugfs, ewfverify)
python3 - "$W/big.blocks" "$W/ranges" "$bps" >"$W/big.bad" <<'PY'
import sys
phys = [int(b) for b in open(sys.argv[1]).read().split()]
bps = int(sys.argv[3])
bad = [(int(a) * bps, (int(b) + 1) * bps) for a, b in (l.split() for l in open(sys.argv[2]))]
print(" ".join(str(i) for i, p in enumerate(phys)
               if any(a < (p + 1) * 4096 and p * 4096 < b for a, b in bad)))
PY
# same_but OUT: OUT is /big but for the blocks in $W/big.bad, and the
# command said that many blocks cannot be read
same_but() {
	python3 - "$W/big.bad" "$1" "$W/src/big" "$2" <<'PY'
import re, sys
inside = {int(i) for i in open(sys.argv[1]).read().split()}
got, want = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
same = all(got[i * 4096:(i + 1) * 4096] == want[i * 4096:(i + 1) * 4096]
           for i in range((len(want) + 4095) // 4096) if i not in inside)
said = re.search(r"/big \(inode \d+\): %d blocks cannot be read" % len(inside),
                 open(sys.argv[4]).read())
sys.exit(0 if len(inside) > 100 and same and said and len(got) == len(want) else 1)
PY
}
counted "$W/big" -- "$E4DUMP" cat "$W/bad.E01" /big
check "cat /big: exit 1" '[ "$RC" = 1 ]'
few_lookups "cat /big"
check "cat /big: exactly the blocks in damaged sectors are errors, every other is mke2fs's" \
	'same_but "$W/big" "$W/big.err"'
counted "$W/extract" -- "$E4DUMP" extract "$W/bad.E01" -o "$W/x"
check "extract: exit 1" '[ "$RC" = 1 ]'
few_lookups "extract"
check "extract: /big is mke2fs's but for the blocks in damaged sectors, which it names" \
	'same_but "$W/x/big" "$W/extract.err"'
check "extract: /h is mke2fs's" 'cmp -s "$W/x/h" "$W/src/h"'
finish
