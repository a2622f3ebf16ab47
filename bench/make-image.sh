#!/bin/bash
# The benchmark's image: Linux 6.1 in QEMU writes one tree twice, under an
# encrypted /enc (v1 policy, AES-256-XTS/AES-256-CTS, name padding 32) and a
# plaintext /plain, with the same names and bytes (bench/README.md).
#
# Usage: bench/make-image.sh [--no-cache] SCALE OUT.img
#
#   SCALE    multiplies every number (a decimal, e.g. 1, 0.25, 0.01); at 1:
#            /large.bin 768 MiB, /small/ 30,000 files of 1-16 KiB in 100
#            directories, /empty-many/ 100,000 and /empty-few/ 10,000 empty
#            files (each count at least 1)
#   OUT.img  the image; also written: OUT.key (the raw 64-byte master key;
#            OUT is OUT.img less ".img"), OUT.img.manifest (counts only),
#            OUT.img.console.log, OUT.img.scn (the scenario)
#
# The image is cached in $E4DUMP_CACHE/bench/<key>/ (key: the scenario, which
# holds the scaled numbers, SCALE, the guest sources vm/guest/*, the kernel and
# vm/make-image.sh); a hit hard-links it (or copies it) at once.  The newest
# E4DUMP_BENCH_KEEP (default 3) cached images are kept.
set -u

die() { echo "bench/make-image: error: $*" >&2; exit 1; }
msg() { echo "bench/make-image: $*" >&2; }

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/bench/image-cache.sh"
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
use_cache=1
if [ "${1:-}" = --no-cache ]; then
	use_cache=0
	shift
fi
[ $# = 2 ] || die "usage: $0 [--no-cache] SCALE OUT.img"
scale=$1
out=$2
[[ $scale =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$scale" 'BEGIN { exit !(s > 0 && s <= 10) }' ||
	die "SCALE must be a number in (0, 10], not '$scale'"
keyout=$(image_keyout "$out")

# ---- the scenario ---------------------------------------------------------------
# The numbers at SCALE, and room for them: both trees' blocks (a small file
# takes 12 KiB on average) plus a margin for the journal, inode tables and
# directories; inodes for both trees plus a margin.
read -r large small dirs many few size_mib inodes < <(awk -v s="$scale" 'BEGIN {
	large = int(805306368 * s)
	small = int(30000 * s + 0.5); if (small < 1) small = 1
	dirs = int(100 * s + 0.5); if (dirs < 1) dirs = 1
	many = int(100000 * s + 0.5); if (many < 1) many = 1
	few = int(10000 * s + 0.5); if (few < 1) few = 1
	data = 2 * (large + small * 12288) / 1048576
	inodes = 2 * (small + dirs + many + few + 16) + 1024
	size = int(data * 1.15 + inodes * 256 / 1048576 + 96)
	printf "%d %d %d %d %d %d %d\n", large, small, dirs, many, few, size, inodes
}')
# the same SCALE gives the same image (image-cache.sh)
read -r keyhex desc < <(image_master_key)
scn=$(cat <<EOF
# bench/make-image.sh SCALE=$scale
@size ${size_mib}M
@mkfs -O encrypt -b 4096 -N $inodes -E lazy_itable_init=0,lazy_journal_init=0
key fscrypt $desc $keyhex
bench-tree enc $desc 1 4 3 $large $small $dirs $many $few
bench-tree plain plain $large $small $dirs $many $few
EOF
)

kernel=$(bash "$top/vm/build-kernel.sh" | tail -n1) || die "kernel build failed"
# (this script is not in the key: what it puts in the image is the scenario;
# bump the recipe when that changes otherwise)
ckey=$(image_cache_key "bench-image-1 $scale" "$scn" "$kernel")
cdir=$cache/bench/$ckey

mkdir -p "$cache/bench" || die "cannot create $cache/bench"
# One run per image at a time (a lock per key): a hit on another image
# does not wait for this one's minutes under TCG.  The directory's lock
# (fd 9) is held shared while an image is delivered and exclusively to
# prune, so that no image is removed while it is linked.
exec 8>"$cdir.lock"
flock 8
exec 9>"$cache/bench/.lock"
if [ $use_cache = 1 ] && [ -f "$cdir/.done" ]; then
	touch "$cdir/.done"
	flock -s 9
	image_deliver "$cdir" bench.scn "$out" "$keyout" || die "cannot deliver $cdir to $out"
	msg "cached: $out (SCALE $scale, $cdir)"
	exit 0
fi

rm -rf "$cdir"
mkdir -p "$cdir" || die "cannot create $cdir"
printf '%s\n' "$scn" >"$cdir/bench.scn"
msg "SCALE $scale: large.bin $large bytes, $small small files in $dirs directories," \
	"$many + $few empty files, twice; image ${size_mib} MiB, $inodes inodes"
t0=$(date +%s.%N)
# Under TCG the guest writes about 1.5 GiB and 280,000 entries at SCALE 1.
timeout=$(awk -v s="$scale" 'BEGIN { printf "%d", 300 + 2400 * s }')
image_generate "$cdir" bench.scn "$kernel" "$timeout" "$desc" || die "no image"
t1=$(date +%s.%N)

# Both trees were written from the same numbers: the manifest says so.
python3 - "$cdir/image.img.manifest" <<'EOF' || die "manifest: the trees differ"
import sys
recs = [l.split() for l in open(sys.argv[1]) if l.startswith("bench-tree ")]
enc = [r for r in recs if r[2] == "enc"]
plain = [r for r in recs if r[2] == "plain"]
if len(enc) != 1 or len(plain) != 1 or enc[0][-6:] != plain[0][-6:]:
    sys.exit(f"bench-tree records {recs}")
EOF
guest=$(grep -a -o 'bench-tree [a-z]*: .*' "$cdir/image.img.console.log" | tr -d '\r')
printf '%s\n' "$guest" >&2
image_done "$cdir" "$t0" "$t1"
msg "generated in $(cat "$cdir/generation-seconds") s ($(grep -o 'QEMU [0-9]* s' "$cdir/make-image.log"))"

# Keep the newest few finished images (a SCALE 1 image holds 2.3 GB; the
# journal images, j-*, are make-journal-image.sh's); one being made has no
# .done yet; skipped while another run delivers.
keep=${E4DUMP_BENCH_KEEP:-3}
if flock -n 9; then
	ls -1td "$cache/bench"/[0-9a-f]*/ 2>/dev/null | while read -r old; do
		[ -f "$old/.done" ] && echo "${old%/}"
	done | tail -n +$((keep + 1)) | while read -r old; do
		[ "$old" != "$cdir" ] && rm -rf "$old"
	done
fi
flock -s 9
image_deliver "$cdir" bench.scn "$out" "$keyout" || die "cannot deliver $cdir to $out"
echo "$out"
