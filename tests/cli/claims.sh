#!/bin/bash
# Data blocks claimed more than once (found by a hostile review: one
# extent leaf of 340 extents at the same blocks made extract write 42.5 MiB
# from a 4 MiB image and verify say nothing).  The image: claims_craft.py
# (mkfs.ext4 -d, edited by tests/lib/ext4img.py).  Expected values from
# e2fsck -fn (pass 1B: "Multiply-claimed block(s) in inode N: ...") and
# debugfs, never from e4dump:
#   - verify: block.multiply_claimed for exactly e2fsck's inodes, each
#     naming a block e2fsck lists for it; --json parses;
#   - extract: the file is refused (error naming it, --max-output), the
#     rest is written, exit 1, the output holds less than the image;
#     --max-output 0 lifts the limit: the whole i_size is written.
# usage: claims.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in mkfs.ext4 e2fsck debugfs; do
	command -v $t >/dev/null || give_up "SKIPPED: $t not found (scripts/install-deps.sh)"
done
IMG=$W/claims.img
/usr/bin/python3 "$top/tests/cli/claims_craft.py" "$IMG" >"$W/craft.log" 2>&1 || give_up "claims_craft.py failed: $(cat "$W/craft.log")"
imgsize=$(stat -c %s "$IMG")
sha=$(sha256sum <"$IMG")

# e2fsck's pass 1B: inode -> its multiply-claimed blocks (ranges a--b)
e2fsck -fn "$IMG" >"$W/e2fsck.out" 2>&1
/usr/bin/python3 - "$W/e2fsck.out" >"$W/e2fsck.blocks" <<'PY'
import re, sys
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"Multiply-claimed block\(s\) in inode (\d+):(.*)", line)
    if not m:
        continue
    blocks = set()
    for tok in m.group(2).split():
        a, _, b = tok.partition("--")
        blocks.update(range(int(a), int(b or a) + 1))
    print(m.group(1), " ".join(str(b) for b in sorted(blocks)))
PY
check "e2fsck finds multiply-claimed blocks in 4 inodes ($(cut -d' ' -f1 "$W/e2fsck.blocks" | tr '\n' ' '))" \
	'[ "$(wc -l <"$W/e2fsck.blocks")" = 4 ]'

expect verify 1 "" -- "$E4DUMP" verify "$IMG"
cp "$W/out" "$W/verify.out"
grep '^block.multiply_claimed:' "$W/verify.out" >"$W/verify.claims"
check "verify: one block.multiply_claimed per inode e2fsck names ($(tr '\n' '|' <"$W/verify.claims"))" \
	'[ "$(sed -E "s/^block.multiply_claimed: inode ([0-9]+):.*/\1/" "$W/verify.claims" | sort -n | tr "\n" " ")" = "$(cut -d" " -f1 "$W/e2fsck.blocks" | sort -n | tr "\n" " ")" ]'
while read -r ino blocks; do
	b=$(sed -nE "s/^block.multiply_claimed: inode $ino:.* block ([0-9]+) .*/\1/p" "$W/verify.claims")
	check "inode $ino: the block verify names ($b) is one e2fsck lists" \
		'[ -n "$b" ] && [[ " $blocks " == *" $b "* ]]'
done <"$W/e2fsck.blocks"
# /a and /b share one block: each names the other (debugfs gives the inodes)
ia=$(debugfs -R "stat /a" "$IMG" 2>/dev/null | sed -nE 's/^Inode: ([0-9]+).*/\1/p')
ib=$(debugfs -R "stat /b" "$IMG" 2>/dev/null | sed -nE 's/^Inode: ([0-9]+).*/\1/p')
check "/a ($ia) is said to share with /b ($ib) and back" \
	'grep -q "inode $ia: .*claimed by inode $ib\$" "$W/verify.claims" && grep -q "inode $ib: .*claimed by inode $ia\$" "$W/verify.claims"'
check "/meta: shared with the metadata" 'grep -q "/meta: .*filesystem metadata" "$W/verify.claims"'
check "/same: within the file" 'grep -q "/same: .*more than once by this inode" "$W/verify.claims"'
expect verify-json 1 "" -- "$E4DUMP" verify --json "$IMG"
check "verify --json: every line parses, 4 findings" \
	'/usr/bin/python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(sum(x.get(\"check\")==\"block.multiply_claimed\" for x in r)!=4)" "$W/out"'

# extract: bounded by the image's size
expect extract 1 "/same \(inode [0-9]+\): not written: .*--max-output $imgsize" -- \
	"$E4DUMP" extract "$IMG" -o "$W/x"
check "extract names the blocks /same claims twice" \
	'grep -q "/same (inode [0-9]*): its block map claims blocks more than once" "$W/err"'
check "/same is not left behind" '[ ! -e "$W/x/same" ]'
check "the rest is extracted" '[ "$(cat "$W/x/ok")" = ok ] && [ -s "$W/x/a" ] && [ -s "$W/x/b" ]'
written=$(du -sb "$W/x" | cut -f1)
check "the output ($written bytes) is below the image's size ($imgsize)" '[ "$written" -lt "$imgsize" ]'
size=$(debugfs -R "stat /same" "$IMG" 2>/dev/null | sed -nE 's/.*[[:space:]]Size: ([0-9]+).*/\1/p' | head -1)
expect extract-nolimit 1 "" -- "$E4DUMP" extract --max-output 0 "$IMG" /same -o "$W/y"
check "--max-output 0: all of /same's i_size ($size) is written" \
	'[ -n "$size" ] && [ "$(stat -c %s "$W/y/same" 2>/dev/null)" = "$size" ]'
expect extract-badopt 2 "max-output" -- "$E4DUMP" extract --max-output 12x "$IMG" -o "$W/z"
check "the image is unchanged" '[ "$(sha256sum <"$IMG")" = "$sha" ]'
finish
