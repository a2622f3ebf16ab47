#!/bin/bash
# keyscan against aeskeyfind (Debian package aeskeyfind) on the same RAM
# capture, side by side in one run: each tool N times (alternating, so
# that the machine's load falls on both alike), wall and CPU seconds and
# peak RSS from GNU time; the table gives medians with the spread (min ..
# max), the throughput in MiB/s of the capture's size, and the ratio.
# The page cache is warmed first (one read of the capture), so both read
# from memory.  aeskeyfind -q: its default output (every key schedule it
# finds, also AES keys fscrypt never used) is what it does; -q only
# leaves out the progress.
# usage: bench/keyscan.sh [-n N] E4DUMP CAPTURE [IMAGE]
#   IMAGE: keyscan --image IMAGE (the confirmation against its policies
#   is then part of what is timed, as an examiner runs it)
set -eu
n=3
[ "${1:-}" = -n ] && { n=$2; shift 2; }
[ $# -ge 2 ] || { sed -n '2,15p' "$0"; exit 2; }
e4dump=$1 capture=$2 image=${3:-}
for t in aeskeyfind /usr/bin/time python3; do
	command -v "$t" >/dev/null || { echo "keyscan.sh: $t missing (scripts/install-deps.sh)" >&2; exit 2; }
done
size=$(stat -c %s "$capture")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat "$capture" >/dev/null
run() { # NAME I CMD...
	local name=$1 i=$2
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$out/$name.$i.time" "$@" >"$out/$name.$i.out" 2>"$out/$name.$i.err" || true
}
for i in $(seq 1 "$n"); do
	run keyscan "$i" "$e4dump" keyscan ${image:+--image "$image"} "$capture"
	run aeskeyfind "$i" aeskeyfind -q "$capture"
done
echo "capture: $capture ($size bytes)$([ -n "$image" ] && echo ", keyscan --image $image")"
echo "commit: $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), $n runs each, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$n" "$size" <<'EOF'
import statistics, sys
out, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
res = {}
for tool in ("keyscan", "aeskeyfind"):
    rows = [list(map(float, open(f"{out}/{tool}.{i}.time").read().split()[-4:])) for i in range(1, n + 1)]
    res[tool] = rows
    wall = [r[0] for r in rows]; cpu = [r[1] + r[2] for r in rows]; rss = [r[3] / 1024 for r in rows]
    med = statistics.median(wall)
    print(f"{tool:11s} wall {med:8.2f} s ({min(wall):.2f} .. {max(wall):.2f})  cpu {statistics.median(cpu):8.2f} s"
          f"  {size / 1048576 / med if med else float('inf'):9.1f} MiB/s  peak RSS {max(rss):7.1f} MiB")
k = statistics.median(r[0] for r in res["keyscan"])
a = statistics.median(r[0] for r in res["aeskeyfind"])
print(f"throughput ratio keyscan/aeskeyfind (median wall): {a / k if k else float('inf'):.1f}x")
EOF
echo "keyscan's output (last run):"
cat "$out/keyscan.$n.out"
echo "aeskeyfind's output (last run): $(grep -c . "$out/aeskeyfind.$n.out" || true) lines"
