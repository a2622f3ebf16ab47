#!/bin/bash
# The journal at scale (issue 33 item 3; bench/README.md): e4dump journal
# and undelete on a large, wrapped jbd2 journal against The Sleuth Kit's jls,
# ext4magic -r and extundelete --restore-all, side by side in one run.
#
# Usage: bench/journal.sh [-n N] [-w DIR] [-label TEXT] [-base E4DUMP_BEFORE]
#                         E4DUMP IMAGE KEY
#
#   -n N       repetitions (default 5); the sides of a workload run one after
#              the other, in reversed order every other repetition
#   -w DIR     work directory, emptied first (default /dev/shm/e4dump-jbench)
#   -label T   printed with the results (say which commit E4DUMP is)
#   -base B    another e4dump build (the one before a change) as one more
#              side of both workloads (e4dump-base), in the same repetitions
#   IMAGE/KEY  bench/make-journal-image.sh's image and key
#
# Every timed run: the image read first (warm page cache, untimed), then
# /usr/bin/time -f '%e %U %S %M' around the command alone; outputs removed
# and synced after it, untimed.  Raw rows: DIR/journal.tsv (workload, side,
# repetition, wall s, user s, sys s, peak RSS KiB, exit status, outputs).
# The other tools recover no encrypted names: only time and memory compare.
set -u

die() { echo "bench/journal: error: $*" >&2; exit 2; }
n=5 work=/dev/shm/e4dump-jbench label= base=
while [ $# -gt 0 ]; do
	case $1 in
		-n) n=$2; shift 2 ;;
		-w) work=$2; shift 2 ;;
		-label) label=$2; shift 2 ;;
		-base) base=$(readlink -f "$2"); shift 2 ;;
		-*) die "unknown option $1" ;;
		*) break ;;
	esac
done
[ $# = 3 ] || die "usage: $0 [-n N] [-w DIR] [-label TEXT] E4DUMP IMAGE KEY"
e4dump=$(readlink -f "$1") image=$(readlink -f "$2") key=$(readlink -f "$3")
[ -x "$e4dump" ] && [ -f "$image" ] && [ -f "$key" ] || die "E4DUMP, IMAGE or KEY missing"
[ -z "$base" ] || [ -x "$base" ] || die "-base: no $base"
for t in /usr/bin/time jls ext4magic extundelete python3; do
	command -v "$t" >/dev/null || die "$t not installed (scripts/install-deps.sh)"
done
[[ $n =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive number"

rm -rf "$work" && mkdir -p "$work" || die "cannot make $work"
tsv=$work/journal.tsv
: >"$tsv"
loadlog=$work/load.txt
sample_load() { echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)" >>"$loadlog"; }

warm() { dd if="$image" of=/dev/null bs=4M status=none; }

# the command of a side; it runs in $work/out (made empty), its stdout and
# stderr to $work/out.txt (journal's to /dev/null: that is the workload)
side_cmd() { # WORKLOAD SIDE
	case $1/$2 in
		journal/e4dump) cmd=("$e4dump" journal --json "$image") ;;
		journal/jls) cmd=(jls "$image") ;;
		journal/e4dump-base) cmd=("$base" journal --json "$image") ;;
		undelete/e4dump-base) cmd=("$base" undelete -o "$work/out/r" --key-file "$key" "$image") ;;
		undelete/e4dump) cmd=("$e4dump" undelete -o "$work/out/r" --key-file "$key" "$image") ;;
		# -a: every time since 2001; no -b: ext4magic searches the
		# journal only with "before" at its default, the current second
		# (-b even 2 s after or 6 s before it recovered nothing here)
		undelete/ext4magic) cmd=(ext4magic "$image" -r -a 1000000000 -d "$work/out/r") ;;
		# extundelete wants its output directory made
		undelete/extundelete) mkdir "$work/out/r"
			cmd=(extundelete --restore-all -o "$work/out/r" "$image") ;;
	esac
}

measure() { # WORKLOAD SIDE REP
	local w=$1 s=$2 r=$3 tf=$work/time.txt rc files
	rm -rf "$work/out" && mkdir -p "$work/out"
	cd "$work/out" || die "cd $work/out"
	warm
	side_cmd "$w" "$s"
	[ -n "${JBENCH_DEBUG:-}" ] && echo "  cmd: ${cmd[*]}" >&2
	if [ "$w" = journal ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$tf" "${cmd[@]}" >/dev/null 2>"$work/out.txt"
	else
		/usr/bin/time -f '%e %U %S %M' -o "$tf" "${cmd[@]}" >"$work/out.txt" 2>&1
	fi
	rc=$?
	cd "$work" || die "cd $work"
	files=-
	[ -d "$work/out/r" ] && files=$(find "$work/out/r" -type f | wc -l)
	[ $r = 1 ] && [ -f "$work/out.txt" ] && cp "$work/out.txt" "$work/$w-$s.out.txt"
	# the last line of time's output (a killed command adds a line before it)
	read -r wall user sys rss < <(tail -n1 "$tf")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$s" "$r" "$wall" "$user" "$sys" "$rss" "$rc" "$files" >>"$tsv"
	echo "  $w $s rep $r: ${wall}s ${rss}KiB exit $rc files $files" >&2
	rm -rf "$work/out" "$work/out.txt"
	sync
}

# untimed facts about the journal, for the report
"$e4dump" journal "$image" 2>/dev/null | sed -n '1,4p' >"$work/journal-summary.txt"
jls "$image" 2>/dev/null | awk '/Commit Block/ { c++ } /FS Block/ { b++ } END { printf "jls: %d commit blocks, %d FS block lines\n", c, b }' \
	>>"$work/journal-summary.txt"

sample_load
for r in $(seq 1 "$n"); do
	echo "repetition $r of $n" >&2
	if [ $((r % 2)) = 1 ]; then
		jsides="e4dump jls" usides="e4dump ext4magic extundelete"
	else
		jsides="jls e4dump" usides="extundelete ext4magic e4dump"
	fi
	if [ -n "$base" ]; then
		if [ $((r % 2)) = 1 ]; then
			jsides="$jsides e4dump-base" usides="$usides e4dump-base"
		else
			jsides="e4dump-base $jsides" usides="e4dump-base $usides"
		fi
	fi
	for s in $jsides; do measure journal "$s" "$r"; done
	for s in $usides; do measure undelete "$s" "$r"; done
	sample_load
done

python3 - "$tsv" "$work/journal-summary.txt" "$loadlog" "$label" <<'EOF'
import statistics, sys
tsv, summary, loadlog, label = sys.argv[1:5]
rows = [l.rstrip("\n").split("\t") for l in open(tsv)]
data = {}
for w, s, r, wall, user, sys_, rss, rc, files in rows:
    d = data.setdefault((w, s), [])
    d.append(dict(wall=float(wall), cpu=float(user) + float(sys_), rss=int(rss),
                  rc=int(rc), files=files))
def med(v): return statistics.median(v)
def div(a, b): return a / b if b > 0 else float("inf")
print("# bench/journal.sh" + (f": {label}" if label else ""))
print()
for l in open(summary):
    print("    " + l.rstrip())
print()
print("| workload | side | wall s, median (min-max) | CPU s median | peak RSS MiB median (max) | exit statuses | files written (rep 1) | ratio e4dump / side |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for w in ("journal", "undelete"):
    e = data.get((w, "e4dump"))
    for (ww, s), d in data.items():
        if ww != w:
            continue
        walls = [x["wall"] for x in d]
        rss = [x["rss"] / 1024 for x in d]
        ratio = "" if s == "e4dump" or not e else "%.2f" % div(med([x["wall"] for x in e]), med(walls))
        print(f"| {w} | {s} | {med(walls):.2f} ({min(walls):.2f}-{max(walls):.2f}) | "
              f"{med([x['cpu'] for x in d]):.2f} | {med(rss):.1f} ({max(rss):.1f}) | "
              f"{','.join(sorted(set(str(x['rc']) for x in d)))} | {d[0]['files']} | {ratio} |")
print()
def g(w, s, k):
    d = data.get((w, s))
    return med([x[k] for x in d]) if d else float("nan")
ej, jl = g("journal", "e4dump", "wall"), g("journal", "jls", "wall")
eu = g("undelete", "e4dump", "wall")
em, ex = g("undelete", "ext4magic", "wall"), g("undelete", "extundelete", "wall")
rj = max(x["rss"] for x in data[("journal", "e4dump")]) / 1024
ru = max(x["rss"] for x in data[("undelete", "e4dump")]) / 1024
ok = lambda b: "met" if b else "MISSED"
print("| figure | goal | measured | |")
print("| --- | --- | --- | --- |")
print(f"| journal --json / jls, wall | < 1 | {div(ej, jl):.2f} ({ej:.2f} s / {jl:.2f} s) | {ok(ej < jl)} |")
# a reference that failed (crashed, exited non-zero, recovered nothing)
# did not do the work: its time is no yardstick
def verdict(side, mine, theirs):
    xs = data[("undelete", side)]
    bad = [x for x in xs if x["rc"] != 0 or x["files"] in ("-", "0")]
    if bad:
        rcs = ",".join(sorted(set(str(x["rc"]) for x in xs)))
        return (f" ({side} exited {rcs}, {xs[0]['files']} files)",
                "not comparable: %s failed" % side)
    return "", ok(mine < theirs)
note, v = verdict("ext4magic", eu, em)
print(f"| undelete / ext4magic -r, wall | < 1 | {div(eu, em):.2f} ({eu:.2f} s / {em:.2f} s){note} | {v} |")
note, v = verdict("extundelete", eu, ex)
print(f"| undelete / extundelete --restore-all, wall | < 1 | {div(eu, ex):.2f} ({eu:.2f} s / {ex:.2f} s){note} | {v} |")
print(f"| peak RSS of journal --json (max of runs) | <= 256 MiB | {rj:.1f} MiB | {ok(rj <= 256)} |")
print(f"| peak RSS of undelete (max of runs) | <= 256 MiB | {ru:.1f} MiB | {ok(ru <= 256)} |")
print()
print("load average (1, 5, 15 min) before and after each repetition:")
for l in open(loadlog):
    print("    " + l.rstrip())
EOF
echo
[ -z "$base" ] || echo "e4dump-base: $base"
echo "e4dump: $e4dump"
echo "versions: e4dump $("$e4dump" --version 2>&1 | head -n1); $(dpkg-query -W -f='${Package} ${Version}; ' sleuthkit ext4magic extundelete 2>/dev/null)"
echo "image: $image ($(du -h --apparent-size "$image" | cut -f1) apparent, $(du -h "$image" | cut -f1) allocated)"
echo "uptime: $(uptime)"
