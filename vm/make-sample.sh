#!/bin/bash
# Regenerate the bundled sample (testvectors/sample/): Linux 6.1 in QEMU
# writes vm/scenarios/sample.scn into a 4 MiB image, which is stored
# xz-compressed with its key and the guest's manifest.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/testvectors/sample
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$top/vm/make-image.sh" "$top/vm/scenarios/sample.scn" "$work/sample.img" >/dev/null
mkdir -p "$out"
xz -9 -c "$work/sample.img" >"$out/sample.img.xz"
cp "$work/sample.img.manifest" "$out/sample.manifest"
keys=("$work"/keys/*.key)
[ ${#keys[@]} = 1 ] || { echo "make-sample: expected one key" >&2; exit 1; }
cp "${keys[0]}" "$out/sample.key"
ls -l "$out"
