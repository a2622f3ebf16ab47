#!/bin/bash
# The decoded-unit cache of the E01 and compressed qcow2 readers
# (source.c, e4_source_handles_cache: reads of less than two chunks or
# clusters served from whole decoded units, 8 MiB, LRU; larger reads
# straight through a library handle), read from 4 threads at
# random offsets and in order by tests/unit/source_cache.c, against the
# raw image's bytes:
#  - the sample (4 MiB, the kernel's ext4) as ewfacquire writes it by
#    default (deflate, 32 KiB chunks) and as a compressed qcow2;
#  - a 41 MiB image (not a whole number of chunks), more than the cache
#    holds (units are evicted and decoded again), of compressible
#    text, random bytes (stored uncompressed, with a checksum) and zeros,
#    as an E01 of 3 segments (reads across segments) and a compressed
#    qcow2, and as an uncompressed qcow2 (no cache: libqcow only copies);
#  - the same E01 with 8 KiB chunks and every 37th
#    chunk damaged (a byte flipped, evidence_craft.py): exactly the reads
#    that touch a damaged chunk (ewfverify's sectors) fail, the others
#    give the raw bytes (a damaged chunk is not cached: its reads fail
#    each time, those of its neighbours do not; evidence_e01.sh and
#    evidence_e01_chunks.sh check
#    what cat, extract and verify make of damaged chunks);
#  - verify through the sample's E01 finds nothing.
# usage: source_cache.sh E4DUMP WORKDIR SOURCE_CACHE
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
PROBE=$3
for t in ewfacquire ewfverify qemu-img; do
	command -v "$t" >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done
sample sample.img
CRAFT="python3 $top/tests/cli/evidence_craft.py"

# probe NAME ARGS...: source_cache ARGS passes
probe() {
	local name=$1
	shift
	if "$PROBE" "$@" >"$W/$name.out" 2>&1; then
		ok
		tail -1 "$W/$name.out"
	else
		bad "$name: $(tail -5 "$W/$name.out")"
	fi
}

ewfacquire -u -q -t "$W/sample" -f encase6 -c deflate:fast "$W/sample.img" \
	>"$W/acq.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$W/acq.log")"
qemu-img convert -c -O qcow2 "$W/sample.img" "$W/sample.qcow2" ||
	give_up "qemu-img convert"
probe "sample E01" "$W/sample.img" "$W/sample.E01"
probe "sample qcow2" "$W/sample.img" "$W/sample.qcow2"
expect "verify of the sample's E01" 0 '' -- "$E4DUMP" verify --key-file "$K" "$W/sample.E01"

python3 - "$W/mixed.img" <<'PY' || give_up "mixed.img"
import os, sys
with open(sys.argv[1], "wb") as f:
    for i in range(40 * 16):  # 64 KiB pieces
        k = i % 5
        if k in (0, 1):
            f.write(b"".join(b"piece %06d line %04d\n" % (i, j) for j in range(65536 // 22)).ljust(65536, b"."))
        elif k == 2:
            f.write(os.urandom(65536))
        elif k == 3:
            f.write(bytes(65536))
        else:
            f.write(bytes(range(256)) * 256)
PY
ewfacquire -u -q -t "$W/mixed" -f encase6 -c deflate:fast -S 4MiB "$W/mixed.img" \
	>"$W/acq.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$W/acq.log")"
check "the mixed image's E01 has 3 segments" '[ -f "$W/mixed.E03" ] && [ ! -f "$W/mixed.E04" ]'
qemu-img convert -c -O qcow2 "$W/mixed.img" "$W/mixed.qcow2" || give_up "qemu-img convert"
probe "mixed E01" "$W/mixed.img" "$W/mixed.E01"
probe "mixed qcow2" "$W/mixed.img" "$W/mixed.qcow2"
qemu-img convert -O qcow2 "$W/mixed.img" "$W/plain.qcow2" || give_up "qemu-img convert"
probe "mixed qcow2, uncompressed" -n "$W/mixed.img" "$W/plain.qcow2"

ewfacquire -u -q -t "$W/small" -f encase6 -c deflate:fast -b 16 "$W/mixed.img" \
	>"$W/acq.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$W/acq.log")"
$CRAFT e01-flip "$W/small.E01" "$W/bad.E01" 1:5119:37 >"$W/flips" ||
	give_up "evidence_craft.py e01-flip"
ewfverify -q "$W/bad.E01" >"$W/ewfverify.bad" 2>&1
sed -n 's/^[[:space:]]*at sector(s): \([0-9]*\) - \([0-9]*\) .*/\1 \2/p' "$W/ewfverify.bad" >"$W/ranges"
nr=$(wc -l <"$W/ranges")
check "ewfverify: $nr damaged ranges for $(wc -l <"$W/flips") chunks flipped" \
	'[ "$nr" -gt 100 ] && [ "$nr" = "$(wc -l <"$W/flips")" ]'
probe "damaged E01" "$W/mixed.img" "$W/bad.E01" "$W/ranges"
finish
