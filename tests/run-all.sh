#!/bin/bash
# The whole test suite: install dependencies, build e4dump twice (plain and
# with ASan+UBSan), and run every ctest test in both builds, including the
# QEMU cross-check (a Linux 6.1 kernel built from linux-source-6.1 writes
# encrypted images, e4dump decrypts them on the host).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$(date +%s)
bash scripts/install-deps.sh

# The kernel is built once and cached outside the repository.
export E4DUMP_CACHE=${E4DUMP_CACHE:-/var/cache/e4dump}

run_build() {
	local dir=$1
	shift
	cmake -S . -B "$dir" -DBUILD_TESTING=ON "$@" >/dev/null
	cmake --build "$dir" -j"$(nproc)" >/dev/null
	# one test per core: most are one process each (a QEMU guest is one
	# TCG thread), and fixtures order what depends on what
	(cd "$dir" && ctest --output-on-failure -j"$(nproc)")
}

# What the suite writes: about 3 GiB per build beside the kernel cache
# (passing tests remove their work directories, tests/lib/common.sh).
free_gib=$(( $(df -Pk . | awk 'NR == 2 { print $4 }') / 1048576 ))
[ "$free_gib" -ge 8 ] ||
	echo "run-all: warning: only $free_gib GiB free under $top; the two builds' runs need about 8" >&2

run_build build
# the plain run passed: its fixtures' images are not needed by the second
rm -rf build/tests/work
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_build build-asan -DE4DUMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
echo "run-all: all tests passed in $(( $(date +%s) - start )) s"
