#!/bin/bash
# What a run of e4dump costs before it reads anything (issue 33, "a cheap
# start"): `e4dump --version` and `e4dump ls` of a tiny raw image (the
# kernel-written sample, 4 MiB), each run N times by two builds, BEFORE
# and AFTER, interleaved run by run so that both see the same machine
# load.  Prints, for each command and build, the median wall time with
# its spread (p10-p90, min-max), the shared objects the dynamic loader
# initialised in one run (LD_DEBUG=libs "calling init", dlopen'd ones
# included), and the load average before and after.
#
# usage: bench/start.sh [-n N] [-t TSV] BEFORE AFTER [IMAGE]
#   BEFORE, AFTER  e4dump binaries (e.g. main's build, or one configured
#                  with -DE4DUMP_DLOPEN=OFF, against this one)
#   IMAGE          a raw ext4 image (default: testvectors/sample's,
#                  decompressed into a temporary directory)
#   -n N           runs of each command and build (default 200)
#   -t TSV         also write per command and build: command, build, median
#                  ms, p10 ms, p90 ms, objects (for bench/latest.py)
# Never a timed test: a shared machine's figures vary with its load.
set -eu
n=200 tsv=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-t) tsv=$2; shift 2 ;;
	-*) echo "usage: $0 [-n N] [-t TSV] BEFORE AFTER [IMAGE]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: $0 [-n N] [-t TSV] BEFORE AFTER [IMAGE]" >&2; exit 2; }
before=$1 after=$2
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 3 ]; then
	img=$3
else
	img=$tmp/sample.img
	xz -dc "$top/testvectors/sample/sample.img.xz" >"$img"
fi
for b in "$before" "$after"; do
	"$b" ls "$img" >/dev/null || { echo "$b ls $img failed" >&2; exit 1; }
done

python3 - "$n" "$before" "$after" "$img" "$tmp" "$tsv" <<'EOF'
import os, statistics, subprocess, sys, time

n, before, after, img, tmp, tsv = (int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4],
                                   sys.argv[5], sys.argv[6])
builds = [("before", before), ("after", after)]
cmds = [("--version", ["--version"]), ("ls IMAGE", ["ls", img])]
null = os.open(os.devnull, os.O_WRONLY)

def objects(binary, args):
    """The objects the loader initialised in one run (dlopen'd included)."""
    log = os.path.join(tmp, "ld")
    for f in os.listdir(tmp):
        if f.startswith("ld."):
            os.unlink(os.path.join(tmp, f))
    env = dict(os.environ, LD_DEBUG="libs", LD_DEBUG_OUTPUT=log)
    subprocess.run([binary] + args, stdout=null, stderr=null, env=env)
    libs = set()
    for f in os.listdir(tmp):
        if f.startswith("ld."):
            for line in open(os.path.join(tmp, f)):
                if "calling init:" in line:
                    libs.add(line.split("calling init:")[1].strip().rsplit("/", 1)[-1])
    return libs

def once(binary, args):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(binary, [binary] + args, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                       (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    if status:
        sys.exit(f"{binary} {' '.join(args)}: exit status {status}")
    return (t1 - t0) / 1e6

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]

load0 = open("/proc/loadavg").read().split()[:3]
times = {(c, b): [] for c, _ in cmds for b, _ in builds}
for c, args in cmds:
    for _, binary in builds:            # warm the page cache
        for _ in range(5):
            once(binary, args)
    for i in range(n):
        order = builds if i % 2 == 0 else builds[::-1]
        for b, binary in order:
            times[(c, b)].append(once(binary, args))
load1 = open("/proc/loadavg").read().split()[:3]

print(f"bench/start.sh: {n} runs of each command and build, interleaved; "
      f"{os.cpu_count()} CPUs")
print(f"before: {before}")
print(f"after:  {after}")
print(f"image:  {img} ({os.path.getsize(img)} bytes)")
print(f"load average (1, 5, 15 min): {' '.join(load0)} at the start, "
      f"{' '.join(load1)} at the end")
print()
print(f"{'command':<11} {'build':<7} {'median ms':>9} {'p10-p90 ms':>13} "
      f"{'min-max ms':>13} {'objects':>7}")
seen = {}
rows = open(tsv, "w") if tsv else None
for c, args in cmds:
    for b, binary in builds:
        v = times[(c, b)]
        libs = objects(binary, args)
        seen[(c, b)] = libs
        if rows:
            rows.write(f"{c}\t{b}\t{statistics.median(v):.3f}\t{pct(v, .1):.3f}\t"
                       f"{pct(v, .9):.3f}\t{len(libs)}\n")
        print(f"{c:<11} {b:<7} {statistics.median(v):9.2f} "
              f"{pct(v, .1):6.2f}-{pct(v, .9):<6.2f} {min(v):6.2f}-{max(v):<6.2f} "
              f"{len(libs):7d}")
print()
for c, _ in cmds:
    gone = sorted(seen[(c, "before")] - seen[(c, "after")])
    new = sorted(seen[(c, "after")] - seen[(c, "before")])
    print(f"{c}: not loaded after: {' '.join(gone) or '-'}")
    if new:
        print(f"{c}: loaded only after: {' '.join(new)}")
EOF
