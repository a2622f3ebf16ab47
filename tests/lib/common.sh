# The shared preamble of the shell tests (tests/cli, tests/vm, tests/spec,
# tests/kernel).  Source it after `set -u`:
#     . "$(dirname "$0")/../lib/common.sh"
# Helpers that write files put them under $W, the test's work directory.
#
#   top                          the source tree
#   workdir DIR                  W=DIR, emptied: the test's work directory
#   check_extract ARGS...        tests/vm/check_extract.py, the manifest checker
#   sample NAME                  S, K: the kernel-written sample and its key;
#                                its image decompressed to $W/NAME
#   pass, fail                   the counters
#   ok, bad MSG                  count a passed / failed check (bad prints MSG)
#   check MSG EXPR               eval EXPR: ok when true, else bad MSG
#   expect NAME RC RE -- CMD...  CMD exits RC, its stderr matches the ERE RE
#                                (when not empty), no sanitizer report;
#                                stdout in $W/out, stderr in $W/err
#   must_run NAME OUT -- CMD...  CMD exits 0 and prints something (stdout in
#                                OUT, stderr in OUT.err), no sanitizer report;
#                                returns non-zero when not, so that what
#                                reads OUT can be skipped
#   sanitizer_report FILE        true when FILE holds an ASan/LSan/UBSan report
#   make_image SCENARIO IMG LOG  the kernel writes SCENARIO in QEMU
#                                (vm/make-image.sh); give_up when it fails
#   records MANIFEST TYPE        the manifest's TYPE records (check_extract.py
#                                --records) into $W/records.TYPE, through
#                                must_run: none at all is a failure, so a
#                                loop over them cannot pass having read nothing
#   checker NAME CMD...          run a checker (output in $W/NAME.check):
#                                ok when it exits 0, else bad with its FAIL
#                                lines; prints its last line
#   deletion_image SC            make vm/scenarios/undelete-SC.scn's image:
#                                img, man (its manifest), keys (--key-file
#                                options), $W/records.removed
#   sanitized BIN                true when BIN was built with ASan/UBSan
#   peak_rss OUT -- CMD...       run CMD (stdout to OUT, stderr to OUT.err);
#                                sets RC to its exit status and RSS_MB to
#                                its peak resident set size in MiB
#   keep_work                    $W is read by later tests (a fixture's
#                                image): finish leaves it in place
#   finish                       print "N passed, M failed" and exit 0 only
#                                when nothing failed; a passing test's $W
#                                is removed (unless keep_work, or
#                                E4DUMP_KEEP_WORK=1 in the environment) so
#                                that two full builds' runs fit on the disk
#   give_up MSG                  bad MSG, then finish: nothing more can be checked

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pass=0 fail=0

workdir() {
	W=$1
	rm -rf "$W" && mkdir -p "$W"
}
check_extract() { /usr/bin/python3 "$top/tests/vm/check_extract.py" "$@"; }
sample() {
	S=$top/testvectors/sample
	K=$S/sample.key
	[ -z "${1:-}" ] || xz -dc "$S/sample.img.xz" >"$W/$1" || give_up "xz -dc sample.img.xz"
}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

keep_work() { keep_w=1; }

finish() {
	echo "$pass passed, $fail failed"
	if [ "$fail" = 0 ] && [ -z "${keep_w:-}" ] && [ -z "${E4DUMP_KEEP_WORK:-}" ] &&
		[ -n "${W:-}" ] && [ -d "$W" ]; then
		rm -rf "$W"
	fi
	[ "$fail" = 0 ]
	exit
}

give_up() {
	bad "$1"
	finish
}

# A test of e4dump mount: /dev/fuse usable, fusermount3, mountpoint and
# the tools named found, else it is skipped; MNT=$W/mnt made.
mount_setup() {
	[ -w /dev/fuse ] || give_up "SKIPPED: /dev/fuse is not usable"
	for t in fusermount3 mountpoint "$@"; do
		command -v "$t" >/dev/null || give_up "SKIPPED: $t not found (scripts/install-deps.sh)"
	done
	MNT=$W/mnt
	mkdir -p "$MNT"
}

sanitizer_report() {
	grep -Eq '[A-Za-z]+Sanitizer|runtime error' "$1"
}

expect() {
	local name=$1 want=$2 re=$3
	shift 4
	"$@" >"$W/out" 2>"$W/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want; stderr: $(head -3 "$W/err")"
	elif [ -n "$re" ] && ! grep -Eq "$re" "$W/err"; then
		bad "$name: stderr does not match /$re/: $(head -3 "$W/err")"
	elif sanitizer_report "$W/err"; then
		bad "$name: sanitizer report"
	else
		ok
	fi
}

must_run() {
	local name=$1 out=$2
	shift 3
	"$@" >"$out" 2>"$out.err"
	local rc=$?
	if [ "$rc" != 0 ]; then
		bad "$name: exit $rc, want 0: $(head -3 "$out.err")"
	elif [ ! -s "$out" ]; then
		bad "$name: printed nothing: $(head -3 "$out.err")"
	elif sanitizer_report "$out.err"; then
		bad "$name: sanitizer report"
	else
		ok
		return 0
	fi
	return 1
}

sanitized() {
	nm -D "$1" 2>/dev/null | grep -q "__asan_init\|__ubsan_handle"
}

peak_rss() {
	local out=$1
	shift 2
	# GNU time forks from a small process: Python's own memory would
	# count in the child's maximum before exec
	/usr/bin/time -f "%x %M" -o "$out.rss" "$@" >"$out" 2>"$out.err"
	read -r RC RSS_MB < <(tail -1 "$out.rss")  # after "Command exited with ..."
	RSS_MB=$((RSS_MB / 1024))
}

make_image() {
	bash "$top/vm/make-image.sh" "$1" "$2" >"$3" 2>&1 && return 0
	tail -20 "$3"
	give_up "make-image.sh $(basename "$1") failed"
}

records() {
	must_run "$2 records" "$W/records.$2" -- check_extract "$1" --records "$2"
}

checker() {
	local name=$1
	shift
	"$@" >"$W/$name.check" 2>&1 && ok ||
		bad "$name: $(grep -m8 FAIL "$W/$name.check"; tail -1 "$W/$name.check")"
	tail -1 "$W/$name.check"
}

deletion_image() {
	img=$W/undelete-$1.img
	man=$img.manifest
	make_image "$top/vm/scenarios/undelete-$1.scn" "$img" "$W/make-image.log"
	records "$man" removed
	echo "$(wc -l <"$W/records.removed") entries deleted by the kernel"
	keys=()
	for k in "$W"/keys/*.key; do keys+=(--key-file "$k"); done
	[ ${#keys[@]} -gt 0 ] || give_up "no key file written by make-image.sh"
}
