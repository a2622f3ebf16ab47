#!/bin/bash
# The verify corpus: clean kernel-written bases and corrupted copies.
# usage: make-corpus.sh OUTDIR
#   OUTDIR/bases/sample/sample.img   the bundled kernel-written sample (xz -d)
#   OUTDIR/bases/{pad,f2015,v2-1k,v2,adh,deep,cf}/NAME.img   written now by
#                Linux 6.1 in QEMU (vm/make-image.sh: vm/scenarios/v1-pad.scn,
#                format-2015.scn, v2-1k.scn, v2.scn, adiantum-hctr2.scn,
#                tests/verify/scenarios/deep-htree.scn and
#                vm/scenarios/v2-casefold.scn), with keys/
#   OUTDIR/cases/CASE.{img,args,want}   tests/verify/make_cases.py
# The kernel is built (or reused) in $E4DUMP_CACHE (default /var/cache/e4dump).
set -euo pipefail
OUT=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rm -rf "$OUT" && mkdir -p "$OUT/bases/sample/keys" "$OUT/cases"
xz -dc "$top/testvectors/sample/sample.img.xz" >"$OUT/bases/sample/sample.img"
cp "$top/testvectors/sample/sample.key" "$OUT/bases/sample/keys/5430581507fd59c1.key"
for b in pad:vm/scenarios/v1-pad f2015:vm/scenarios/format-2015 \
	 v2-1k:vm/scenarios/v2-1k v2:vm/scenarios/v2 adh:vm/scenarios/adiantum-hctr2 \
	 deep:tests/verify/scenarios/deep-htree cf:vm/scenarios/v2-casefold; do
	name=${b%%:*} scn=${b#*:}
	mkdir -p "$OUT/bases/$name"
	bash "$top/vm/make-image.sh" "$top/$scn.scn" \
		"$OUT/bases/$name/$name.img" >"$OUT/bases/$name/make.log" 2>&1 ||
		{ tail -20 "$OUT/bases/$name/make.log"; echo "make-corpus: $scn.scn failed" >&2; exit 1; }
	rm -f "$OUT/bases/$name/$name.img.console.log"
done
/usr/bin/python3 "$here/make_cases.py" "$OUT/bases" "$OUT/cases"
