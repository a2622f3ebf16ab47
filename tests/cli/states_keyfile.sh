#!/bin/bash
# Key files of the HKDF states form (e4dump.1, KEY FILES): written here by
# tests/vm/states_keyfile.py (Python, independent of e4dump) from a random
# v2 key; keyid prints the identifier hashlib computes from the raw key
# and says a v1 descriptor does not apply; a states key is never used for
# a v1 policy (the kernel-written sample); hostile states files (a wrong
# identifier, swapped states, truncated hex, duplicate lines, another
# version, an unknown line, a missing line) exit 2 with a message naming
# the file, with no hex digits of the key in it.  (Decryption with states
# keys: tests/vm/states_keys.sh, on kernel-written v2 images.)
# usage: states_keyfile.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
head -c 64 /dev/urandom >"$W/raw.key"
id=$(/usr/bin/python3 "$top/tests/vm/states_keyfile.py" "$W/raw.key" "$W/good.states") ||
	give_up "states_keyfile.py failed"
want=$(python3 -c '
import hashlib, hmac, sys
prk = hmac.new(b"\0" * 64, open(sys.argv[1], "rb").read(), hashlib.sha512).digest()
print(hmac.new(prk, b"fscrypt\0\x01\x01", hashlib.sha512).digest()[:16].hex())' "$W/raw.key")
check "the converter's identifier is hashlib's HKDF ($id)" '[ "$id" = "$want" ]'

must_run "keyid of a states key" "$W/keyid" -- "$E4DUMP" keyid --key-file "$W/good.states" &&
	check "keyid: the identifier, no descriptor" \
		'grep -qxF "$W/good.states: HKDF states of a v2 key, v1 descriptor not applicable (no raw key), v2 identifier $want" "$W/keyid"'
must_run "keyid --json of a states key" "$W/keyid.json" -- "$E4DUMP" keyid --json --key-file "$W/good.states" &&
	check "keyid --json: form hkdf-states, null bytes and descriptor" \
		'python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).readline()); sys.exit(not (r[\"form\"]==\"hkdf-states\" and r[\"bytes\"] is None and r[\"descriptor\"] is None and r[\"identifier\"]==sys.argv[2]))" "$W/keyid.json" "$want"'
# a v1 policy: the states key is not tried (the sample key still opens it)
"$E4DUMP" keyid --key-file "$W/good.states" --key-file "$K" "$W/s.img" >"$W/keyid.img" 2>&1
check "keyid IMAGE: the states key opens nothing in a v1 image, the sample key its policy" \
	'grep -A1 "good.states:" "$W/keyid.img" | grep -q "opens nothing in" && grep -A1 "sample.key:" "$W/keyid.img" | grep -q "^  opens policy v1"'
"$E4DUMP" info --key-file "$W/good.states" "$W/s.img" >"$W/info" 2>&1
check "info: a states key alone opens no v1 policy" \
	'grep -q "none of the given keys opens it" "$W/info" && ! grep -q "key .*good.states opens" "$W/info"'

# hostile states files, each from the good one
g=$W/good.states
ipad=$(sed -n 's/^ipad_state //p' "$g")
opad=$(sed -n 's/^opad_state //p' "$g")
hostile() { # NAME WHY: the file $W/NAME.states, refused with WHY
	local name=$1 why=$2 f=$W/$1.states
	expect "$name (keyid)" 2 "key file $f: $why" -- "$E4DUMP" keyid --key-file "$f"
	check "$name (keyid): no hex digits of the key in the message" '! grep -Eq "[0-9a-fA-F]{16}" "$W/err"'
	expect "$name (ls)" 2 "key file $f: $why" -- "$E4DUMP" ls --key-file "$f" "$W/s.img"
	check "$name (ls): no hex digits of the key in the message" '! grep -Eq "[0-9a-fA-F]{16}" "$W/err"'
}
sed "s/^identifier .*/identifier ${want:0:31}$( [ "${want:31}" = 0 ] && echo 1 || echo 0)/" "$g" >"$W/bad-id.states"
hostile bad-id "identifier does not match its states"
sed -e "s/^ipad_state .*/ipad_state $opad/" -e "s/^opad_state .*/opad_state $ipad/" "$g" >"$W/swapped.states"
hostile swapped "identifier does not match its states"
sed "s/^opad_state .*/opad_state ${opad:0:100}/" "$g" >"$W/truncated.states"
hostile truncated "opad_state: not 128 hex digits"
head -c -1 "$g" | sed '$s/.$//' >"$W/cut.states" # the last digit gone: a cut file
hostile cut "opad_state: not 128 hex digits"
{ cat "$g"; grep '^ipad_state' "$g"; } >"$W/dup.states"
hostile dup "ipad_state line given twice"
sed 's/^e4dump-hkdf-states 1$/e4dump-hkdf-states 2/' "$g" >"$W/v2.states"
hostile v2 "unsupported version of the states form"
{ cat "$g"; echo "master 00"; } >"$W/unknown.states"
hostile unknown "unknown line"
grep -v '^identifier' "$g" >"$W/noid.states"
hostile noid "no identifier line"
finish
