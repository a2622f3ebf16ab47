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
# and e2fsck clean, the bytes and names seen through e4dump mount); extract
# outputs of the first repetition are compared with diff -r.  Output
# directories are deleted and written back (sync) between runs, outside
# the timing, and the image is read before each run (kept warm).  The mount
# workloads (mount-cat, mount-find; left out without a usable /dev/fuse)
# mount the image afresh for each timed run, mounting and unmounting not
# timed, and take the subject's peak RSS from the daemon (VmHWM).  Prints
# the tables on stdout; the raw measurements are in DIR/results.tsv and
# DIR/mount.tsv.  Exit 1 when a side failed.
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
# The mount workloads need FUSE: by default they are left out without it.
fuse_ok=1
{ [ -r /dev/fuse ] && [ -w /dev/fuse ] && command -v fusermount3 >/dev/null &&
	command -v find >/dev/null; } || fuse_ok=0
if [ -z "$work" ]; then
	work=$IMG.bench
	# room for two copies of large.bin and the small files, with margin
	need=$(( $(stat -c %s "$IMG") / 1024 / 2 + 1048576 ))
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
		[ "$(df -k --output=avail /dev/shm | tail -n1)" -gt "$need" ]; then
		work=/dev/shm/e4dump-bench-$(basename "$IMG")
	fi
fi
# a mount left behind by an interrupted run: rm -rf would walk into it
if [ -d "$work/mnt" ] && grep -q " $(realpath "$work/mnt") " /proc/self/mountinfo; then
	fusermount3 -u "$work/mnt" || die "$work/mnt is mounted and will not unmount"
fi
rm -rf "$work" && mkdir -p "$work" || die "cannot create $work"
work=$(realpath "$work")
# debugfs takes the output directory inside its request string
[[ $work =~ ^[A-Za-z0-9/._+-]+$ ]] || die "work directory $work: use a path without blanks"
R=$work/results.tsv
: >"$R"
# e4dump mount's own numbers, one line per mounted run: workload rep
# mount_s unmount_s vmhwm_kib daemon_user_s daemon_sys_s client_rss_kib rc
MT=$work/mount.tsv
: >"$MT"

# ---- the tree: numbers from the manifest, inode numbers and no-key names ----
man=$IMG.manifest
read -r large nsmall ndirs nmany nfew < <(awk '$1 == "bench-tree" && $3 == "plain" {
	print $4, $5, $6, $7, $8 }' "$man" 2>/dev/null)
[ -n "${nfew:-}" ] || die "no bench-tree record in $man (made by bench/make-image.sh?)"
# every entry under /enc: large.bin, small/ and its directories and files,
# empty-many/ and empty-few/ and their files
nent=$((4 + ndirs + nsmall + nmany + nfew))
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
		mount-cat:mount) argv=(cat "$mnt/enc/large.bin") ;;
		mount-cat:e4dump) argv=("$E4DUMP" cat "${K[@]}" "$IMG" /enc/large.bin) ;;
		mount-find:mount) argv=(find "$mnt/enc") ;;
		mount-find:e4dump) argv=("$E4DUMP" ls -R "${K[@]}" "$IMG" /enc) ;;
		*) die "internal: no command for $w:$s" ;;
	esac
}
# ---- e4dump mount -------------------------------------------------------------
# One daemon per timed run (and one for the checks): with the image never
# changing, the daemon lets the kernel keep file pages (keep_cache) and
# names and attributes (timeouts of a day), so a second run on the same
# mount would time the kernel's caches, not e4dump.  It runs in the
# foreground (-f) in the background of this shell, so that $! is the daemon.
mnt=$work/mnt mpid= mready=0
mounted() { awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
tck=$(getconf CLK_TCK)
# the daemon's user and system CPU seconds so far
dcpu() { awk -v t="$tck" '{ printf "%.2f %.2f\n", $14 / t, $15 / t }' "/proc/$mpid/stat" 2>/dev/null ||
	echo "0 0"; }
# mount_up: mounts IMAGE on $mnt, waits until the root answers; sets mpid and
# mready (seconds from the start to a served stat of the root).
mount_up() {
	local t0 i
	mkdir -p "$mnt"
	t0=$(now)
	"$E4DUMP" mount -f "${K[@]}" "$IMG" "$mnt" </dev/null >>"$work/mount.log" 2>&1 &
	mpid=$!
	for ((i = 0; i < 3000; i++)); do
		mounted && break
		kill -0 "$mpid" 2>/dev/null || break
		sleep 0.01
	done
	if ! mounted || ! stat "$mnt/" >/dev/null 2>&1; then
		msg "e4dump mount did not come up ($work/mount.log)"
		mount_down
		return 1
	fi
	mready=$(secs "$t0" "$(now)")
}
# mount_down: unmounts and waits for the daemon (in this shell: wait knows
# only its own children); sets mhwm (VmHWM in KiB, the daemon's peak RSS
# over its life, read just before), mum (seconds to unmount and exit), mrc
# (the daemon's exit status).
mount_down() {
	local t0
	mhwm=0 mum=0 mrc=0
	[ -n "$mpid" ] || return 0
	mhwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$mpid/status" 2>/dev/null)
	t0=$(now)
	mounted && fusermount3 -u "$mnt"
	wait "$mpid"
	mrc=$? mpid=
	mum=$(secs "$t0" "$(now)")
}
cleanup() { [ -z "$mpid" ] || ! kill -0 "$mpid" 2>/dev/null || { mounted && fusermount3 -u "$mnt"; kill "$mpid" 2>/dev/null; }; }
trap cleanup EXIT

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
	"mount-cat|cat of the $mib MiB file through e4dump mount vs e4dump cat|mount e4dump|mount:e4dump"
	"mount-find|find of $nent entries through e4dump mount vs e4dump ls -R|mount e4dump|mount:e4dump"
)
selected=()
for wl in "${workloads[@]}"; do
	id=${wl%%|*}
	if [ -z "$only" ] || [[ ,$only, == *,$id,* ]]; then
		if [[ $id == mount-* ]] && [ $fuse_ok = 0 ]; then
			[ -z "$only" ] || die "$id needs FUSE: /dev/fuse (read-write), fusermount3, find"
			msg "no usable /dev/fuse or fusermount3: leaving out $id"
			continue
		fi
		selected+=("$wl")
	fi
done
[ ${#selected[@]} -gt 0 ] || die "-only $only matches no workload"

# The description for timing.py report.
python3 - "$reps" "$large" "$nfew" "$nmany" "${selected[@]}" >"$work/spec.json" <<'EOF'
import json, sys
reps, large, nfew, nmany, wls = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
sides = {"e4dump": "e4dump (/enc)", "e4dump-plain": "e4dump (/plain)", "debugfs": "debugfs",
         "icat": "TSK icat", "tsk": "TSK tsk_recover", "e2fsck": "e2fsck -fn",
         "mount": "e4dump mount (/enc)"}
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
if [[ " ${selected[*]} " == *cat-large* || " ${selected[*]} " == *mount-cat* ]]; then
	a=$(sum_of "$E4DUMP" cat "${K[@]}" "$IMG" /enc/large.bin)
fi
if [[ " ${selected[*]} " == *cat-large* ]]; then
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

# Through the mount: the bytes of large.bin and the names under /enc are
# e4dump cat's and e4dump ls -R's; the daemon exits 0 when unmounted.
if [[ " ${selected[*]} " == *mount-* ]]; then
	if mount_up; then
		if [[ " ${selected[*]} " == *mount-cat* ]]; then
			b=$(sum_of cat "$mnt/enc/large.bin")
			[ "$a" = "$b" ] || cfail "cat through the mount: $b, e4dump cat $a"
		fi
		if [[ " ${selected[*]} " == *mount-find* ]]; then
			find "$mnt/enc" >"$work/find.check" 2>"$work/find.check.err" ||
				cfail "find through the mount: $(head -3 "$work/find.check.err")"
			"$E4DUMP" ls -R "${K[@]}" "$IMG" /enc >"$work/lsR.check" 2>&1 ||
				cfail "e4dump ls -R: $(head -3 "$work/lsR.check")"
			# find prints the starting point too
			f=$(($(wc -l <"$work/find.check") - 1)) l=$(wc -l <"$work/lsR.check")
			[ "$f" = "$l" ] && [ "$l" = "$nent" ] ||
				cfail "find through the mount: $f entries, e4dump ls -R $l, want $nent"
			sed -n "s|^$mnt/enc/||p" "$work/find.check" | LC_ALL=C sort >"$work/find.names"
			LC_ALL=C sort "$work/lsR.check" >"$work/lsR.names"
			cmp -s "$work/find.names" "$work/lsR.names" ||
				cfail "find through the mount and e4dump ls -R list different names"
		fi
		mount_down
		[ "$mrc" = 0 ] || cfail "e4dump mount exited $mrc ($work/mount.log)"
	else
		cfail "e4dump mount $IMG $mnt failed ($work/mount.log)"
	fi
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
			if [ "$s" = mount ]; then
				mount_up || cfail "$id: e4dump mount failed (repetition $r)"
			fi
			warm
			side_cmd "$id" "$s" "$d"
			[ "$s" = mount ] && read -r u0 s0 < <(dcpu)
			python3 "$here/timing.py" run "$R" "$id" "$s" "$r" "$out" "$work/err.$id.$s" \
				-- "${argv[@]}" ||
				msg "$id $s exited $? (repetition $r)"
			if [ "$s" = mount ]; then
				# the subject's CPU: the client's plus the daemon's during
				# the run; its peak RSS: the daemon's
				read -r u1 s1 < <(dcpu)
				mount_down
				[ "$mrc" = 0 ] || cfail "$id: e4dump mount exited $mrc (repetition $r)"
				awk -F'\t' -v OFS='\t' -v n="$(wc -l <"$R")" -v du="$(secs "$u0" "$u1")" \
					-v ds="$(secs "$s0" "$s1")" -v rss="$mhwm" -v mt="$MT" -v id="$id" \
					-v r="$r" -v mr="$mready" -v um="$mum" -v mrc="$mrc" '
					NR == n { print id, r, mr, um, rss, du, ds, $7, mrc >>mt
						  $5 = sprintf("%.6f", $5 + du); $6 = sprintf("%.6f", $6 + ds); $7 = rss }
					{ print }' "$R" >"$R.tmp" && mv "$R.tmp" "$R"
			fi
			# writes of this run reach the disk before the next is timed
			sync
		done
		[ "$r" = 1 ] && compare_outputs "$id"
		rm -rf "$work"/out.* && sync
	done
done

python3 "$here/timing.py" report "$R" "$L" "$work/spec.json"
rc=$?
# e4dump mount against the issue's goals, and the daemon's own numbers
if [ -s "$MT" ]; then
	python3 - "$R" "$MT" <<'EOF'
import statistics as st, sys
runs, mt = {}, {}
for line in open(sys.argv[1]):
    w, s, rep, wall, *_ = line.split("\t")
    runs.setdefault((w, s), {})[rep] = float(wall)
for line in open(sys.argv[2]):
    w, rep, mr, um, hwm, du, ds, crss, rc = line.split("\t")
    mt.setdefault(w, []).append((float(mr), float(um), int(hwm), float(du) + float(ds)))
def mm(v, f="{:.3f}"):
    return f"{f.format(st.median(v))} ({f.format(min(v))}-{f.format(max(v))})"
goals = {"mount-cat": ("throughput, mount / e4dump cat", 0.7, True),
         "mount-find": ("time, mount / e4dump ls -R", 2.0, False)}
print("e4dump mount against the issue's goals: per repetition the two sides of one")
print("repetition (run one after the other), then median (min-max) of those; the")
print("daemon's peak RSS (VmHWM before unmounting), its CPU time during the timed")
print("run, and the untimed mounting (to the first served stat) and unmounting:")
print()
print("| workload | goal | per repetition | median (min-max) | daemon peak RSS MiB | daemon CPU s | mount s | unmount s |")
print("|---|---|---|---|---|---|---|---|")
for w in ("mount-cat", "mount-find"):
    if w not in mt:
        continue
    a, b = runs.get((w, "mount"), {}), runs.get((w, "e4dump"), {})
    what, goal, inverse = goals[w]
    q = [(b[r] / a[r] if inverse else a[r] / b[r]) for r in sorted(a, key=int)
         if r in b and a[r] > 0 and b[r] > 0]
    m = mt[w]
    ok = ""
    if q:
        ok = " ✓" if (st.median(q) >= goal if inverse else st.median(q) <= goal) else " ✗"
    print(f"| {w} | {what} {'≥' if inverse else '≤'} {goal} | "
          f"{', '.join(f'{x:.2f}' for x in q)} | {(mm(q, '{:.2f}') if q else '-') + ok} | "
          f"{mm([x[2] / 1024 for x in m], '{:.1f}')} | {mm([x[3] for x in m], '{:.2f}')} | "
          f"{mm([x[0] for x in m])} | {mm([x[1] for x in m])} |")
print()
EOF
fi
# What was measured: the tool's version and the HEAD of the git work tree
# its binary sits in (the build it came from, when it was built there).
rev() { git -C "$1" describe --always --dirty 2>/dev/null || echo "not a git work tree"; }
echo "e4dump: $E4DUMP ($("$E4DUMP" --version 2>&1 | head -n1), its directory: $(rev "$(dirname "$E4DUMP")")${label:+; $label});" \
	"bench/: $(rev "$here"); image: $IMG ($(stat -c %s "$IMG") bytes);" \
	"outputs: $work ($(stat -f -c %T "$work"))"
echo "load: $(uptime)"
[ $fails = 0 ] || { echo "bench: $fails check(s) FAILED"; rc=1; }
exit $rc
