#!/bin/bash
# Containers, recognised by content: the kernel-written sample as an E01
# (deflate "fast", one segment; and uncompressed in 1 MiB segments), a
# qcow2 and a compressed qcow2, a VMDK, a VHDX, a dynamic and a fixed VHD
# (qemu-img), also under names that say nothing of their kind.  Each
# extracts to the kernel's manifest, info names the container, and every
# container file is left unchanged.  A
# missing E01 segment, a truncated E01, a corrupt qcow2 header, a qcow2
# with a backing file and a VMDK with a parent are errors that name the
# container; a kind not read (VirtualBox VDI) says which are.
# usage: containers.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample sample.img
for t in ewfacquire qemu-img; do
	command -v $t >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done
ewf() { # TARGET ARGS...: ewfacquire, unattended
	local t=$1
	shift
	ewfacquire -u -q -t "$t" -f encase6 -C case-7 -E ev-7 -e examiner -D sample \
		-N notes "$@" "$W/sample.img" >"$t.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$t.log")"
}
ewf "$W/fast" -c deflate:fast
ewf "$W/seg" -c none -S 1048576
qemu-img convert -O qcow2 "$W/sample.img" "$W/q.qcow2" &&
	qemu-img convert -c -O qcow2 "$W/sample.img" "$W/qc.qcow2" &&
	qemu-img convert -O vmdk "$W/sample.img" "$W/s.vmdk" &&
	qemu-img convert -O vhdx "$W/sample.img" "$W/s.vhdx" &&
	qemu-img convert -O vpc "$W/sample.img" "$W/dyn.vhd" &&
	qemu-img convert -O vpc -o subformat=fixed "$W/sample.img" "$W/fixed.vhd" ||
	give_up "qemu-img convert"
# names that do not tell the kind: detection is by content
cp "$W/fast.E01" "$W/evidence.bin"
cp "$W/q.qcow2" "$W/disk.raw"
nseg=$(ls "$W"/seg.E?? | wc -l)
check "several segments made ($nseg)" '[ "$nseg" -ge 3 ]'

sums() { sha256sum "$W"/fast.E01 "$W"/seg.E?? "$W"/*.qcow2 "$W"/s.vmdk "$W"/*.vhd* \
	"$W"/evidence.bin "$W"/disk.raw; }
before=$(sums)
for c in "fast.E01:EWF" "seg.E01:EWF" "evidence.bin:EWF" "q.qcow2:QCOW" "qc.qcow2:QCOW" \
	"disk.raw:QCOW" "s.vmdk:VMDK" "s.vhdx:VHDX" "dyn.vhd:VHD" "fixed.vhd:VHD" "sample.img:raw"; do
	f=${c%%:*} kind=${c##*:}
	rm -rf "$W/x"
	expect "$f: extract" 0 '' -- "$E4DUMP" extract --key-file "$K" "$W/$f" -o "$W/x"
	check "$f: the kernel's manifest" \
		'check_extract -q "$S/sample.manifest" "$W/x" >"$W/check" 2>&1 || { head -3 "$W/check"; false; }'
	must_run "$f: info" "$W/info" -- "$E4DUMP" info "$W/$f" &&
		check "$f: info says container: $kind" 'grep -qx "container: $kind" "$W/info"'
done
check "every container file unchanged" '[ "$(sums)" = "$before" ]'

# Several threads read at once, each through its own library handle
# (source.c e4_source_handles): cat of a 12 MiB file in parallel segments
# gives the bytes mkfs.ext4 -d was given, from each container.
mkdir -p "$W/bigsrc"
head -c 12582912 /dev/urandom >"$W/bigsrc/big"
mkfs.ext4 -q -F -b 4096 -d "$W/bigsrc" "$W/big.img" 32M >/dev/null 2>&1 || give_up "mkfs.ext4 -d"
ewfacquire -u -q -t "$W/big" -f encase6 -c deflate:fast "$W/big.img" >"$W/big.log" 2>&1 &&
	qemu-img convert -O qcow2 "$W/big.img" "$W/big.qcow2" &&
	qemu-img convert -O vmdk "$W/big.img" "$W/big.vmdk" &&
	qemu-img convert -O vhdx "$W/big.img" "$W/big.vhdx" || give_up "containers of big.img"
want=$(sha256sum <"$W/bigsrc/big")
for f in big.E01 big.qcow2 big.vmdk big.vhdx; do
	"$E4DUMP" cat --threads 3 "$W/$f" /big >"$W/cat" 2>"$W/err"
	rc=$?
	check "$f: cat --threads 3: exit 0 ($rc), the source's bytes" \
		'[ $rc = 0 ] && [ "$(sha256sum <"$W/cat")" = "$want" ] && ! [ -s "$W/err" ]'
done
# an E01 of many segments: each reading thread's handle keeps them all
# open, so e4dump raises its soft limit on open files to the hard one;
# where even that is too low, threads share the handles there are
ewfacquire -u -q -t "$W/bigm" -f encase6 -c none -S 1048576 "$W/big.img" >"$W/bigm.log" 2>&1 ||
	give_up "ewfacquire -S 1 MiB"
nbigm=$(ls "$W"/bigm.E?? | wc -l)
for lim in "-S -n 24" "-n 48"; do
	(ulimit $lim && "$E4DUMP" cat --threads 3 "$W/bigm.E01" /big >"$W/cat" 2>"$W/err")
	rc=$?
	check "$nbigm-segment E01 under ulimit $lim: cat --threads 3: exit 0 ($rc), the bytes" \
		'[ $rc = 0 ] && [ "$(sha256sum <"$W/cat")" = "$want" ] && ! [ -s "$W/err" ]'
done
opens() { # THREADS: how often the E01 is opened by cat --threads THREADS
	strace -f -e trace=openat -o "$W/strace" "$E4DUMP" cat --threads "$1" "$W/big.E01" /big >/dev/null 2>&1
	grep -c 'big\.E01", O_RDONLY' "$W/strace"
}
one=$(opens 1) three=$(opens 3)
check "cat --threads 3 opens more E01 handles than --threads 1 ($three, $one)" '[ "$three" -gt "$one" ]'

# the errors
mkdir -p "$W/miss"
cp "$W"/seg.E?? "$W/miss/" && rm "$W/miss/seg.E02"
expect "E01 without its second segment" 2 '^e4dump: error: .*/miss/seg\.E01: cannot open: EWF \(E01/S01\) container: ' -- \
	"$E4DUMP" ls --key-file "$K" "$W/miss/seg.E01"
head -c 20000 "$W/fast.E01" >"$W/trunc.E01"
expect "truncated E01" 2 '^e4dump: error: .*/trunc\.E01: cannot open: EWF \(E01/S01\) container: ' -- \
	"$E4DUMP" ls --key-file "$K" "$W/trunc.E01"
cp "$W/q.qcow2" "$W/bad.qcow2"
printf '\377\377\377\377' | dd of="$W/bad.qcow2" bs=1 seek=4 conv=notrunc status=none # version
expect "qcow2 with a corrupt header" 2 '^e4dump: error: .*/bad\.qcow2: cannot open: QCOW container: ' -- \
	"$E4DUMP" ls --key-file "$K" "$W/bad.qcow2"
qemu-img create -q -f qcow2 -b "$W/q.qcow2" -F qcow2 "$W/diff.qcow2" || give_up "qemu-img create -b"
expect "differential qcow2: refused, not read as zeros" 2 '^e4dump: error: .*/diff\.qcow2: cannot open: QCOW container: a differential image \(it has a backing file\): not supported' -- \
	"$E4DUMP" ls "$W/diff.qcow2"
qemu-img create -q -f vmdk -b "$W/s.vmdk" -F vmdk "$W/diff.vmdk" || give_up "qemu-img create -b (vmdk)"
expect "differential VMDK: refused" 2 '^e4dump: error: .*/diff\.vmdk: cannot open: VMDK \(.*\) container: a differential disk \(it has a parent\): not supported' -- \
	"$E4DUMP" ls "$W/diff.vmdk"
qemu-img convert -O vdi "$W/sample.img" "$W/s.vdi" || give_up "qemu-img convert -O vdi"
expect "VirtualBox VDI: not supported, says what is" 2 '^e4dump: error: .*/s\.vdi: cannot open: VirtualBox VDI: not supported \(supported: raw images, split raw .*EWF .*QCOW.*VMDK and Android sparse images\)' -- \
	"$E4DUMP" ls "$W/s.vdi"
finish
