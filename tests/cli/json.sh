#!/bin/bash
# --json on the kernel-written sample: ls -R records checked field by
# field (json_check.py: debugfs and stat); a fatal error is a JSON
# diagnostic and a summary on stdout before exit 2; a policy no given key opens is a
# diagnostic record (problem no_key) and the summary says exit 1.
# usage: json.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
python3 "$top/tests/cli/json_check.py" "$E4DUMP" "$W/s.img" "$K" >"$W/check" 2>&1
rc=$?
check "ls -R --json: every record as debugfs and stat say ($(head -2 "$W/check"))" '[ $rc = 0 ]'
jq_py() { python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; $1" "$2"; }
"$E4DUMP" ls --json "$W/missing.img" >"$W/fatal" 2>/dev/null
rc=$?
check "a fatal error: exit 2 ($rc), its diagnostic record, then the summary" \
	'[ $rc = 2 ] && jq_py "assert len(r) == 2 and r[0][\"type\"] == \"diagnostic\" and r[0][\"level\"] == \"error\" and \"No such file\" in r[0][\"reason\"] and r[1][\"type\"] == \"summary\" and r[1][\"exit\"] == 2" "$W/fatal"'
head -c 64 /dev/zero | tr '\0' '7' >"$W/other.key"
"$E4DUMP" ls -R --json --key-file "$W/other.key" "$W/s.img" >"$W/locked" 2>/dev/null
rc=$?
check "a key that opens nothing: exit 1 ($rc), a no_key diagnostic, the summary says so" \
	'[ $rc = 1 ] && jq_py "d=[o for o in r if o[\"type\"] == \"diagnostic\"]; s=r[-1]; assert d and d[0][\"problem\"] == \"no_key\" and s[\"type\"] == \"summary\" and s[\"exit\"] == 1 and s[\"locked_policies\"] == 1" "$W/locked"'
finish
