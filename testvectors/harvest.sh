#!/bin/bash
# Regenerate testvectors/kernel/v1-kat.txt: boot Linux 6.1 in QEMU, have it
# write vm/scenarios/v1-pad.scn, and harvest vectors from the image with
# debugfs (testvectors/harvest.py).  Nonces differ on every run, so the file
# changes completely; any run's output is valid.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$top/vm/make-image.sh" "$top/vm/scenarios/v1-pad.scn" "$work/v1-pad.img" >/dev/null
/usr/bin/python3 "$top/testvectors/harvest.py" "$work/v1-pad.img" \
	"$work/v1-pad.img.manifest" "$work/keys" "$top/testvectors/kernel/v1-kat.txt"
/usr/bin/python3 "$top/testvectors/kat_to_jsonl.py" "$top/testvectors/kernel/v1-kat.txt" \
	>"$top/testvectors/kernel/v1-kat.jsonl"
