#!/bin/bash
# info lists the encrypted directories each policy covers, as `fscrypt
# status` does: its top directories (parent unencrypted, or of another
# policy).  tests/cli/policy_dirs_craft.py (ext4img, not e4dump) gives a
# copy of the sample a second policy B on /plain/empty (under an
# unencrypted parent) and on /secret/sub (inside policy A's /secret, which
# the kernel never makes), and an entry of /secret/sub naming /secret (a
# loop).  Checked: each policy's directories with their inodes (ext4img's)
# in text and JSON (schema-valid), with and without the key; the nesting
# warned about and the loop reported once, the walk ending (info lists
# facts: what the walk meets is a warning, exit 0).
# usage: policy_dirs.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
PY=/usr/bin/python3
$PY "$top/tests/cli/policy_dirs_craft.py" "$W/s.img" "$W/c.img" "$W/facts" ||
	give_up "policy_dirs_craft.py failed"
read -r _ A < <(grep '^A ' "$W/facts")
read -r _ B < <(grep '^B ' "$W/facts")
ino() { sed -n "s|^ino $1 ||p" "$W/facts"; }
I_SECRET=$(ino /secret)
I_EMPTY=$(ino /plain/empty)
I_SUB=$(ino /secret/sub)

# text, with the key of A: every name shown decrypted
expect "info with A's key: the nesting and the loop warned about (facts for info: exit 0)" 0 \
	"/secret/sub \(inode $I_SUB\): a directory of policy v1 descriptor $B inside a directory of policy v1 descriptor $A" -- \
	timeout 60 "$E4DUMP" info --key-file "$K" "$W/c.img"
check "the loop is reported once, as a warning" \
	'[ "$(grep -c "^e4dump: warning: .*directory loop" "$W/err")" = 1 ] && ! grep -q "error:" "$W/err"'
check "policy A: /secret only" \
	'grep -A2 "descriptor $A, inodes" "$W/out" | sed -n 2,3p | tr "\n" "|" | grep -qx "    directory /secret (inode $I_SECRET)|  policy v1: .*"'
check "policy B: /plain/empty, then /secret/sub inside A" \
	'grep -A2 "descriptor $B, inodes" "$W/out" | tail -2 | tr "\n" "|" |
	 grep -qx "    directory /plain/empty (inode $I_EMPTY)|    directory /secret/sub (inode $I_SUB), inside a directory of policy v1 descriptor $A|"'

# JSON, with and without the key
for k in key nokey; do
	args=()
	[ $k = key ] && args=(--key-file "$K")
	timeout 60 "$E4DUMP" info --json "${args[@]}" "$W/c.img" >"$W/$k.json" 2>"$W/$k.json.err"
	echo $? >"$W/$k.json.rc"
	checker "json-$k" $PY - "$W/$k.json" "$k" "$A" "$B" "$I_SECRET" "$I_EMPTY" "$I_SUB" <<'EOF'
import json, sys
f, k, a, b, i_secret, i_empty, i_sub = sys.argv[1:]
pols = {}
for line in open(f, encoding="utf-8"):
    r = json.loads(line)
    if r["type"] == "policy":
        pols[r["descriptor"]] = r
want = {a: [("/secret", int(i_secret), None)],
        b: [("/plain/empty", int(i_empty), None),
            ("/secret/sub", int(i_sub), a)]}
bad = 0
if sorted(pols) != sorted(want):
    print("FAIL policies", sorted(pols))
    sys.exit(1)
for d, dirs in want.items():
    got = [(x["path"], x["inode"], x["inside_policy"]) for x in pols[d]["directories"]]
    if k == "nokey":
        # /secret/sub is shown by its no-key name: only the parent is known
        got = [(p if not p.startswith("/secret/") else "/secret/sub", i, o)
               for p, i, o in got]
        if d == b and not any(x["path"].startswith("/secret/") and x["path"] != "/secret/sub"
                              for x in pols[d]["directories"]):
            print("FAIL no-key: /secret/sub not shown by a no-key name")
            bad += 1
    if got != dirs or pols[d]["directories_not_listed"] != 0:
        print(f"FAIL {d}: {got}, want {dirs}")
        bad += 1
    else:
        print(f"ok {d} {got}")
sys.exit(1 if bad else 0)
EOF
done
checker schema $PY "$top/tests/cli/schema_check.py" "$top/schema/e4dump-records.schema.json" \
	policy "$W/key.json" "$W/nokey.json"

# the sample as written by the kernel: /secret, nothing nested
expect "info of the sample: exit 0" 0 '' -- "$E4DUMP" info "$W/s.img"
check "the sample: policy A covers /secret" \
	'grep -A1 "descriptor $A, inodes 8" "$W/out" | tail -1 | grep -qx "    directory /secret (inode $I_SECRET)"'
check "the sample: nothing nested is said" '! grep -q "inside a directory" "$W/out" "$W/err"'

# more policies than the walk keeps the directories of (64): 70, met by
# the walk in another order than info lists them (policy_dirs_many_craft.py);
# the six the walk met last are "not listed", never "no directory"
$PY "$top/tests/cli/policy_dirs_many_craft.py" "$W/many.img" >/dev/null 2>&1 ||
	give_up "policy_dirs_many_craft.py failed"
expect "info of 70 policies: exit 0" 0 '' -- "$E4DUMP" info "$W/many.img"
check "no policy of the 70 is said to have no directory" '! grep -q "no directory has this policy" "$W/out"'
for d in 1d 1e 1f 20 21 22; do
	check "policy 00000000000000$d (walked after the first 64): its directories not listed" \
		'grep -A1 "descriptor 00000000000000$d," "$W/out" | tail -1 | grep -q "its directories are not listed"'
done
check "policy 0000000000000023 (walked first): its directory /x/d35" \
	'grep -A1 "descriptor 0000000000000023," "$W/out" | tail -1 | grep -q "directory /x/d35 "'
"$E4DUMP" info --json "$W/many.img" >"$W/many.json" 2>/dev/null
check "--json: the policies not collected have no directories array" \
	'$PY -c "import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if \"\\\"policy\\\"\" in l]; p=[r for r in p if r.get(\"type\")==\"policy\"]; sys.exit(not (sum(\"directories\" not in r for r in p)==6 and sum(\"directories\" in r for r in p)==len(p)-6))" "$W/many.json"'
finish
