#!/bin/bash
# Regenerate the kernel-harvested vectors: boot Linux 6.1 in QEMU, have it
# write the scenarios, and harvest vectors from the images with debugfs.
#   kernel/v1-kat.txt (+ .jsonl)  vm/scenarios/v1-pad.scn (harvest.py)
#   kernel/modern-kat.jsonl       v2.scn, v1-modes.scn, v2-1k.scn,
#                                 adiantum-hctr2.scn, adiantum-1k.scn,
#                                 v2-casefold.scn, nokey-61.scn,
#                                 format-2015.scn (harvest_modern.py)
# Nonces differ on every run, so the files change completely; any run's
# output is valid.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for s in v1-pad v2 v1-modes v2-1k adiantum-hctr2 adiantum-1k v2-casefold nokey-61 format-2015; do
	bash "$top/vm/make-image.sh" "$top/vm/scenarios/$s.scn" "$work/$s.img" >/dev/null
done
/usr/bin/python3 "$top/testvectors/harvest.py" "$work/v1-pad.img" \
	"$work/v1-pad.img.manifest" "$work/keys" "$top/testvectors/kernel/v1-kat.txt"
/usr/bin/python3 "$top/testvectors/kat_to_jsonl.py" "$top/testvectors/kernel/v1-kat.txt" \
	>"$top/testvectors/kernel/v1-kat.jsonl"
{
	for s in v2 v1-modes v2-1k adiantum-hctr2 adiantum-1k v2-casefold nokey-61; do
		/usr/bin/python3 "$top/testvectors/harvest_modern.py" "$work/$s.img" \
			"$work/$s.img.manifest" "$work/keys" "$s"
	done
	/usr/bin/python3 "$top/testvectors/harvest_modern.py" "$work/format-2015.img" \
		"$work/format-2015.img.manifest" "$work/keys" format-2015 --generation 2015
} >"$top/testvectors/kernel/modern-kat.jsonl"
