#!/bin/bash
# Partitioned disks holding the kernel-written sample, in every container
# e4dump reads.  Disks (16 MiB, made with sgdisk and sfdisk):
#   gpt:  1 swap at 1 MiB; 2 the sample at 5 MiB (an odd MiB)
#   mbr:  1 swap; 2 extended; 5 logical swap; 6 logical, the sample at 5 MiB
#   two:  GPT, 1 a plain ext4 (mkfs.ext4) at 1 MiB; 2 the sample at 7 MiB
# Forms of each: raw, E01 (ewfacquire, deflate fast), split raw (split -d,
# disk.001 ...), qcow2, compressed qcow2, VMDK, VHDX (qemu-img); and the
# bare sample as an Android sparse image (img2simg), whole and cut into
# a split raw set.  For every form: `volumes` shows the partitions where
# partx (util-linux, reading the raw disk) puts them; extract without
# options finds the one ext4 volume and gives the kernel's manifest; the
# two-ext4 disk is an error that lists both unless --partition or
# --offset chooses; bad choices are errors; no container file changes.
# usage: volumes.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in sgdisk sfdisk partx mkswap ewfacquire qemu-img img2simg; do
	command -v $t >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done
sample sample.img
truncate -s 3M "$W/swap" && mkswap -q "$W/swap" >/dev/null &&
	truncate -s 1M "$W/swap1" && mkswap -q "$W/swap1" >/dev/null || give_up mkswap
mkdir -p "$W/plain" && echo plain >"$W/plain/hello"
mkfs.ext4 -q -F -d "$W/plain" "$W/plain.img" 4M >/dev/null 2>&1 || give_up "mkfs.ext4"
put() { dd if="$1" of="$2" bs=512 seek="$3" conv=notrunc status=none; }

truncate -s 16M "$W/gpt.img" "$W/mbr.img" "$W/two.img"
sgdisk -n 1:2048:+3M -t 1:8200 -c 1:swap -n 2:10240:+4M -t 2:8300 -c 2:secret \
	"$W/gpt.img" >"$W/sgdisk.log" 2>&1 || give_up "sgdisk: $(tail -2 "$W/sgdisk.log")"
put "$W/swap" "$W/gpt.img" 2048
put "$W/sample.img" "$W/gpt.img" 10240
printf 'label: dos\nstart=2048, size=2048, type=82\nstart=4096, size=24576, type=5\nstart=6144, size=2048, type=82\nstart=10240, size=8192, type=83\n' |
	sfdisk -q "$W/mbr.img" >"$W/sfdisk.log" 2>&1 || give_up "sfdisk: $(tail -2 "$W/sfdisk.log")"
put "$W/swap1" "$W/mbr.img" 6144
put "$W/sample.img" "$W/mbr.img" 10240
sgdisk -n 1:2048:+4M -t 1:8300 -c 1:plain -n 2:14336:+4M -t 2:8300 -c 2:secret \
	"$W/two.img" >>"$W/sgdisk.log" 2>&1 || give_up "sgdisk (two)"
put "$W/plain.img" "$W/two.img" 2048
put "$W/sample.img" "$W/two.img" 14336

# every form of every disk
forms=()
for d in gpt mbr two; do
	ewfacquire -u -q -t "$W/$d" -f encase6 -c deflate:fast -C "case-$d" -E ev-1 \
		-e examiner -D "$d disk" -N notes "$W/$d.img" >"$W/$d.ewf.log" 2>&1 ||
		give_up "ewfacquire: $(tail -3 "$W/$d.ewf.log")"
	mkdir -p "$W/split-$d"
	split -d -a 3 --numeric-suffixes=1 -b 3M "$W/$d.img" "$W/split-$d/$d." || give_up split
	qemu-img convert -O qcow2 "$W/$d.img" "$W/$d.qcow2" &&
		qemu-img convert -c -O qcow2 "$W/$d.img" "$W/$d.c.qcow2" &&
		qemu-img convert -O vmdk "$W/$d.img" "$W/$d.vmdk" &&
		qemu-img convert -O vhdx "$W/$d.img" "$W/$d.vhdx" || give_up "qemu-img convert ($d)"
	forms+=("$d.img:raw" "$d.E01:EWF" "split-$d/$d.001:split raw" "$d.qcow2:QCOW"
		"$d.c.qcow2:QCOW" "$d.vmdk:VMDK" "$d.vhdx:VHDX")
done
img2simg "$W/sample.img" "$W/sample.simg" || give_up img2simg
mkdir -p "$W/split-sample"
split -d -a 3 -b 1M "$W/sample.img" "$W/split-sample/sample.raw." || give_up split
nsplit=$(ls "$W/split-gpt" | wc -l)
check "split sets of several segments ($nsplit)" '[ "$nsplit" -ge 5 ]'
find "$W" -maxdepth 2 -type f \( -name '*.E01' -o -name '*.qcow2' -o -name '*.vmdk' \
	-o -name '*.vhdx' -o -name '*.simg' -o -name '*.[0-9][0-9][0-9]' -o -name '*.img' \) \
	-print0 | sort -z >"$W/containers"
sums() { xargs -0 sha256sum <"$W/containers"; }
before=$(sums)

# "index start-sector sectors" of each partition, as partx reads the raw disk
partx_rows() { partx -g -o NR,START,SECTORS "$W/$1.img" | awk '{print $1, $2, $3}'; }
# the same from volumes' table (bytes to sectors for the length)
volumes_rows() { awk '/^index/ {t=1; next} t && $1 != "-" {print $1, $3, $4 / 512}' "$1"; }
for f in "${forms[@]}"; do
	path=${f%%:*} kind=${f#*:}
	d=$(basename "$path")
	d=${d%%.*}
	must_run "$path: volumes" "$W/vol" -- "$E4DUMP" volumes "$W/$path" || continue
	check "$path: volumes says container: $kind" 'grep -qx "container: $kind" "$W/vol"'
	check "$path: the partitions where partx puts them" \
		'[ "$(volumes_rows "$W/vol")" = "$(partx_rows "$d")" ] || { cat "$W/vol"; partx_rows "$d"; false; }'
	check "$path: ext4 with encrypted inodes at sector ${d/two/14336}" \
		'grep -Eq "^[0-9]+ +[0-9]+ +$([ $d = two ] && echo 14336 || echo 10240) +4194304 +ext4 +yes \(8 inodes\)" "$W/vol"'
	rm -rf "$W/x"
	if [ "$d" = two ]; then
		expect "$path: two ext4 partitions, no choice: an error listing both" 2 \
			'cannot open: .*2 ext4 volumes: choose one with --partition N; --partition 1: start 1048576 bytes.*; --partition 2: start 7340032 bytes' -- \
			"$E4DUMP" extract --key-file "$K" "$W/$path" -o "$W/x"
		check "$path: nothing extracted" '! [ -e "$W/x" ]'
		expect "$path: extract --partition 2" 0 '' -- \
			"$E4DUMP" extract --partition 2 --key-file "$K" "$W/$path" -o "$W/x"
	else
		expect "$path: extract finds the one ext4 partition" 0 '' -- \
			"$E4DUMP" extract --key-file "$K" "$W/$path" -o "$W/x"
	fi
	check "$path: the kernel's manifest" \
		'check_extract -q "$S/sample.manifest" "$W/x" >"$W/check" 2>&1 || { head -3 "$W/check"; false; }'
done

# the choices, and info says which volume it used
E=("$E4DUMP")
expect "-v says which partition it chose" 0 'using its only ext4 volume, partition 6 \(dos, start 5242880 bytes, sector 10240' -- \
	"${E[@]}" -v ls --key-file "$K" "$W/mbr.E01"
must_run "info on the MBR disk" "$W/info" -- "$E4DUMP" info "$W/mbr.qcow2" &&
	check "info: volume: partition 6" 'grep -qx "volume: partition 6 (dos, start 5242880 bytes, sector 10240, 4194304 bytes)" "$W/info"'
for o in "--offset 14336s" "--offset 7340032"; do
	rm -rf "$W/x"
	expect "two-ext4 E01 with $o" 0 '' -- "$E4DUMP" extract $o --key-file "$K" "$W/two.E01" -o "$W/x"
	check "two-ext4 E01 with $o: the kernel's manifest" 'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
done
must_run "info --offset" "$W/info" -- "$E4DUMP" info --offset 7340032 "$W/two.vmdk" &&
	check "info: volume: offset 7340032 bytes" 'grep -qx "volume: offset 7340032 bytes" "$W/info"'
must_run "ls --partition 1 of the two-ext4 disk" "$W/ls1" -- "$E4DUMP" ls "$W/two.qcow2" --partition 1 &&
	check "partition 1 is the plain ext4" 'grep -qx hello "$W/ls1"'
"$E4DUMP" verify --key-file "$K" "$W/sample.img" >"$W/verify.bare" 2>&1
"$E4DUMP" verify --partition 2 --key-file "$K" "$W/two.c.qcow2" >"$W/verify.p2" 2>&1
check "verify --partition 2 checks that volume: what it says of the bare image ($(cat "$W/verify.p2"))" \
	'[ -s "$W/verify.bare" ] && cmp -s "$W/verify.bare" "$W/verify.p2"'
must_run "info on the bare image" "$W/info" -- "$E4DUMP" info "$W/sample.img" &&
	check "info: volume: the whole image" 'grep -qx "volume: the whole image" "$W/info"'
expect "partition out of range" 2 'cannot open: EWF image: no partition 9 \(gpt: 2 partitions numbered 1, 2\)' -- \
	"$E4DUMP" ls --partition 9 "$W/gpt.E01"
expect "a partition that is not ext4" 2 'cannot open: partition 1: no ext2/3/4 superblock there \(swap\)' -- \
	"$E4DUMP" ls --partition 1 "$W/gpt.img"
expect "the extended partition" 2 'cannot open: QCOW image: partition 2: no ext2/3/4 superblock there \(an extended partition\)' -- \
	"$E4DUMP" ls --partition 2 "$W/mbr.qcow2"
expect "an offset that is not ext4" 2 'cannot open: offset 1048576 \(sector 2048\): no ext2/3/4 superblock there' -- \
	"$E4DUMP" ls --offset 2048s "$W/gpt.img"
expect "an offset past the end" 2 'cannot open: offset 17179869184 \(sector 33554432\): no ext2/3/4 superblock there' -- \
	"$E4DUMP" ls --offset 17179869184 "$W/gpt.img"
expect "--partition and --offset together" 2 'give one' -- \
	"$E4DUMP" ls --partition 2 --offset 0 "$W/gpt.img"
expect "--offset with a bad suffix" 2 'is not a number of bytes' -- "$E4DUMP" ls --offset 12k "$W/gpt.img"
expect "--partition 0" 2 'is not a partition number' -- "$E4DUMP" ls --partition 0 "$W/gpt.img"
cp "$W/gpt.img" "$W/swaponly.img" && dd if=/dev/zero of="$W/swaponly.img" bs=1M seek=5 count=4 conv=notrunc status=none
expect "a disk without ext4" 2 'cannot open: no ext4 superblock at offset 0 and no ext4 partition in its gpt table \(2 partitions; see e4dump volumes\)' -- \
	"$E4DUMP" ls "$W/swaponly.img"

# volumes --json: the same as the text, as records
"$E4DUMP" volumes --json "$W/mbr.E01" >"$W/vj" 2>&1
python3 - "$W/vj" "$(md5sum <"$W/mbr.img" | cut -c1-32)" >"$W/vjc" 2>&1 <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [o["type"] for o in r] == ["container", "table"] + ["volume"] * 4 + ["summary"], [o["type"] for o in r]
c, t, v = r[0], r[1], r[2:6]
assert c["kind"] == "EWF" and c["size"] == 16 << 20 and c["acquisition"]["stored md5"] == sys.argv[2]
assert t["scheme"] == "dos" and t["sector_size"] == 512
assert [(x["index"], x["start_sector"], x["length"]) for x in v] ==     [("1", 2048, 1 << 20), ("2", 4096, 12 << 20), ("5", 6144, 1 << 20), ("6", 10240, 4 << 20)]
assert v[1]["extended"] and v[3]["logical"] and v[3]["ext4"] and v[3]["encrypted_inodes"] == 8
assert v[2]["filesystem"] == "swap" and not v[2]["ext4"] and r[-1]["exit"] == 0
PY
rc=$?
check "volumes --json of the MBR E01: container, table, four volumes, summary ($(tail -1 "$W/vjc"))" '[ $rc = 0 ]'

# the E01's acquisition record, checked against md5sum of the raw disk
must_run "volumes of an E01" "$W/vol" -- "$E4DUMP" volumes "$W/gpt.E01" &&
	check "volumes: the stored MD5 is the raw disk's" \
		'grep -qx "  stored md5: $(md5sum <"$W/gpt.img" | cut -c1-32)" "$W/vol"' &&
	check "volumes: the case number" 'grep -qx "  case_number: case-gpt" "$W/vol"' &&
	check "volumes: the description" 'grep -qx "  description: gpt disk" "$W/vol"'

# Android sparse and split raw of the bare image; names that say nothing
# or hold '?' and spaces
cp "$W/sample.simg" "$W/odd ?name=1.bin"
for f in sample.simg "odd ?name=1.bin" split-sample/sample.raw.000; do
	rm -rf "$W/x"
	expect "$f: extract" 0 '' -- "$E4DUMP" extract --key-file "$K" "$W/$f" -o "$W/x"
	check "$f: the kernel's manifest" 'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
done
must_run "info of the sparse image" "$W/info" -- "$E4DUMP" info "$W/sample.simg" &&
	check "info: container: Android sparse" 'grep -qx "container: Android sparse" "$W/info"'
cp "$W/sample.simg" "$W/bad.simg"
printf '\377\377\377\177' | dd of="$W/bad.simg" bs=1 seek=32 conv=notrunc status=none # 1st chunk's blocks
expect "a sparse image with a corrupt chunk list" 2 'cannot open: Android sparse image container: ' -- \
	"$E4DUMP" ls "$W/bad.simg"
mkdir -p "$W/gap" && cp "$W"/split-gpt/gpt.00[13] "$W/gap/"
expect "split raw without its second segment: too short for its partitions" 2 'cannot open' -- \
	"$E4DUMP" ls "$W/gap/gpt.001"

# hostile variants (tests/cli/hostile_disks.py), each once a finding
H() { python3 "$top/tests/cli/hostile_disks.py" "$@" || give_up "hostile_disks.py $1"; }
H ebr-slot3 "$W/mbr.img" "$W/h-slot3.img"
H past-end "$W/mbr.img" "$W/h-pastend.img"
H gpt-alt-bad "$W/gpt.img" "$W/h-altbad.img"
H gpt-name-magic "$W/gpt.img" "$W/h-magic.img"
for f in h-slot3 h-pastend h-altbad h-magic; do
	rm -rf "$W/x"
	expect "$f: extract finds the ext4 partition as Linux would" 0 '' -- \
		"$E4DUMP" extract --key-file "$K" "$W/$f.img" -o "$W/x"
	check "$f: the kernel's manifest" 'check_extract -q "$S/sample.manifest" "$W/x" >/dev/null 2>&1'
done
must_run "volumes of a partition cut short" "$W/vol" -- "$E4DUMP" volumes "$W/h-pastend.img" &&
	check "it says what is missing" 'grep -qx "partition 6: 4194304 bytes of it lie past the end of the image" "$W/vol"'
H gpt-huge-array "$W/gpt.img" "$W/h-huge.img"
qemu-img convert -O qcow2 "$W/h-huge.img" "$W/h-huge.qcow2" && rm -f "$W/h-huge.img" || give_up "qemu-img (huge)"
/usr/bin/time -f %M -o "$W/rss" "$E4DUMP" volumes "$W/h-huge.qcow2" >"$W/vol" 2>&1
check "a GPT claiming 16M entries: refused, in bounded memory ($(cat "$W/rss") KiB)" \
	'grep -q "^note: a GPT header claims an entry array of more than 8 MiB: ignored" "$W/vol" && [ "$(tail -1 "$W/rss")" -lt 200000 ]'
H sparse-bs0 "$W/sample.simg" "$W/h-bs0.simg"
expect "sparse image of block size 0" 2 'cannot open: Android sparse image container: unsupported header' -- \
	"$E4DUMP" ls "$W/h-bs0.simg"
H sparse-chunks "$W/sample.simg" "$W/h-chunks.simg"
expect "sparse image claiming 2^20 chunks" 2 'cannot open: Android sparse image container: 1048576 chunks: more than 262144' -- \
	timeout 10 "$E4DUMP" ls "$W/h-chunks.simg"
mkdir -p "$W/fifo" && cp "$W/split-sample/sample.raw.000" "$W/fifo/d.000" && mkfifo "$W/fifo/d.001"
expect "a FIFO as a split raw segment: refused, not waited on" 2 'segment 2 .*: not a regular file or block device' -- \
	timeout 10 "$E4DUMP" ls "$W/fifo/d.000"
expect "a later segment given" 2 'split raw image: a later segment; its set starts at .*/sample\.raw\.000' -- \
	"$E4DUMP" ls "$W/split-sample/sample.raw.001"
mkdir -p "$W/dot" && cp "$W/sample.img" "$W/dot/.001"
(cd "$W/dot" && "$E4DUMP" ls .001 >/dev/null 2>&1)
rc=$?
check "a segment-like name with nothing before the dot: read as raw (libsmraw_glob crashed): exit $rc" '[ $rc = 0 ]'
check "every container file unchanged" '[ "$(sums)" = "$before" ]'
finish
