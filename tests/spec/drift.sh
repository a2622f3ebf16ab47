#!/bin/bash
# examples.sh must fail when the spec drifts from the code or the image:
# one changed digit in a jsonl example, one in an image-bytes line.
# usage: drift.sh E4DUMP WORKDIR PYTHON_VERIFIER
set -u
E4DUMP=$1
VERIFY=$3
. "$(dirname "$0")/../lib/common.sh"
spec=$top/spec/ext4-encryption.md
workdir "$2"
# The last digit of the first "derived" value, and the first byte of the
# first image-bytes data line, each changed in its own copy.
/usr/bin/python3 - "$spec" "$W" <<'PY'
import re, sys
spec, w = sys.argv[1:3]
text = open(spec, encoding="utf-8").read()
flip = lambda c: "0" if c != "0" else "1"
m = re.search(r'"derived":"[0-9a-f]*([0-9a-f])"', text)
i = m.end(1) - 1
open(w + "/jsonl.md", "w").write(text[:i] + flip(text[i]) + text[i + 1:])
m = re.search(r"```image-bytes\n(?:#.*\n)*0x[0-9a-f]+ ([0-9a-f])", text)
i = m.start(1)
open(w + "/bytes.md", "w").write(text[:i] + flip(text[i]) + text[i + 1:])
PY
for c in jsonl bytes; do
	if cmp -s "$spec" "$W/$c.md"; then
		bad "could not make the $c drift"; continue
	fi
	if E4DUMP_SPEC=$W/$c.md bash "$top/tests/spec/examples.sh" "$E4DUMP" "$W/run-$c" "$VERIFY" >"$W/$c.out" 2>&1; then
		bad "a drifted $c example passed"
	else
		ok
		echo "ok: drifted $c example rejected: $(grep -m1 FAIL "$W/$c.out")"
	fi
done
finish
