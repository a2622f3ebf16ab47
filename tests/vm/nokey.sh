#!/bin/bash
# Without a key, e4dump ls prints byte for byte the names the kernel's
# readdir returned (vm/scenarios/nokey-61.scn: Linux 6.1 base64url no-key
# names, a 3000-entry htree directory, names of every length 1..255), and
# the kernel's own no-key behaviour holds: lookup by no-key name works, open
# fails with ENOKEY, so do create, mkdir, symlink, mknod, O_TMPFILE, link,
# rename and truncate, symlink targets read without the key are the ones
# e4dump stat shows, unlink by no-key name works, a policy cannot be set on
# a non-empty directory, and everything created inside inherits the policy.
# usage: nokey.sh E4DUMP WORKDIR [SCENARIO]
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
SCN=${3:-$top/vm/scenarios/nokey-61.scn}
workdir "$2"
rec() { check_extract "$man" --records "$1" ${2:+--tag "$2"}; }

img=$W/nokey.img
make_image "$SCN" "$img" "$W/make-image.log"
man=$img.manifest

# The kernel's no-key names against e4dump's, for each readdir of the run.
unlinked=$(rec unlinked nokey | cut -f2)
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img" "$unlinked"

# lookup by no-key name: every entry found (records: none is a failure)
records "$man" lookup
while IFS=$'\t' read -r tag dir total okc; do
	[ "$total" -gt 0 ] && [ "$total" = "$okc" ] && ok || bad "lookup $tag: $okc of $total"
done <"$W/records.lookup"
# open without the key: ENOKEY (126)
records "$man" open
while IFS=$'\t' read -r tag dir total okc err; do
	[ "$total" -gt 0 ] && [ "$okc" = 0 ] && [ "$err" = 126 ] && ok || bad "open $tag: $okc of $total opened, errno $err"
done <"$W/records.open"
# symlink targets without the key (generic/440): what the kernel's readlink
# returned, as e4dump stat shows it
records "$man" t
nt=0
while IFS=$'\t' read -r tag path target; do
	nt=$((nt + 1))
	got=$("$E4DUMP" stat --json "$img" "/$path" 2>/dev/null | grep "^{\"type\":\"stat\"" |
		/usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin); print(r.get("target"), r.get("target_state"))')
	[ "$got" = "$target nokey" ] && ok || bad "readlink /$path without the key: kernel '$target', e4dump stat '$got'"
done <"$W/records.t"
echo "$nt symlink targets read without the key: e4dump stat shows the kernel's"
# every encrypted inode has its own nonce (xfstests generic/613)
/usr/bin/python3 "$top/tests/kernel/nonces.py" "$img" 1000 >"$W/nonces" 2>&1 && ok ||
	bad "nonces: $(tail -3 "$W/nonces")"
tail -1 "$W/nonces"
# create, mkdir, symlink, mknod, O_TMPFILE, link, rename (within and out),
# truncate without the key: ENOKEY (126), as fscrypt.rst says
records "$man" nokey-op
[ "$(wc -l <"$W/records.nokey-op")" = 9 ] && ok || bad "nokey-op: $(wc -l <"$W/records.nokey-op") records, want 9"
while IFS=$'\t' read -r tag op err; do
	[ "$err" = 126 ] && ok || bad "without the key, $op: errno $err, want ENOKEY (126)"
done <"$W/records.nokey-op"
# unlink by no-key name, gone after remount
[ -n "$unlinked" ] && ok || bad "nothing unlinked"
[ "$(rec exists nokey | cut -f3)" = 0 ] && [ -n "$(rec exists nokey)" ] && ok || bad "unlinked entry still exists after remount"
# policy on a non-empty directory: ENOTEMPTY (39)
[ "$(rec policy-nonempty | cut -f2)" = 39 ] && ok || bad "policy-nonempty: $(rec policy-nonempty)"
# inheritance: files and directories share the tree's policy
records "$man" inherit
while IFS=$'\t' read -r tag total same; do
	[ "$total" -gt 0 ] && [ "$total" = "$same" ] && ok || bad "inherit $tag: $same of $total"
done <"$W/records.inherit"
# symlinks: all encrypted (flag and context), counted by e4dump info
syml=$(rec inherit-symlinks | awk -F'\t' '{s += $2} END {print s}')
must_run "info" "$W/info" -- "$E4DUMP" info "$img"
grep -q "symlinks $syml," "$W/info" && ok || bad "encrypted symlinks: want $syml: $(grep 'encrypted inodes' "$W/info")"

finish
