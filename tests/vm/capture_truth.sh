#!/bin/bash
# Spec §17 against RAM captures of a real 6.1 guest (issue 30): the
# captures of vm/scenarios/capture-keys.scn and capture-nokey.scn (cached,
# make-image.sh --cache), checked by tests/vm/capture_truth.py without
# e4dump.  usage: capture_truth.sh WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
workdir "$1"
for s in keys nokey; do
	bash "$top/vm/make-image.sh" --cache "$top/vm/scenarios/capture-$s.scn" "$W/$s/$s.img" \
		>"$W/make-$s.log" 2>&1 || { tail -20 "$W/make-$s.log"; give_up "capture-$s.scn"; }
done
/usr/bin/python3 "$top/tests/vm/capture_truth.py" "$W/keys/keys.img" --nokey "$W/nokey/nokey.img" \
	>"$W/truth" 2>&1 && ok || bad "$(grep -m10 'CONTRADICTED\|Error' "$W/truth"; tail -3 "$W/truth")"
grep -c '^holds' "$W/truth" | sed 's/$/ facts hold/'
finish
