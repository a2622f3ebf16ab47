#!/bin/bash
# extract --force: existing files and symlinks in DIR are replaced (the
# entries themselves, never written through), directories are reused, a
# directory where a file goes is an error; nothing outside DIR changes.
# usage: force.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
W=$2
. "$(dirname "$0")/outdir_common.sh"
before=$(victim_sum)
tree() {
	check_extract -q "$S/sample.manifest" "$1" \
		>"$W/check" 2>&1
}
: >"$W/check"

# 1. Planted symlinks are replaced by what the image has.
plant "$W/o1"
"$E4DUMP" extract --force --key-file "$K" "$W/sample.img" -o "$W/o1" 2>"$W/err1"
rc=$?
check "planted: exit $rc, want 0: $(head -3 "$W/err1")" '[ $rc = 0 ]'
check "planted: victim changed" '[ "$before" = "$(victim_sum)" ]'
check "planted: secret is a directory" '[ -d "$W/o1/secret" ] && [ ! -L "$W/o1/secret" ]'
check "planted: hello.txt is a file" '[ -f "$W/o1/plain/hello.txt" ] && [ ! -L "$W/o1/plain/hello.txt" ]'
check "planted: link" '[ "$(readlink "$W/o1/plain/link")" = hello.txt ]'
check "planted: tree: $(grep FAIL "$W/check" | head -3)" 'tree "$W/o1"'
check "sanitizer report" '! sanitizer_report "$W/err1"'

# 2. Again over the complete tree, with a changed file: all replaced.
printf 'mine\n' >"$W/o1/secret/hello.txt"
ino=$(stat -c %i "$W/o1/secret/hello.txt")
"$E4DUMP" extract --force --key-file "$K" "$W/sample.img" -o "$W/o1" 2>"$W/err2"
rc=$?
check "again: exit $rc, want 0: $(head -3 "$W/err2")" '[ $rc = 0 ]'
check "again: tree: $(grep FAIL "$W/check" | head -3)" 'tree "$W/o1"'
check "again: replaced, not rewritten in place" '[ "$(stat -c %i "$W/o1/secret/hello.txt")" != "$ino" ]'
check "again: temporary files left" '[ -z "$(find "$W/o1" -name ".e4dump-tmp-*")" ]'

# 3. A directory where a file goes is not replaced.
rm "$W/o1/plain/日本.txt" && mkdir "$W/o1/plain/日本.txt"
touch "$W/o1/plain/日本.txt/keep"
"$E4DUMP" extract --force "$W/sample.img" /plain -o "$W/o1" 2>"$W/err3"
rc=$?
check "dir in the way: exit $rc, want 1" '[ $rc = 1 ]'
check "dir in the way: $(head -2 "$W/err3")" 'grep -Eq "^e4dump: error: /plain/日本.txt \(inode [0-9]+\): cannot replace: Is a directory$" "$W/err3"'
check "dir in the way: kept" '[ -f "$W/o1/plain/日本.txt/keep" ]'
check "dir in the way: temporary files left" '[ -z "$(find "$W/o1" -name ".e4dump-tmp-*")" ]'

# 4. The trap image (symlink and directory named evil, a hard link), twice.
for i in 1 2; do
	"$E4DUMP" extract --force --key-file "$K" "$W/h-trap.img" -o "$W/o4" 2>"$W/err4"
	check "trap $i: victim changed" '[ "$before" = "$(victim_sum)" ] && [ ! -e "$W/victim/evil" ]'
	check "trap $i: hard link" '[ "$(stat -c %i "$W/o4/plain/hard")" = "$(stat -c %i "$W/o4/plain/hello.txt")" ]'
	check "trap $i: sanitizer report" '! sanitizer_report "$W/err4"'
done

# 5. --force is for extract only.
"$E4DUMP" ls --force "$W/sample.img" >/dev/null 2>"$W/err5"
rc=$?
check "ls --force: exit $rc, want 2" '[ $rc = 2 ] && grep -q "^e4dump: error: ls: bad option \"--force\" (see e4dump ls --help)$" "$W/err5"'
finish
