#!/bin/bash
# Every benchmark of bench/ in one command, on images it builds (cached), and
# the "Latest" table of bench/README.md made from what it measured
# (bench/latest.py): the workloads against debugfs and The Sleuth Kit with
# the mount (run.sh), containers against the raw image (containers.py), the
# journal at scale (journal.sh) and the cost of a start (start.sh).
#
# usage: bench/all.sh [-n N] [-scale S] [-base BASE] [-o DIR] [-skip LIST]
#                     [-readme] E4DUMP
#   -n N        repetitions of every timed workload (default 5)
#   -scale S    the bench image's SCALE (default 1: bench/make-image.sh)
#   -base BASE  an older e4dump build (the one before a change): a side of
#               every e4dump workload in the same runs; the table then
#               shows after / before (no regression); start.sh compares
#               against it (without it, E4DUMP against itself)
#   -o DIR      where the outputs go (default bench/results/all-DATE-COMMIT);
#               must not exist or be empty
#   -skip LIST  leave out parts: run, containers, journal, start (commas)
#   -readme     also put the table into bench/README.md (between its
#               "latest:begin" and "latest:end" marks)
#   E4DUMP      the build measured
#
# DIR gets run.txt, containers.txt, journal.txt, start.txt (each script's
# own report), their raw rows (*.tsv, limits), facts (what was measured
# on what) and latest.md.  The journal image costs about 30 minutes of
# QEMU the first time (then cached); the bench image at SCALE 1 about 4.
# Never a timed test: on a shared machine read the load averages it prints.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
die() { echo "bench/all: error: $*" >&2; exit 2; }
msg() { echo "bench/all: $*" >&2; }

n=5 scale=1 base= out= skip= readme=0
while [ $# -gt 0 ]; do
	case $1 in
		-n) n=$2; shift 2 ;;
		-scale) scale=$2; shift 2 ;;
		-base) base=$(readlink -f "$2"); shift 2 ;;
		-o) out=$2; shift 2 ;;
		-skip) skip=,$2,; shift 2 ;;
		-readme) readme=1; shift ;;
		-*) die "unknown option $1" ;;
		*) break ;;
	esac
done
[ $# = 1 ] || die "usage: $0 [-n N] [-scale S] [-base BASE] [-o DIR] [-skip LIST] [-readme] E4DUMP"
e4dump=$(readlink -f "$1")
[ -x "$e4dump" ] || die "no e4dump at $1"
[ -z "$base" ] || [ -x "$base" ] || die "-base: no e4dump at $base"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive number"
for p in ${skip//,/ }; do
	case $p in run|containers|journal|start) ;; *) die "-skip: no part $p" ;; esac
done
wanted() { [[ $skip != *,$1,* ]]; }

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$out" ] || out=$top/bench/results/all-$(date -u +%Y-%m-%d)-$commit
mkdir -p "$out" && [ -z "$(ls -A "$out")" ] || die "$out is not empty"
out=$(cd "$out" && pwd)
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
img=$out/img
mkdir -p "$img"
facts=$out/facts
fact() { printf '%s\t%s\n' "$1" "$2" >>"$facts"; }
fact started "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
fact load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
fact machine "$(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
fact e4dump "$e4dump ($("$e4dump" --version 2>&1 | head -n1))"
fact commit "$commit"
[ -z "$base" ] || fact base "$base ($("$base" --version 2>&1 | head -n1))"
fact n "$n"
fact scale "$scale"
rc=0

# ---- images (cached) ------------------------------------------------------------
need_bench=0
for p in run containers; do wanted $p && need_bench=1; done
if [ $need_bench = 1 ]; then
	msg "bench image, SCALE $scale"
	bash "$here/make-image.sh" "$scale" "$img/bench.img" >"$out/make-image.log" 2>&1 ||
		die "bench/make-image.sh failed: $out/make-image.log"
	bkey=$img/bench.key
	fact large_bytes "$(awk '$1 == "bench-tree" && $2 == "plain" { print $4 }' "$img/bench.img.manifest")"
fi

# The E01 and qcow2 of the bench image, as containers.py wants them, cached
# beside the bench images by what identifies the image file (a cache hit
# of make-image.sh is a hard link: same device, inode, size and time).
containers_of() { # IMAGE -> sets e01, qcow2
	local id dir
	id=$(printf '%s %s %s' "$(stat -L -c '%d %i %s %Y' "$1")" \
		"$(ewfacquire -V 2>&1 | head -n1)" "$(qemu-img --version | head -n1)" |
		sha256sum | cut -c1-16)
	dir=$cache/bench/containers-$id
	mkdir -p "$dir" || die "cannot make $dir"
	(
		flock 9
		if [ ! -s "$dir/done" ]; then
			rm -f "$dir"/c.* "$dir/done"
			msg "making the E01 and the qcow2 of $1 (cache $dir)"
			ewfacquire -u -q -f encase6 -c deflate:fast -S 1GiB -t "$dir/c" "$1" \
				>"$dir/ewfacquire.log" 2>&1 || exit 1
			qemu-img convert -O qcow2 "$1" "$dir/c.qcow2" || exit 1
			echo "ewfacquire -u -q -f encase6 -c deflate:fast -S 1GiB; qemu-img convert -O qcow2" >"$dir/done"
		fi
	) 9>"$dir.lock" || die "cannot make the containers of $1"
	# held (shared) while they are read; a prune takes it exclusively
	exec 8>"$dir.lock"
	flock -s 8
	# keep the newest two (a SCALE 1 pair holds 4.3 GiB)
	ls -1td "$cache/bench"/containers-*/ 2>/dev/null | tail -n +3 | while read -r old; do
		old=${old%/}
		[ "$old" = "$dir" ] || ( flock -n 7 && rm -rf "$old" ) 7>"$old.lock"
	done
	e01=$dir/c.E01 qcow2=$dir/c.qcow2
	fact containers "$(cat "$dir/done") ($dir)"
}

if wanted journal; then
	msg "journal image (about 30 minutes of QEMU when not cached)"
	bash "$here/make-journal-image.sh" "$img/journal.img" >"$out/make-journal-image.log" 2>&1 ||
		die "bench/make-journal-image.sh failed: $out/make-journal-image.log"
fi

# ---- the parts --------------------------------------------------------------------
bargs=()
[ -z "$base" ] || bargs=(-base "$base")
if wanted run; then
	msg "run.sh: the workloads against debugfs and TSK, and the mount"
	w=/dev/shm/e4dump-all-run
	bash "$here/run.sh" -n "$n" -w "$w" -label "$commit" "${bargs[@]}" \
		"$e4dump" "$img/bench.img" "$bkey" >"$out/run.txt" 2>"$out/run.err" || rc=1
	for f in results.tsv mount.tsv limits; do
		[ -f "$w/$f" ] && cp "$w/$f" "$out/run-$f"
	done
	rm -rf "$w"
fi
if wanted containers; then
	containers_of "$img/bench.img"
	# the no-key name of /enc/empty-many: the name its inode has without the key
	ino=$("$e4dump" ls -l --key-file "$bkey" "$img/bench.img" /enc 2>/dev/null |
		awk '$NF == "empty-many" { print $1 }')
	nokey=$("$e4dump" ls -l "$img/bench.img" /enc 2>/dev/null | awk -v i="$ino" '$1 == i { print $NF }')
	[ -n "$nokey" ] || die "no /enc/empty-many in $img/bench.img"
	msg "containers.py: raw, E01 and qcow2"
	cb=()
	[ -z "$base" ] || cb=(-b "$base")
	python3 "$here/containers.py" -n "$n" "${cb[@]}" -t "$out/containers.tsv" \
		"$e4dump" "$bkey" "$img/bench.img" "$e01" "$qcow2" "$nokey" \
		>"$out/containers.txt" 2>"$out/containers.err" || rc=1
fi
if wanted journal; then
	msg "journal.sh: journal and undelete against jls, ext4magic, extundelete"
	w=/dev/shm/e4dump-all-journal
	bash "$here/journal.sh" -n "$n" -w "$w" -label "$commit" "${bargs[@]}" \
		"$e4dump" "$img/journal.img" "$img/journal.key" \
		>"$out/journal.txt" 2>"$out/journal.err" || rc=1
	[ -f "$w/journal.tsv" ] && cp "$w/journal.tsv" "$out/journal.tsv"
	rm -rf "$w"
fi
if wanted start; then
	msg "start.sh: --version and ls of the sample"
	bash "$here/start.sh" -n 200 -t "$out/start.tsv" "${base:-$e4dump}" "$e4dump" \
		>"$out/start.txt" 2>"$out/start.err" || rc=1
fi

fact load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
fact ended "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
python3 "$here/latest.py" "$out" >"$out/latest.md" || rc=1
cat "$out/latest.md"
if [ $readme = 1 ]; then
	python3 "$here/latest.py" --readme "$here/README.md" "$out" || rc=1
fi
# the images are the cache's: only the links go
rm -rf "$img"
[ $rc = 0 ] || msg "a part failed: see $out/*.err"
exit $rc
