#!/bin/bash
# Build the libFuzzer harnesses with clang and run them.
#
# Usage: fuzz/run.sh SECONDS [TARGET...]
#   SECONDS  total fuzzing wall time, split evenly across the targets
#   TARGET   context keyfile nokey symlink names image (default: all)
#
# Configures and builds build-fuzz/ (clang, -fsanitize=fuzzer,address,
# undefined), generates the seeds (fuzz/make-seeds.sh -> build-fuzz/seeds/),
# then runs each target in turn with FUZZ_JOBS (default 2) worker processes
# (libFuzzer -fork, crashes do not stop the run).  New corpus units are kept
# in fuzz/corpus/<target>/, crashes, timeouts and OOMs go to
# fuzz/findings/<target>/ (both gitignored), logs to
# build-fuzz/fuzz-logs/<target>.log.  Prints per target: executions,
# seconds, crashes.  Exit 1 when anything was found.
#
# Environment: FUZZ_JOBS (2), FUZZ_TIMEOUT (per input, seconds: 30),
# FUZZ_RSS_MB (2048), FUZZ_ARGS (extra libFuzzer flags).
# Installs nothing: needs clang with libFuzzer (Debian: clang,
# libclang-rt-14-dev), cmake and the build dependencies of e4dump.
set -eu
all=(context keyfile nokey symlink names image dirblock extent xattr jbd2 volume undelete container export fscrypt_meta capture memkeys)
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
	echo "usage: $0 SECONDS [TARGET...] (targets: ${all[*]})" >&2
	exit 2
fi
total=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "$0: unknown target $t" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build-fuzz
jobs=${FUZZ_JOBS:-2}

command -v clang >/dev/null || { echo "$0: clang not found (scripts/install-deps.sh)" >&2; exit 2; }
mkdir -p "$build"
cmake -S "$root" -B "$build" -DE4DUMP_FUZZ=ON -DCMAKE_C_COMPILER=clang \
	-DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 ||
	{ cat "$build/configure.log" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >"$build/build.log" 2>&1 ||
	{ tail -40 "$build/build.log" >&2; exit 2; }
cmake --build "$build" -j"$(nproc)" --target e4dump >>"$build/build.log" 2>&1 ||
	{ tail -40 "$build/build.log" >&2; exit 2; }
E4DUMP=$build/bin/e4dump bash "$here/make-seeds.sh" "$build/seeds" >/dev/null

per=$(( total / ${#targets[@]} ))
[ "$per" -ge 1 ] || per=1
mkdir -p "$build/fuzz-logs"
summary=()
found=0
for t in "${targets[@]}"; do
	corpus=$here/corpus/$t
	findings=$here/findings/$t
	log=$build/fuzz-logs/$t.log
	mkdir -p "$corpus" "$findings"
	extra=()
	case $t in
	image | container | export) extra=(-max_len=1048576) ;;
	undelete) extra=(-max_len=4194304) ;;   # whole images of 3 MiB
	volume) extra=(-max_len=1048580) ;;     # size word and a disk's first MiB
	names | symlink) extra=(-max_len=8194) ;;
	dirblock) extra=(-max_len=65537) ;;     # flag byte and up to 64 KiB
	extent) extra=(-max_len=16445) ;;       # flag, i_block, 16 tree blocks
	xattr) extra=(-max_len=1025) ;;
	fscrypt_meta) extra=(-max_len=16385) ;; # selector and fscrypt's 16 KiB
	capture) extra=(-max_len=65536) ;;     # headers and small ranges
	*) extra=(-max_len=4096) ;;
	esac
	before=$(find "$findings" -maxdepth 1 -type f | wc -l)
	echo "run: fuzz_$t for ${per}s with $jobs workers (log: $log)"
	start=$(date +%s)
	# fuzz_image extracts into $TMPDIR; workers stopped by libFuzzer leave
	# their last output there: a directory per target, removed afterwards.
	tmp=$build/tmp/$t
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# Relative artifact paths would land in the cwd: run in the findings dir.
	(cd "$findings" && TMPDIR=$tmp "$build/bin/fuzz_$t" -fork="$jobs" -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 \
		-max_total_time="$per" -timeout="${FUZZ_TIMEOUT:-30}" \
		-rss_limit_mb="${FUZZ_RSS_MB:-2048}" -artifact_prefix="$findings/" \
		-print_final_stats=1 "${extra[@]}" ${FUZZ_ARGS:-} \
		"$corpus" "$build/seeds/$t") >"$log" 2>&1 || true
	secs=$(( $(date +%s) - start ))
	chmod -R u+rwx "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
	last=$(grep -E '^#[0-9]+: ' "$log" | tail -1 || true)
	execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
	oct=$(sed -nE 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/p' <<<"$last")
	new=$(( $(find "$findings" -maxdepth 1 -type f | wc -l) - before ))
	[ "$new" -eq 0 ] || found=1
	summary+=("$(printf '%-8s executions %12s  seconds %5s  crashes %s (oom/timeout/crash %s; new files in fuzz/findings/%s)' \
		"$t" "${execs:-?}" "$secs" "$new" "${oct:-?}" "$t")")
done
echo
echo "fuzz summary:"
printf '  %s\n' "${summary[@]}"
exit $found
