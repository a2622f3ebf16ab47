#!/bin/bash
# The main job on the bundled sample: install what the tool needs (only
# that: the test command installs the rest), build e4dump into build/bin,
# decompress the kernel-written sample to build/sample.img, decrypt it with
# its bundled key, and say what to try next.  With the packages present it
# runs as any user.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/install-deps.sh --tool
cmake -S . -B build -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xz -dc testvectors/sample/sample.img.xz >build/sample.img
key=testvectors/sample/sample.key
img=build/sample.img
echo "== e4dump info (sample image written by Linux 6.1 in QEMU)"
build/bin/e4dump info --key-file "$key" "$img"
echo
echo "== e4dump ls -l -R without a key (no-key names)"
build/bin/e4dump ls -l -R "$img" 2>&1
echo
echo "== e4dump ls -l -R --key-file $key"
build/bin/e4dump ls -l -R --key-file "$key" "$img"
echo
echo "== e4dump extract --key-file $key -o DIR, then the decrypted tree"
build/bin/e4dump extract --key-file "$key" "$img" -o "$work/out"
(cd "$work/out" && find . -mindepth 1 | sort | while read -r p; do
	if [ -L "$p" ]; then echo "$p -> $(readlink "$p")"
	elif [ -f "$p" ]; then echo "$p ($(stat -c %s "$p") bytes, sha256 $(sha256sum <"$p" | cut -c1-16)...)"
	else echo "$p/"; fi
done)

echo
echo "== next, try:"
echo "  build/bin/e4dump stat --key-file $key $img /secret/hello.txt"
echo "  build/bin/e4dump timeline --key-file $key $img > body && mactime -b body -z UTC"
echo "  build/bin/e4dump ls -R --json --key-file $key $img"
echo "  build/bin/e4dump extract --manifest hashes.tsv --key-file $key $img -o recovered"
echo "  build/bin/e4dump verify --key-file $key $img"
echo "  build/bin/e4dump volumes $img"
echo "  man -l e4dump/e4dump.1"
