#!/bin/bash
# The benchmark of issue 11 (bench/README.md): e4dump on the encrypted /enc of
# an image from bench/make-image.sh against debugfs and The Sleuth Kit on its
# plaintext twin /plain, side by side in one run.
#
# Usage: bench/run.sh [options] E4DUMP IMAGE KEY
#
#   -n N        repetitions of each workload (default 5)
#   -w DIR      work directory, emptied: every tool writes its outputs
#               there, so all to one filesystem (default: /dev/shm/e4dump-
#               bench-IMAGENAME when /dev/shm is a tmpfs with room, else
#               IMAGE.bench; on a disk filesystem the times of creating files
#               vary far more than the tools do, see bench/README.md)
#   -only LIST  only these workloads (comma-separated ids, see below)
#   -crypto S   seconds per `openssl speed` run (default 3)
#   -label TEXT printed with the results: what E4DUMP was built from, when
#               its directory is not in the git work tree it was built from
#
# Every workload runs its sides in interleaved order (rep 1: e4dump first,
# rep 2: e4dump last, ...), after a warm read of the whole image and an
# untimed check that the sides agree (cat output, ls line counts, verify
# and e2fsck clean); extract outputs of the first repetition are compared
# with diff -r.  Output directories are deleted and written back (sync)
# between runs, outside the timing, and the image is read before each run
# (kept warm).  Prints the tables on stdout; the raw
# measurements are in DIR/results.tsv.  Exit 1 when a side failed.
set -u

die() { echo "bench/run: error: $*" >&2; exit 2; }
msg() { echo "bench/run: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
reps=5 work= only= crypto=3 label=
while [ $# -gt 0 ]; do
	case $1 in
		-n) reps=$2; shift 2 ;;
		-w) work=$2; shift 2 ;;
		-only) only=$2; shift 2 ;;
		-crypto) crypto=$2; shift 2 ;;
		-label) label=$2; shift 2 ;;
		-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
		-*) die "unknown option $1" ;;
		*) break ;;
	esac
done
[ $# = 3 ] || die "usage: $0 [-n N] [-w DIR] [-only LIST] [-crypto S] [-label TEXT] E4DUMP IMAGE KEY"
E4DUMP=$(realpath "$1") IMG=$(realpath "$2") KEY=$(realpath "$3")
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive count"
[ -x "$E4DUMP" ] || die "$E4DUMP is not executable"
[ -r "$IMG" ] && [ -r "$KEY" ] || die "cannot read $IMG or $KEY"
for t in debugfs e2fsck icat tsk_recover openssl dd python3 /usr/bin/time; do
	command -v $t >/dev/null || die "$t not found (scripts/install-deps.sh)"
done
if [ -z "$work" ]; then
	work=$IMG.bench
	# room for two copies of large.bin and the small files, with margin
	need=$(( $(stat -c %s "$IMG") / 1024 / 2 + 1048576 ))
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
		[ "$(df -k --output=avail /dev/shm | tail -n1)" -gt "$need" ]; then
		work=/dev/shm/e4dump-bench-$(basename "$IMG")
	fi
fi
rm -rf "$work" && mkdir -p "$work" || die "cannot create $work"
work=$(realpath "$work")
# debugfs takes the output directory inside its request string
[[ $work =~ ^[A-Za-z0-9/._+-]+$ ]] || die "work directory $work: use a path without blanks"
R=$work/results.tsv
: >"$R"

# ---- the tree: numbers from the manifest, inode numbers and no-key names ----
man=$IMG.manifest
read -r large nsmall nmany nfew < <(awk '$1 == "bench-tree" && $3 == "plain" {
	print $4, $5, $7, $8 }' "$man" 2>/dev/null)
[ -n "${nfew:-}" ] || die "no bench-tree record in $man (made by bench/make-image.sh?)"
inode() { debugfs -R "stat $1" "$IMG" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p'; }
ino_large=$(inode /plain/large.bin) ino_small=$(inode /plain/small)
[ -n "$ino_large" ] && [ -n "$ino_small" ] || die "debugfs finds no /plain/large.bin or /plain/small"
# Without the key, /enc's entries have no-key names: find them by inode.
"$E4DUMP" ls -l --key-file "$KEY" "$IMG" /enc >"$work/enc.key.ls" 2>/dev/null
"$E4DUMP" ls -l "$IMG" /enc >"$work/enc.nokey.ls" 2>/dev/null
nokey() {
	local ino
	ino=$(awk -v n="$1" '$NF == n { print $1 }' "$work/enc.key.ls")
	[ -n "$ino" ] && awk -v i="$ino" '$1 == i { print $NF }' "$work/enc.nokey.ls"
}
nk_many=$(nokey empty-many) nk_few=$(nokey empty-few)
[ -n "$nk_many" ] && [ -n "$nk_few" ] || die "e4dump ls finds no empty-many/empty-few in /enc"

# ---- the workloads ------------------------------------------------------------
# side_CMD WORKLOAD SIDE OUTDIR prints nothing; it sets argv (the command) and
# out (its stdout).  OUTDIR exists and is empty.
K=(--key-file "$KEY")
side_cmd() {
	local w=$1 s=$2 d=$3
	out=/dev/null
	case $w:$s in
		cat-large:e4dump) argv=("$E4DUMP" cat "${K[@]}" "$IMG" /enc/large.bin) ;;
		cat-large:debugfs) argv=(debugfs -R "cat /plain/large.bin" "$IMG") ;;
		cat-large:icat) argv=(icat "$IMG" "$ino_large") ;;
		extract-large:e4dump) argv=("$E4DUMP" extract "${K[@]}" "$IMG" /enc/large.bin -o "$d") ;;
		extract-large:debugfs) argv=(debugfs -R "rdump /plain/large.bin $d" "$IMG") ;;
		extract-small:e4dump) argv=("$E4DUMP" extract "${K[@]}" "$IMG" /enc/small -o "$d") ;;
		extract-small:e4dump-plain) argv=("$E4DUMP" extract "$IMG" /plain/small -o "$d") ;;
		extract-small:debugfs) argv=(debugfs -R "rdump /plain/small $d" "$IMG") ;;
		extract-small:tsk) argv=(tsk_recover -a -d "$ino_small" "$IMG" "$d/small") ;;
		extract-few:e4dump) argv=("$E4DUMP" extract "${K[@]}" "$IMG" /enc/empty-few -o "$d") ;;
		extract-few:debugfs) argv=(debugfs -R "rdump /plain/empty-few $d" "$IMG") ;;
		extract-many:e4dump) argv=("$E4DUMP" extract "${K[@]}" "$IMG" /enc/empty-many -o "$d") ;;
		extract-many:debugfs) argv=(debugfs -R "rdump /plain/empty-many $d" "$IMG") ;;
		ls-many-key:e4dump) argv=("$E4DUMP" ls -l "${K[@]}" "$IMG" /enc/empty-many) ;;
		ls-many-nokey:e4dump) argv=("$E4DUMP" ls -l "$IMG" "/enc/$nk_many") ;;
		ls-few-nokey:e4dump) argv=("$E4DUMP" ls -l "$IMG" "/enc/$nk_few") ;;
		ls-many-*:debugfs) argv=(debugfs -R "ls -l /plain/empty-many" "$IMG") ;;
		ls-few-*:debugfs) argv=(debugfs -R "ls -l /plain/empty-few" "$IMG") ;;
		verify:e4dump) argv=("$E4DUMP" verify "${K[@]}" "$IMG") ;;
		verify:e2fsck) argv=(e2fsck -fn "$IMG") ;;
		*) die "internal: no command for $w:$s" ;;
	esac
}
# id|title|sides (the subject first)|pairs subject:reference
mib=$(awk -v b="$large" 'BEGIN { printf "%.0f", b / 1048576 }')
workloads=(
	"cat-large|cat of the $mib MiB file|e4dump debugfs icat|e4dump:debugfs e4dump:icat"
	"extract-large|extract of the $mib MiB file|e4dump debugfs|e4dump:debugfs"
	"extract-small|extract of $nsmall small files|e4dump debugfs tsk e4dump-plain|e4dump:debugfs e4dump:tsk e4dump-plain:debugfs"
	"extract-few|extract of $nfew empty files|e4dump debugfs|e4dump:debugfs"
	"extract-many|extract of $nmany empty files|e4dump debugfs|e4dump:debugfs"
	"ls-many-key|ls -l of $nmany entries with the key|e4dump debugfs|e4dump:debugfs"
	"ls-many-nokey|ls -l of $nmany entries without the key|e4dump debugfs|e4dump:debugfs"
	"ls-few-nokey|ls -l of $nfew entries without the key|e4dump debugfs|e4dump:debugfs"
	"verify|verify of the whole image vs e2fsck -fn|e4dump e2fsck|e4dump:e2fsck"
)
selected=()
for wl in "${workloads[@]}"; do
	id=${wl%%|*}
	if [ -z "$only" ] || [[ ,$only, == *,$id,* ]]; then selected+=("$wl"); fi
done
[ ${#selected[@]} -gt 0 ] || die "-only $only matches no workload"

# The description for timing.py report.
python3 - "$reps" "$large" "$nfew" "$nmany" "${selected[@]}" >"$work/spec.json" <<'EOF'
import json, sys
reps, large, nfew, nmany, wls = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
sides = {"e4dump": "e4dump (/enc)", "e4dump-plain": "e4dump (/plain)", "debugfs": "debugfs",
         "icat": "TSK icat", "tsk": "TSK tsk_recover", "e2fsck": "e2fsck -fn"}
out = []
for wl in wls:
    i, title, _, pairs = wl.split("|")
    out.append(dict(id=i, title=title, pairs=[p.split(":") for p in pairs.split()]))
# the issue's scaling goal: the same work on nmany / nfew times the entries
scaling = [dict(title="extract of empty files", few="extract-few", many="extract-many"),
           dict(title="ls -l without the key", few="ls-few-nokey", many="ls-many-nokey")]
json.dump(dict(reps=reps, large_bytes=large, sides=sides, workloads=out,
               scaling=scaling, entries_factor=nmany / nfew), sys.stdout)
EOF

# ---- the limits, and a warm page cache ---------------------------------------
# This machine pages out page cache left untouched for about a minute
# (DAMON reclaim), so the whole image is read again before every timed run:
# 0.2 s when it is all in memory.
warm() { dd if="$IMG" of=/dev/null bs=1M status=none; }
L=$work/limits
: >"$L"
warm
isize=$(stat -c %s "$IMG")
for r in $(seq "$reps"); do
	python3 "$here/timing.py" run "$R" raw-read dd "$r" /dev/null "$work/err.raw-read" -- \
		dd if="$IMG" of=/dev/null bs=1M status=none
done
awk -F'\t' -v s="$isize" '$1 == "raw-read" { print $4 }' "$R" | sort -g |
	awk -v s="$isize" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "raw %.0f\n", s / m }' >>"$L"
# bytes/s of AES-256-XTS on 16 KiB buffers (-mr: "+F:n:AES-256-XTS:rate")
for m in 1 2; do
	multi=()
	[ $m = 2 ] && multi=(-multi 2)
	openssl speed -evp aes-256-xts -bytes 16384 -seconds "$crypto" -mr "${multi[@]}" 2>/dev/null |
		awk -F: -v m=$m '/^\+F:/ { v = $NF } END { if (v) printf "aes%d %s\n", m, v }' >>"$L"
done

# ---- untimed checks: the sides give the same answers --------------------------
cd "$work" || die "cd $work"
fails=0
cfail() { msg "CHECK FAILED: $*"; fails=$((fails + 1)); }
sum_of() { "$@" 2>/dev/null | sha256sum | cut -c1-64; }
if [[ " ${selected[*]} " == *cat-large* ]]; then
	a=$(sum_of "$E4DUMP" cat "${K[@]}" "$IMG" /enc/large.bin)
	b=$(sum_of debugfs -R "cat /plain/large.bin" "$IMG")
	c=$(sum_of icat "$IMG" "$ino_large")
	[ "$a" = "$b" ] && [ "$a" = "$c" ] || cfail "cat: e4dump $a, debugfs $b, icat $c"
fi
for n in "empty-many:$nk_many:$nmany" "empty-few:$nk_few:$nfew"; do
	IFS=: read -r plain nk count <<<"$n"
	got=$("$E4DUMP" ls -l "${K[@]}" "$IMG" "/enc/$plain" 2>/dev/null | wc -l)
	[ "$got" = "$count" ] || cfail "e4dump ls -l /enc/$plain with the key: $got lines, want $count"
	got=$("$E4DUMP" ls -l "$IMG" "/enc/$nk" 2>/dev/null | wc -l)
	[ "$got" = "$count" ] || cfail "e4dump ls -l /enc/$plain without the key: $got lines, want $count"
	got=$(debugfs -R "ls -l /plain/$plain" "$IMG" 2>/dev/null | grep -c ' empty-[0-9]*$')
	[ "$got" = "$count" ] || cfail "debugfs ls -l /plain/$plain: $got entries, want $count"
done
if [[ " ${selected[*]} " == *verify* ]]; then
	"$E4DUMP" verify "${K[@]}" "$IMG" >"$work/verify.check" 2>&1 ||
		cfail "e4dump verify: $(head -3 "$work/verify.check")"
	e2fsck -fn "$IMG" >"$work/e2fsck.check" 2>&1 ||
		cfail "e2fsck -fn: $(tail -3 "$work/e2fsck.check")"
fi

# The first repetition's extract outputs against e4dump's: the same tree
# (tsk_recover is given DIR/small, as it writes the directory's contents).
compare_outputs() {
	local w=$1 s base
	case $w in extract-*) ;; *) return 0 ;; esac
	base=$(ls "$work/out.$w.e4dump")
	[ -n "$base" ] || { cfail "$w: e4dump extracted nothing"; return; }
	for s in debugfs tsk e4dump-plain; do
		[ -d "$work/out.$w.$s" ] || continue
		diff -r -q "$work/out.$w.e4dump/$base" "$work/out.$w.$s/$base" >"$work/diff.$w.$s" 2>&1 ||
			cfail "$w: $s's output differs from e4dump's ($work/diff.$w.$s)"
	done
}

# ---- the timed runs ----------------------------------------------------------
for r in $(seq "$reps"); do
	msg "repetition $r of $reps"
	for wl in "${selected[@]}"; do
		IFS='|' read -r id _ sides _ <<<"$wl"
		read -r -a order <<<"$sides"
		if [ $((r % 2)) = 0 ]; then # e4dump last
			order=("${order[@]:1}" "${order[0]}")
		fi
		for s in "${order[@]}"; do
			d=$work/out.$id.$s
			rm -rf "$d" && mkdir "$d"
			warm
			side_cmd "$id" "$s" "$d"
			python3 "$here/timing.py" run "$R" "$id" "$s" "$r" "$out" "$work/err.$id.$s" \
				-- "${argv[@]}" ||
				msg "$id $s exited $? (repetition $r)"
			# writes of this run reach the disk before the next is timed
			sync
		done
		[ "$r" = 1 ] && compare_outputs "$id"
		rm -rf "$work"/out.* && sync
	done
done

python3 "$here/timing.py" report "$R" "$L" "$work/spec.json"
rc=$?
# What was measured: the tool's version and the HEAD of the git work tree
# its binary sits in (the build it came from, when it was built there).
rev() { git -C "$1" describe --always --dirty 2>/dev/null || echo "not a git work tree"; }
echo "e4dump: $E4DUMP ($("$E4DUMP" --version 2>&1 | head -n1), its directory: $(rev "$(dirname "$E4DUMP")")${label:+; $label});" \
	"bench/: $(rev "$here"); image: $IMG ($(stat -c %s "$IMG") bytes);" \
	"outputs: $work ($(stat -f -c %T "$work"))"
echo "load: $(uptime)"
[ $fails = 0 ] || { echo "bench: $fails check(s) FAILED"; rc=1; }
exit $rc
