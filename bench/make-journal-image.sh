#!/bin/bash
# The journal benchmark's image (issue 33, "the journal at scale";
# bench/README.md): Linux 6.1 in QEMU, a 1 GiB jbd2 journal that wraps
# several times over tens of thousands of transactions, with tens of
# thousands of deletions of small encrypted and plaintext files.
#
# Usage: bench/make-journal-image.sh [--no-cache] [ROUNDS] OUT.img
#
#   ROUNDS   journal-churn rounds (default 40000): each round makes 2
#            encrypted and 2 plaintext files of 1..49152 bytes, deletes those
#            of the round 64 before and syncs (a transaction); mounted
#            data=journal,nobarrier, so the plaintext data goes through the
#            journal (about 22 journal blocks a round): 40000 rounds made
#            40002 transactions, the 1 GiB journal wrapped 3.6 times and
#            11054 remain
#   OUT.img  the image; also written: OUT.key (the raw 64-byte master key of
#            the v1 policy of /jenc), OUT.img.manifest, OUT.img.console.log,
#            OUT.img.scn
#
# Cached like bench/make-image.sh's images, in $E4DUMP_CACHE/bench/j-<key>/
# (key: the scenario, the guest sources vm/guest/*, the kernel and
# vm/make-image.sh); a hit hard-links it (or copies it).  The newest
# E4DUMP_BENCH_KEEP (default 3) journal images are kept.
set -u

die() { echo "bench/make-journal-image: error: $*" >&2; exit 1; }
msg() { echo "bench/make-journal-image: $*" >&2; }

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/bench/image-cache.sh"
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
use_cache=1
if [ "${1:-}" = --no-cache ]; then
	use_cache=0
	shift
fi
rounds=40000
if [ $# = 2 ]; then
	rounds=$1
	shift
fi
[ $# = 1 ] || die "usage: $0 [--no-cache] [ROUNDS] OUT.img"
[[ $rounds =~ ^[1-9][0-9]{0,6}$ ]] || die "ROUNDS must be a number, not '$rounds'"
out=$1
keyout=$(image_keyout "$out")

# the same fixed key as bench/make-image.sh (image-cache.sh)
read -r keyhex desc < <(image_master_key)
scn=$(cat <<EOF
# bench/make-journal-image.sh ROUNDS=$rounds
@size 2560M
@mkfs -O encrypt -b 4096 -N 65536 -J size=1024 -E lazy_itable_init=0,lazy_journal_init=0
key fscrypt $desc $keyhex
remount data=journal,nobarrier
journal-churn jenc $desc 1 4 3 jplain $rounds 2 2 49152 64
EOF
)

kernel=$(bash "$top/vm/build-kernel.sh" | tail -n1) || die "kernel build failed"
ckey=$(image_cache_key "journal-image-1" "$scn" "$kernel")
cdir=$cache/bench/j-$ckey

mkdir -p "$cache/bench" || die "cannot create $cache/bench"
# a lock per image, as bench/make-image.sh's: a run of half an hour must
# not hold up the other images' hits (the cache's pruning never removes
# a j-* directory)
exec 8>"$cdir.lock"
flock 8
if [ $use_cache = 1 ] && [ -f "$cdir/.done" ]; then
	touch "$cdir/.done"
	image_deliver "$cdir" journal.scn "$out" "$keyout" || die "cannot deliver $cdir to $out"
	msg "cached: $out ($rounds rounds, $cdir)"
	exit 0
fi

rm -rf "$cdir"
mkdir -p "$cdir" || die "cannot create $cdir"
printf '%s\n' "$scn" >"$cdir/journal.scn"
msg "$rounds rounds of journal-churn, 1 GiB journal"
t0=$(date +%s.%N)
# measured (load 2.5-4.8 on 2 cores): about 60 rounds/s until the journal
# first wraps (about 12000 rounds), then 26-28 (why is not established; a
# 256 MiB journal kept 66 throughout); 40000 rounds took 1750 s of QEMU
timeout=$((300 + rounds / 10))
image_generate "$cdir" journal.scn "$kernel" "$timeout" "$desc" || die "no image"
t1=$(date +%s.%N)
grep -q "^journal-churn jenc jplain $rounds " "$cdir/image.img.manifest" ||
	die "no journal-churn record in the manifest"
grep -a -o 'journal-churn: .*' "$cdir/image.img.console.log" | tr -d '\r' | tail -n 3 >&2
image_done "$cdir" "$t0" "$t1"
msg "generated in $(cat "$cdir/generation-seconds") s ($(grep -o 'QEMU [0-9]* s' "$cdir/make-image.log"))"

keep=${E4DUMP_BENCH_KEEP:-3}
ls -1td "$cache/bench"/j-*/ 2>/dev/null | tail -n +$((keep + 1)) | while read -r old; do
	[ "${old%/}" != "$cdir" ] && rm -rf "$old"
done
image_deliver "$cdir" journal.scn "$out" "$keyout" || die "cannot deliver $cdir to $out"
echo "$out"
