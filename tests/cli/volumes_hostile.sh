#!/bin/bash
# Partition tables with odd entries (tests/cli/hostile_tables.py writes
# them): `volumes` lists every entry The Sleuth Kit's mmls lists (slot,
# first and last sector: mmls reads the same file, independently), marks
# what is odd about each as the layout the script wrote makes it (hand
# derived), and no odd entry is used without --partition N.  And a
# sparse disk larger than the process may write (RLIMIT_FSIZE): the
# table is read, nothing the size of the disk is made.
# usage: volumes_hostile.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in mmls sgdisk; do
	command -v $t >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done
sample sample.img
craft() { python3 "$top/tests/cli/hostile_tables.py" "$@" || give_up "hostile_tables.py $1"; }

# "slot first last" of mmls's entries (not its Meta and unallocated rows;
# gpt-4k in 4096-byte sectors: -b 4096)
mmls_rows() {
	local b=512
	[[ $1 == *4k* ]] && b=4096
	mmls -b $b "$1" | awk '$2 ~ /^[0-9]+(:[0-9]+)?$/ {print $2, $3 + 0, $4 + 0}' | sort
}
# the same from volumes --json (extended partitions are Meta to mmls)
volumes_rows() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "volume" and o["slot"] and not o["extended"]:
        print(o["slot"], o["table_first"], o["table_last"])' "$1" | sort
}
# "index: what is odd" of each entry volumes marks
odd_rows() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "volume" and o["odd"]:
        print(o["index"] + ": " + o["odd"])' "$1"
}

declare -A want
want[gpt-unusable]='3: outside the GPT usable area (LBA 2048 to 32734)
4: outside the GPT usable area (LBA 2048 to 32734)'
want[gpt-overlap]='2: overlaps partition 3
3: overlaps partition 2'
want[gpt-backwards]='3: ends before it starts (last LBA 10000, first 20000)
4: starts past the end of the image (sector 40000 of 32768); outside the GPT usable area (LBA 34 to 32734)'
want[gpt-4k]='2: overlaps partition 3
3: overlaps partition 2'
want[mbr-pastend]='4: starts past the end of the image (sector 40000 of 32768)'
want[mbr-overlap]='1: overlaps partition 2
2: overlaps partition 1'
want[mbr-loop]='7: its EBR (sector 12288) links back to the EBR at sector 8192'
for k in gpt-unusable gpt-overlap gpt-backwards gpt-4k mbr-pastend mbr-overlap mbr-loop; do
	craft $k "$W/$k.img" "$W/sample.img"
	must_run "$k: volumes --json" "$W/$k.json" -- "$E4DUMP" volumes --json "$W/$k.img" || continue
	check "$k: every entry mmls lists, where it puts it" \
		'[ "$(volumes_rows "$W/$k.json")" = "$(mmls_rows "$W/$k.img")" ] ||
		 { volumes_rows "$W/$k.json"; echo "mmls:"; mmls_rows "$W/$k.img"; false; }'
	check "$k: the odd entries marked" \
		'[ "$(odd_rows "$W/$k.json")" = "${want[$k]}" ] || { odd_rows "$W/$k.json"; false; }'
	must_run "$k: volumes" "$W/$k.txt" -- "$E4DUMP" volumes "$W/$k.img" &&
		check "$k: the text says so, and that it is used only when chosen" \
			'[ "$(grep -c "^partition [0-9]* (slot [0-9:]*): odd: .* (used only when chosen with --partition)$" "$W/$k.txt")" = \
			   "$(printf "%s\n" "${want[$k]}" | wc -l)" ] && grep -q " (odd) " "$W/$k.txt"'
done
check "mbr-pastend: partition 3, cut short, says what is missing (1328 sectors)" \
	'grep -qx "partition 3: 679936 bytes of it lie past the end of the image" "$W/mbr-pastend.txt"'
check "mbr-loop: the loop in the table's note" \
	'grep -qx "note: the EBR chain loops: the EBR at sector 12288 links back to sector 8192" "$W/mbr-loop.txt"'

# the ext4 in an odd entry: not chosen by itself, chosen when named
expect "gpt-overlap: the ext4 partition overlaps another: not used unasked" 2 \
	'the ext4 partitions of its gpt table are odd: choose one with --partition N; --partition 2: start 5242880 bytes, 4194304 bytes, ext4, odd: overlaps partition 3' -- \
	"$E4DUMP" ls "$W/gpt-overlap.img"
rm -rf "$W/x"
expect "gpt-overlap: --partition 2 uses it" 0 '' -- \
	"$E4DUMP" extract --partition 2 --key-file "$K" "$W/gpt-overlap.img" -o "$W/x"
check "gpt-overlap --partition 2: the kernel's manifest" \
	'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
must_run "gpt-overlap: info --partition 2" "$W/info" -- "$E4DUMP" info --partition 2 "$W/gpt-overlap.img" &&
	check "info says what is odd about the volume it used" \
		'grep -qx "volume: partition 2 (gpt, start 5242880 bytes, sector 10240, 4194304 bytes; odd: overlaps partition 3)" "$W/info"'
check "gpt-4k: the table's sector size is 4096" \
	'grep -q "^partition table: gpt (sector size 4096, id 04030201-0605-0807-090a-0b0c0d0e0f10)$" "$W/gpt-4k.txt"'
rm -rf "$W/x"
expect "gpt-4k: --partition 2 (at LBA 1280 of 4096 bytes) uses it" 0 '' -- \
	"$E4DUMP" extract --partition 2 --key-file "$K" "$W/gpt-4k.img" -o "$W/x"
check "gpt-4k --partition 2: the kernel's manifest" \
	'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
rm -rf "$W/x"
expect "mbr-overlap: the ext4 partition 3 is fine: chosen (1 and 2 overlap)" 0 '' -- \
	"$E4DUMP" extract --key-file "$K" "$W/mbr-overlap.img" -o "$W/x"
check "mbr-overlap: the kernel's manifest" 'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
expect "mbr-pastend: --partition 4 lies outside the image" 2 \
	'partition 4 \(dos, sector 40000\): starts past the end of the image' -- \
	"$E4DUMP" ls --partition 4 "$W/mbr-pastend.img"

# a 1 GiB sparse disk with a GPT, read under a 1 MiB RLIMIT_FSIZE (the
# mirror of the whole disk died of SIGXFSZ)
truncate -s 1G "$W/big.img"
sgdisk -n 1:2048:+4M -t 1:8300 -c 1:secret "$W/big.img" >"$W/sgdisk.log" 2>&1 ||
	give_up "sgdisk: $(tail -2 "$W/sgdisk.log")"
dd if="$W/sample.img" of="$W/big.img" bs=512 seek=2048 conv=notrunc status=none
(ulimit -f 1024; exec "$E4DUMP" volumes "$W/big.img") >"$W/big.txt" 2>&1
rc=$?
check "volumes of a 1 GiB disk under ulimit -f 1024: exit $rc" '[ $rc = 0 ]'
check "it lists the partition sgdisk made, ext4 with encrypted inodes" \
	'grep -Eq "^1 +1048576 +2048 +4194304 +ext4 +yes \(8 inodes\)" "$W/big.txt" || { cat "$W/big.txt"; false; }'
(ulimit -f 64; exec "$E4DUMP" volumes "$W/big.img") >"$W/big64.txt" 2>&1
rc=$?
check "under ulimit -f 64 (less than a partition's 128 KiB head): exit $rc, the filesystem not probed, ext4 still found" \
	'[ $rc = 0 ] && grep -Eq "^1 +1048576 +2048 +4194304 +\(not probed\) +yes \(8 inodes\)" "$W/big64.txt"'
(ulimit -f 1024; exec "$E4DUMP" ls "$W/big.img") >"$W/big.ls" 2>&1
rc=$?
check "ls of it under ulimit -f 1024 finds the ext4 partition: exit $rc" '[ $rc = 0 ]'
finish
