#!/bin/bash
# The main job on the bundled sample: install what is missing, build e4dump,
# and decrypt the kernel-written sample image with its bundled key.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/install-deps.sh
cmake -S . -B build -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xz -dc testvectors/sample/sample.img.xz >"$work/sample.img"
key=testvectors/sample/sample.key
echo "== e4dump info (sample image written by Linux 6.1 in QEMU)"
build/bin/e4dump info --key-file "$key" "$work/sample.img"
echo
echo "== e4dump ls -l -R without a key (no-key names)"
build/bin/e4dump ls -l -R "$work/sample.img" 2>&1
echo
echo "== e4dump ls -l -R --key-file $key"
build/bin/e4dump ls -l -R --key-file "$key" "$work/sample.img"
echo
echo "== e4dump extract --key-file $key -o DIR, then the decrypted tree"
build/bin/e4dump extract --key-file "$key" "$work/sample.img" -o "$work/out"
(cd "$work/out" && find . -mindepth 1 | sort | while read -r p; do
	if [ -L "$p" ]; then echo "$p -> $(readlink "$p")"
	elif [ -f "$p" ]; then echo "$p ($(stat -c %s "$p") bytes, sha256 $(sha256sum <"$p" | cut -c1-16)...)"
	else echo "$p/"; fi
done)
