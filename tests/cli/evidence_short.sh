#!/bin/bash
# An image shorter than what it declares is never silent (issue 28):
#  - an ext4 image (mke2fs -d) cut short: info and volumes warn (text and
#    --json: a diagnostic record, problem short_image), verify has the
#    finding image.short (exit 1), extract's accounting names it;
#  - a GPT disk (sgdisk) cut after its partition: the backup header is
#    missing: volumes, info and verify say so;
#  - the same disk cut inside its partition: the partition and its
#    filesystem are short, each said.
# What is declared comes from dumpe2fs -h, sgdisk and mmls; what the image
# holds from stat; never from e4dump.
# usage: evidence_short.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/evidence_common.sh"
evidence_setup "$1" "$2" dumpe2fs sgdisk mmls
declared=$(fs_declared "$W/vol.raw")
check "dumpe2fs: the filesystem's size ($declared)" '[ "$declared" -gt 6291456 ]'

# a JSON Lines file has a diagnostic of problem short_image whose reason
# holds each of the words given
json_short() { # FILE WORDS...
	python3 - "$@" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
d = [r for r in recs if r.get("type") == "diagnostic" and r.get("level") == "warning"
     and r.get("problem") == "short_image" and all(w in r.get("reason", "") for w in sys.argv[2:])]
sys.exit(0 if d and recs[-1].get("type") == "summary" else 1)
PY
}

# -- the filesystem image cut short
head -c 6M "$W/vol.raw" >"$W/cut.raw"
have=$(stat -c %s "$W/cut.raw")
missing=$((declared - have))
say="the image ends at byte $have of the filesystem, $missing bytes short of the $declared its superblock declares"
expect "cut: info warns" 0 "warning: .*cut\.raw: $say" -- "$E4DUMP" info "$W/cut.raw"
expect "cut: info --json" 0 '' -- "$E4DUMP" info --json "$W/cut.raw"
check "cut: info --json: a short_image diagnostic" \
	'json_short "$W/out" "ends at byte $have" "$missing bytes short"'
expect "cut: volumes warns" 0 "warning: .*cut\.raw: $say" -- "$E4DUMP" volumes "$W/cut.raw"
expect "cut: volumes --json" 0 '' -- "$E4DUMP" volumes --json "$W/cut.raw"
check "cut: volumes --json: the warning as a diagnostic" \
	'json_short "$W/out" "ends at byte $have" "$missing bytes short"'
expect "cut: verify: a finding" 1 '' -- "$E4DUMP" verify "$W/cut.raw"
check "cut: verify: image.short" 'grep -q "^image\.short: inode 0: -: $say" "$W/out"'
expect "cut: verify --json" 1 '' -- "$E4DUMP" verify --json "$W/cut.raw"
check "cut: verify --json: the finding" \
	'python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if [x for x in r if x.get(\"check\") == \"image.short\" and \"$missing bytes short\" in x[\"message\"]] and r[-1][\"findings\"] == 1 else 1)" "$W/out"'
expect "cut: extract: partial" 1 '' -- "$E4DUMP" extract "$W/cut.raw" -o "$W/x"
check "cut: extract's accounting names the shortfall" \
	'grep -q "^e4dump: extract: .* partial.*; the image ends at byte $have of the filesystem, $missing bytes short of what its superblock declares: files with blocks past its end are partial" "$W/err"'
expect "whole: verify: no finding" 0 '' -- "$E4DUMP" verify "$W/vol.raw"
expect "whole: info" 0 '' -- "$E4DUMP" info "$W/vol.raw"
check "whole: info: no warning" '[ ! -s "$W/err" ]'

# -- a GPT disk: the filesystem in partition 1 at sector 2048
truncate -s 16M "$W/gpt.img" && sgdisk -n 1:2048:+8M -t 1:8300 "$W/gpt.img" >"$W/sgdisk.log" 2>&1 &&
	dd if="$W/vol.raw" of="$W/gpt.img" bs=1M seek=1 conv=notrunc status=none ||
	give_up "sgdisk: $(tail -3 "$W/sgdisk.log")"
sectors=$(sgdisk -p "$W/gpt.img" 2>/dev/null | sed -n 's/^Disk .*: \([0-9]*\) sectors.*/\1/p')
pend=$(mmls "$W/gpt.img" | awk '$2 == "000" {print $4 + 0}')
check "sgdisk: the disk's sectors ($sectors), mmls: the partition's end ($pend)" \
	'[ "$sectors" = 32768 ] && [ "$pend" -gt 2048 ]'
expect "gpt whole: volumes" 0 '' -- "$E4DUMP" volumes "$W/gpt.img"
check "gpt whole: volumes: no warning" '[ ! -s "$W/err" ]'

# cut after the partition: the backup header (the disk's last sector) is gone
head -c 12M "$W/gpt.img" >"$W/gpt-tail.img"
hs=$(( $(stat -c %s "$W/gpt-tail.img") / 512 ))
gshort=$(( (sectors - hs) * 512 ))
gsay="the disk is $gshort bytes short of what its GPT declares: its backup header at LBA $((sectors - 1)), .* the image ends after LBA $((hs - 1))"
expect "gpt cut after the partition: volumes warns" 0 "warning: .*gpt-tail\.img: $gsay" -- \
	"$E4DUMP" volumes "$W/gpt-tail.img"
expect "gpt cut after the partition: volumes --json" 0 '' -- "$E4DUMP" volumes --json "$W/gpt-tail.img"
check "gpt cut after the partition: volumes --json: the warning" \
	'json_short "$W/out" "$gshort bytes short of what its GPT declares"'
expect "gpt cut after the partition: info warns" 0 "warning: .*gpt-tail\.img: $gsay" -- \
	"$E4DUMP" info "$W/gpt-tail.img"
expect "gpt cut after the partition: verify: a finding" 1 '' -- "$E4DUMP" verify "$W/gpt-tail.img"
check "gpt cut after the partition: verify: image.short" \
	'grep -q "^image\.short: inode 0: -: $gsay" "$W/out"'

# cut inside the partition: the partition and its filesystem are short
head -c 6M "$W/gpt.img" >"$W/gpt-cut.img"
pmissing=$(( (pend + 1) * 512 - $(stat -c %s "$W/gpt-cut.img") ))
fhave=$(( $(stat -c %s "$W/gpt-cut.img") - 2048 * 512 ))
expect "gpt cut inside the partition: volumes warns of the partition" 0 \
	"warning: .*gpt-cut\.img: partition 1: $pmissing bytes of it lie past the end of the image" -- \
	"$E4DUMP" volumes "$W/gpt-cut.img"
check "gpt cut inside the partition: volumes warns of its filesystem" \
	'grep -q "warning: .*gpt-cut\.img: partition 1: the image ends at byte $fhave of the filesystem, $((declared - fhave)) bytes short" "$W/err"'
expect "gpt cut inside the partition: info warns of the filesystem" 0 \
	"warning: .*gpt-cut\.img: the image ends at byte $fhave of the filesystem, $((declared - fhave)) bytes short" -- \
	"$E4DUMP" info "$W/gpt-cut.img"
check "gpt cut inside the partition: info warns of the partition" \
	'grep -q "partition 1: $pmissing bytes of it lie past the end of the image" "$W/err"'
expect "gpt cut inside the partition: verify: findings" 1 '' -- "$E4DUMP" verify "$W/gpt-cut.img"
check "gpt cut inside the partition: verify: image.short" \
	'[ "$(grep -c "^image\.short: inode 0: " "$W/out")" = 2 ]'
finish
