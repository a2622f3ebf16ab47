#!/bin/bash
# A split raw set is checked as a set (issue 28): split -d cuts an ext4
# volume (mke2fs -d) into NAME.001, NAME.002, NAME.003; the whole set reads
# as mke2fs wrote it; a set cut each way is a fatal error (exit 2) naming
# the member: the middle one missing, the middle one short, the first one
# missing (the second given), a gap in the names, the last one longer than
# the others, a later segment given.  Sizes from stat, never from e4dump;
# a last segment cut short is no set error: the filesystem's shortfall
# (dumpe2fs -h) is said instead (evidence_short.sh tests its forms).
# usage: evidence_split.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/evidence_common.sh"
evidence_setup "$1" "$2" split dumpe2fs
mkdir -p "$W/set"
split -d -a 3 --numeric-suffixes=1 -b 3M "$W/vol.raw" "$W/set/d." || give_up split
check "split wrote three members" '[ "$(ls "$W/set" | wc -l)" = 3 ]'
full=$(stat -c %s "$W/set/d.001")

# a fresh copy of the set in $W/$1
fresh() {
	rm -rf "${W:?}/$1" && cp -r "$W/set" "$W/$1"
}
# every refusal: exit 2 from info, volumes and cat, nothing on stdout, the reason
refused() { # NAME RE IMAGE
	local name=$1 re=$2 img=$3
	for cmd in "info" "volumes" "cat:/h"; do
		local c=${cmd%%:*} a=
		[ "$c" = "$cmd" ] || a=${cmd#*:}
		expect "$name: $c" 2 "$re" -- timeout 20 "$E4DUMP" $c "$img" $a
		check "$name: $c: nothing on stdout" '[ ! -s "$W/out" ]'
	done
}

fresh whole
must_run "the whole set: cat /h" "$W/h.whole" -- "$E4DUMP" cat "$W/whole/d.001" /h &&
	check "the whole set: /h is mke2fs's" 'cmp -s "$W/h.whole" "$W/src/h"'
must_run "the whole set: info" "$W/info.whole" -- "$E4DUMP" info "$W/whole/d.001" &&
	check "the whole set: info says split raw" 'grep -qx "container: split raw" "$W/info.whole"'
check "the whole set: no warning" '! grep -q warning "$W/info.whole.err"'

fresh mid && rm "$W/mid/d.002"
refused "the middle member missing" \
	'split raw image: segment 2 \(.*/mid/d\.002\) is missing: the set goes on with .*/mid/d\.003' "$W/mid/d.001"

fresh short && truncate -s 2M "$W/short/d.002"
short=$(stat -c %s "$W/short/d.002")
refused "the middle member short" \
	"segment 2 \(.*/short/d\.002\) is $short bytes, segment 1 \(.*/short/d\.001\) $full" "$W/short/d.001"

fresh first && rm "$W/first/d.001"
refused "the first member missing, the second given" \
	'split raw image: .*/first/d\.002 is a later segment of a set whose first is missing \(.*/first/d\.001 not found\)' \
	"$W/first/d.002"

fresh gap && mv "$W/gap/d.003" "$W/gap/d.004"
refused "a gap in the names" \
	'split raw image: segment 3 \(.*/gap/d\.003\) is missing: the set goes on with .*/gap/d\.004' "$W/gap/d.001"

# names far apart: the next member is looked up, not counted up to (a
# billion lookups among 41 names took seconds of CPU; a second is plenty)
mkdir -p "$W/far" && cp "$W/whole/d.001" "$W/far/d.000000001" &&
	for i in $(seq 960 999); do : >"$W/far/d.999999$i"; done
(ulimit -t 1; exec "$E4DUMP" info "$W/far/d.000000001") >"$W/far.out" 2>"$W/far.err"
rc=$?
check "names far apart (d.000000001, d.999999960 ...): exit 2 within a CPU second ($rc)" \
	'[ $rc = 2 ] && grep -q "segment 2 (.*/far/d\.000000002) is missing: the set goes on with .*/far/d\.999999960" "$W/far.err"'

fresh long && head -c 4M /dev/zero >>"$W/long/d.003"
long=$(stat -c %s "$W/long/d.003")
refused "the last member longer than the others" \
	"segment 3 \(.*/long/d\.003\), the last, is $long bytes, segment 1 \(.*/long/d\.001\) $full" "$W/long/d.001"

fresh later
refused "a later member given" \
	'split raw image: a later segment; its set starts at .*/later/d\.001' "$W/later/d.002"

# the last member cut short: a set, whose filesystem is short of what its
# superblock declares (dumpe2fs -h), said by info and verify
fresh tail && truncate -s 1M "$W/tail/d.003"
have=$(( $(stat -c %s "$W/tail/d.001") + $(stat -c %s "$W/tail/d.002") + $(stat -c %s "$W/tail/d.003") ))
missing=$(($(fs_declared "$W/vol.raw") - have))
check "the last member cut short: bytes missing ($missing)" '[ "$missing" -gt 0 ]'
expect "the last member cut short: info warns" 0 \
	"warning: .*/tail/d\.001: the image ends at byte $have of the filesystem, $missing bytes short" -- \
	"$E4DUMP" info "$W/tail/d.001"
expect "the last member cut short: verify finds image.short" 1 '' -- "$E4DUMP" verify "$W/tail/d.001"
check "the last member cut short: the finding" \
	'grep -q "^image\.short: inode 0: -: the image ends at byte $have of the filesystem, $missing bytes short" "$W/out"'
finish
