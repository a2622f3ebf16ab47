#!/bin/bash
# The bundled sample (written by Linux 6.1 in QEMU, testvectors/sample/):
# extracted with its key it matches the guest's manifest byte for byte;
# without the key nothing of the encrypted tree is written and exit is 1.
# usage: sample.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
W=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
S=$top/testvectors/sample
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

xz -dc "$S/sample.img.xz" >"$W/sample.img"
chmod 0444 "$W/sample.img"
"$E4DUMP" extract --key-file "$S/sample.key" "$W/sample.img" -o "$W/out" 2>"$W/err"
rc=$?
[ $rc = 0 ] && ok || bad "extract: exit $rc: $(head -3 "$W/err")"
python3 "$top/tests/vm/check_extract.py" -q "$S/sample.manifest" "$W/out" >"$W/check" 2>&1 &&
	ok || bad "$(grep FAIL "$W/check" | head -5)"
tail -1 "$W/check"
"$E4DUMP" extract "$W/sample.img" -o "$W/nokey" 2>"$W/nokey.err"
rc=$?
[ $rc = 1 ] && ok || bad "extract without key: exit $rc"
python3 "$top/tests/vm/check_extract.py" -q "$S/sample.manifest" "$W/nokey" \
	--tree plain --expect-missing secret >"$W/check2" 2>&1 && ok || bad "$(grep FAIL "$W/check2" | head -5)"
grep -q "no key for descriptor 5430581507fd59c1" "$W/nokey.err" && ok || bad "no descriptor message"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
