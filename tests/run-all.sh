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
	(cd "$dir" && ctest --output-on-failure -j1)
}

run_build build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_build build-asan -DE4DUMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
echo "run-all: all tests passed in $(( $(date +%s) - start )) s"
