#!/bin/bash
# A representative subset under valgrind (memcheck): ls -R, extract (also
# of the hostile image, and --force over it), cat and verify on the bundled
# sample with its key; info, ls and extract on a corrupt one.  Fails on any
# memcheck error (exit 99) or definite leak.  Skipped (77) for sanitizer
# builds, which valgrind cannot run.
# usage: valgrind.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
S=$top/testvectors/sample
K=$S/sample.key
command -v valgrind >/dev/null || give_up "valgrind not installed (scripts/install-deps.sh)"
if nm -D "$E4DUMP" 2>/dev/null | grep -q "__asan_init\|__ubsan_handle"; then
	echo "skipped: sanitizer build"
	exit 77
fi
workdir "$2"
xz -dc "$S/sample.img.xz" >"$W/sample.img"
/usr/bin/python3 "$top/tests/cli/corrupt_context.py" "$W/sample.img" /secret "$W/cx"
/usr/bin/python3 "$top/tests/cli/hostile_names.py" "$W/sample.img" "$K" "$W/h" /nonexistent

# vg NAME WANT_RC -- e4dump arguments
vg() {
	local name=$1 want=$2
	shift 3
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$W/$name.vg" "$E4DUMP" "$@" >"$W/$name.out" 2>"$W/$name.err"
	local rc=$?
	if [ $rc = "$want" ] && [ ! -s "$W/$name.vg" ]; then
		ok
	else
		bad "$name: exit $rc, want $want"
		head -30 "$W/$name.vg"
	fi
}

vg ls-R 0 -- ls -R -l --key-file "$K" "$W/sample.img"
vg ls-R-nokey 0 -- ls -R -l "$W/sample.img"
vg cat 0 -- cat --key-file "$K" "$W/sample.img" "/secret/sub/nested file.bin"
vg extract 0 -- extract --key-file "$K" "$W/sample.img" -o "$W/x1"
vg extract-hostile 0 -- extract --key-file "$K" "$W/h-hostile.img" -o "$W/x2"
vg extract-force 0 -- extract --force --key-file "$K" "$W/h-hostile.img" -o "$W/x2"
vg extract-trap 1 -- extract --key-file "$K" "$W/h-trap.img" -o "$W/x3"
vg verify 0 -- verify --key-file "$K" "$W/sample.img"
vg verify-json 0 -- verify --json --key-file "$K" "$W/sample.img"
vg info-corrupt 0 -- info "$W/cx-truncated.img"
vg ls-corrupt 1 -- ls -R --key-file "$K" "$W/cx-hash.img"
vg extract-corrupt 1 -- extract --key-file "$K" "$W/cx-version.img" -o "$W/x4"
vg verify-corrupt 1 -- verify --key-file "$K" "$W/cx-truncated.img"
finish
