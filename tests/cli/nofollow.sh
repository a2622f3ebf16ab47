#!/bin/bash
# extract never follows a symlink inside DIR: neither one planted before
# nor one it extracted itself; existing files are not overwritten without
# --force.  A victim directory outside DIR must stay exactly as it was.
# usage: nofollow.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
W=$2
. "$(dirname "$0")/outdir_common.sh"
before=$(victim_sum)

# 1. Symlinks planted in DIR.
plant "$W/o1"
"$E4DUMP" extract --key-file "$K" "$W/sample.img" -o "$W/o1" 2>"$W/err1"
rc=$?
check "planted: exit $rc, want 1" '[ $rc = 1 ]'
for re in '^e4dump: error: /secret \(inode [0-9]+\): cannot open directory: ' \
	'^e4dump: error: /plain/hello.txt \(inode [0-9]+\): cannot create: File exists$' \
	'^e4dump: error: /plain/sub \(inode [0-9]+\): cannot open directory: ' \
	'^e4dump: error: /plain/link \(inode [0-9]+\): cannot create symlink: File exists$' \
	'^e4dump: error: /plain/empty \(inode [0-9]+\): cannot open directory: '; do
	check "planted: no [$re] in: $(head -3 "$W/err1")" 'grep -Eq "$re" "$W/err1"'
done
check "planted: victim changed" '[ "$before" = "$(victim_sum)" ]'
check "planted: symlinks still there" '[ -L "$W/o1/secret" ] && [ -L "$W/o1/plain/hello.txt" ] && [ -L "$W/o1/plain/sub" ]'
# (cat into a file: a process substitution would hide its exit status)
must_run "cat /plain/日本.txt" "$W/cat1" -- "$E4DUMP" cat "$W/sample.img" /plain/日本.txt &&
	check "planted: the rest is extracted" 'cmp -s "$W/o1/plain/日本.txt" "$W/cat1"'
check "sanitizer report" '! sanitizer_report "$W/err1"'

# 2. The image itself plants the symlink: /plain/evil -> victim/evil and a
# directory also named evil.  Both are kept (the second under a new name,
# reported, exit 1); nothing is written through the symlink.
"$E4DUMP" extract --key-file "$K" "$W/h-trap.img" -o "$W/o2" 2>"$W/err2"
rc=$?
check "trap: exit $rc, want 1" '[ $rc = 1 ]'
check "trap: error: $(head -2 "$W/err2")" 'grep -Eq "^e4dump: error: /plain/evil \(inode 2[78]\): name already taken in this directory, extracted as \"%evil%~2[78]\"$" "$W/err2"'
check "trap: both kept" '[ -d "$W/o2/plain/evil" ] || [ -d "$W/o2/plain/%evil%~27" ]' 
check "trap: victim changed" '[ "$before" = "$(victim_sum)" ] && [ ! -e "$W/victim/evil" ]'
check "trap: hard link kept" '[ "$(stat -c %i "$W/o2/plain/hard")" = "$(stat -c %i "$W/o2/plain/hello.txt")" ]'

# 3. A second extraction into a complete tree overwrites nothing.
"$E4DUMP" extract "$W/sample.img" -o "$W/o3" 2>/dev/null
printf 'mine\n' >"$W/o3/plain/hello.txt"
sum3=$(cd "$W/o3" && find . -printf '%p %y %s %T@\n' | LC_ALL=C sort)
"$E4DUMP" extract "$W/sample.img" -o "$W/o3" 2>"$W/err3"
rc=$?
check "again: exit $rc, want 1" '[ $rc = 1 ]'
check "again: hello.txt overwritten" '[ "$(cat "$W/o3/plain/hello.txt")" = mine ]'
check "again: DIR changed" '[ "$sum3" = "$(cd "$W/o3" && find . -printf "%p %y %s %T@\n" | LC_ALL=C sort)" ]'
check "again: File exists" 'grep -Eq "^e4dump: error: /plain/hello.txt \(inode [0-9]+\): cannot create: File exists$" "$W/err3"'
check "victim changed at the end" '[ "$before" = "$(victim_sum)" ]'
finish
