#!/bin/bash
# Container files that are not what they claim, made from what qemu-img,
# ewfacquire and split wrote (containers_hostile.py patches them):
#  - a qcow2 table entry (an L2 table, a data cluster) in the file's final
#    512 bytes, the file a multiple of the cluster size, 64 KiB and 2 MiB
#    clusters: a clear error, never exit 0 with other bytes (the base
#    printed the process's heap as the file), no sanitizer report;
#  - an E01 set whose second segment is another acquisition's (its set
#    identifier differs, the geometry is the same): refused, naming it;
#  - a later E01 segment, a split raw member, a VMDK extent file that is a
#    symbolic link to a file elsewhere: refused, naming it (the name the
#    examiner gave may be one);
#  - a FIFO as a later E01 segment, a VMDK extent file, or the image
#    itself: refused at once, naming it (under timeout: a hang fails).
# The expected bytes are the files mke2fs -d was given.
# usage: containers_hostile.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
CRAFT="python3 $top/tests/cli/containers_hostile.py"
for t in ewfacquire qemu-img mke2fs debugfs split; do
	command -v $t >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done

# a small ext4 volume: /h is text whose every byte is known
mkdir -p "$W/src"
python3 -c 'import sys; sys.stdout.buffer.write(b"".join(b"evidence line %06d\n" % i for i in range(2000)))' >"$W/src/h"
head -c 1500000 /dev/urandom >"$W/src/big"
mke2fs -q -F -b 4096 -t ext4 -d "$W/src" "$W/vol.raw" 8M >"$W/mke2fs.log" 2>&1 ||
	give_up "mke2fs: $(tail -3 "$W/mke2fs.log")"
# where /h's first block is (debugfs, not e4dump)
blk=$(debugfs -R "bmap /h 0" "$W/vol.raw" 2>/dev/null)
check "debugfs maps /h ($blk)" '[ "${blk:-0}" -gt 0 ] 2>/dev/null'
guest=$((blk * 4096))

# Every refusal: exit 2 ("cannot open"), nothing on stdout, the reason
refused() { # NAME RE CMD...
	local name=$1 re=$2
	shift 2
	expect "$name" 2 "$re" -- timeout 20 "$@"
	check "$name: nothing on stdout" '[ ! -s "$W/out" ]'
}

# -- qcow2 tables in the file's final bytes
for cs in 64K 2M; do
	qemu-img convert -O qcow2 -o cluster_size=$cs "$W/vol.raw" "$W/c$cs.qcow2" ||
		give_up "qemu-img convert cluster_size=$cs"
	must_run "qcow2 ($cs clusters): cat /h" "$W/h.$cs" -- "$E4DUMP" cat "$W/c$cs.qcow2" /h &&
		check "qcow2 ($cs clusters): /h is mke2fs's" 'cmp -s "$W/h.$cs" "$W/src/h"'
	for what in l2 data; do
		t=$W/$what-$cs.qcow2
		$CRAFT qcow-tail "$W/c$cs.qcow2" "$t" $what $guest || give_up "craft $what-$cs"
		check "$what-$cs: a multiple of the cluster size" \
			'[ $(( $(stat -c %s "$t") % $(numfmt --from=iec $cs) )) = 0 ]'
		refused "qcow2 ($cs clusters), the $what entry of /h in the final bytes" \
			'QCOW container: L[12] (entry|table).*(runs past the end of the file|is not at a cluster boundary)' \
			"$E4DUMP" cat "$t" /h
	done
done

# -- an E01 set with a segment of another acquisition
ewf() { # TARGET RAW CASE
	ewfacquire -u -q -t "$1" -f encase6 -c none -S 1048576 -C "$3" -E ev -e examiner \
		-D vol -N notes "$2" >"$1.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$1.log")"
}
# the second acquisition: the same geometry, other bytes in its second
# segment (the first MiB of /big changed)
cp "$W/vol.raw" "$W/vol2.raw"
bigblk=$(debugfs -R "bmap /big 100" "$W/vol.raw" 2>/dev/null)
dd if=/dev/urandom of="$W/vol2.raw" bs=4096 seek="${bigblk:-300}" count=64 conv=notrunc status=none
mkdir -p "$W/a" "$W/b"
ewf "$W/a/set" "$W/vol.raw" case-a
ewf "$W/b/set" "$W/vol2.raw" case-b
check "the sets have several segments" '[ -f "$W/a/set.E03" ] && [ -f "$W/b/set.E03" ]'
# EnCase gives each acquisition a random set identifier
$CRAFT ewf-guid "$W"/a/set.E?? 0f1e2d3c4b5a69788796a5b4c3d2e1f0 &&
	$CRAFT ewf-guid "$W"/b/set.E?? 00112233445566778899aabbccddeeff || give_up "ewf-guid"
cmp -s "$W/a/set.E02" "$W/b/set.E02"
check "the second segments differ" '[ $? = 1 ]'
must_run "E01 set: cat /big" "$W/big.a" -- "$E4DUMP" cat "$W/a/set.E01" /big &&
	check "E01 set: /big is mke2fs's" 'cmp -s "$W/big.a" "$W/src/big"'
must_run "E01 set: volumes" "$W/vol.a" -- "$E4DUMP" volumes "$W/a/set.E01" &&
	check "E01 set: volumes shows the set identifier" \
		'grep -qx "  set identifier: 0f1e2d3c4b5a69788796a5b4c3d2e1f0" "$W/vol.a"'
mkdir -p "$W/mixed" && cp "$W"/a/set.E?? "$W/mixed/" && cp "$W/b/set.E02" "$W/mixed/set.E02"
refused "E01 set with another acquisition's second segment: refused, naming it" \
	'segment 2 \(.*mixed/set.E02\) belongs to another set: its set identifier 00112233445566778899aabbccddeeff' \
	"$E4DUMP" cat "$W/mixed/set.E01" /big
# a segment that says it is another
mkdir -p "$W/renum" && cp "$W"/a/set.E?? "$W/renum/" && cp "$W/a/set.E03" "$W/renum/set.E02"
refused "E01 set with segment 3 as its second: refused" \
	'segment 2 \(.*renum/set.E02\): its header says it is segment 3' \
	"$E4DUMP" info "$W/renum/set.E01"

# -- symbolic links among the members
mkdir -p "$W/elsewhere" "$W/lnk"
cp "$W/a/set.E02" "$W/elsewhere/set.E02"
cp "$W"/a/set.E?? "$W/lnk/" && ln -sf "$W/elsewhere/set.E02" "$W/lnk/set.E02"
refused "E01 set: a symlinked second segment is refused, named" \
	'segment 2 \(.*lnk/set.E02\): a symbolic link' "$E4DUMP" cat "$W/lnk/set.E01" /h
# the name the examiner gives may be a symbolic link
mkdir -p "$W/given" && cp "$W"/a/set.E0[2-9] "$W/given/" && ln -s "$W/a/set.E01" "$W/given/set.E01"
must_run "E01 set named through a symbolic link: cat /h" "$W/h.given" -- "$E4DUMP" cat "$W/given/set.E01" /h &&
	check "E01 set named through a symbolic link: /h is mke2fs's" 'cmp -s "$W/h.given" "$W/src/h"'

mkdir -p "$W/split"
split -d -a 3 --numeric-suffixes=1 -b 3M "$W/vol.raw" "$W/split/d." || give_up split
must_run "split raw: cat /h" "$W/h.split" -- "$E4DUMP" cat "$W/split/d.001" /h &&
	check "split raw: /h is mke2fs's" 'cmp -s "$W/h.split" "$W/src/h"'
mv "$W/split/d.002" "$W/elsewhere/d.002" && ln -s "$W/elsewhere/d.002" "$W/split/d.002"
refused "split raw: a symlinked member is refused, named" \
	'segment 2 \(.*split/d.002\): a symbolic link' "$E4DUMP" cat "$W/split/d.001" /h

mkdir -p "$W/vmdk"
qemu-img convert -O vmdk -o subformat=twoGbMaxExtentFlat "$W/vol.raw" "$W/vmdk/v.vmdk" ||
	give_up "qemu-img convert vmdk"
ext=$(ls "$W/vmdk" | grep -v '^v.vmdk$' | head -1)
must_run "VMDK with an extent file: cat /h" "$W/h.vmdk" -- "$E4DUMP" cat "$W/vmdk/v.vmdk" /h &&
	check "VMDK with an extent file: /h is mke2fs's" 'cmp -s "$W/h.vmdk" "$W/src/h"'
mv "$W/vmdk/$ext" "$W/elsewhere/$ext" && ln -s "$W/elsewhere/$ext" "$W/vmdk/$ext"
refused "VMDK: a symlinked extent file is refused, named" \
	"extent file 1 \\(.*vmdk/$ext\\): a symbolic link" "$E4DUMP" cat "$W/vmdk/v.vmdk" /h

# -- FIFOs: open() would wait for a writer
mkdir -p "$W/fifo-e01" && cp "$W"/a/set.E?? "$W/fifo-e01/" && rm "$W/fifo-e01/set.E02" &&
	mkfifo "$W/fifo-e01/set.E02"
refused "E01 set: a FIFO as the second segment is refused at once" \
	'segment 2 \(.*fifo-e01/set.E02\): not a regular file or block device' \
	"$E4DUMP" cat "$W/fifo-e01/set.E01" /h
rm "$W/vmdk/$ext" && mkfifo "$W/vmdk/$ext"
refused "VMDK: a FIFO as the extent file is refused at once" \
	"extent file 1 \\(.*vmdk/$ext\\): not a regular file or block device" \
	"$E4DUMP" cat "$W/vmdk/v.vmdk" /h
mkfifo "$W/image.fifo"
for cmd in info ls; do
	refused "a FIFO as the image ($cmd): refused at once" 'image.fifo' "$E4DUMP" $cmd "$W/image.fifo"
done

finish
