#!/bin/bash
# extract on images with hostile names (tests/cli/hostile_names.py): names
# that decrypt to "..", ".", "a/b", "../../etc/x", control bytes, NUL are
# written under their escaped names (e4dump.1, NAME ESCAPING) inside DIR,
# each reported as a warning naming the inode and the escaped name; the rest
# of the tree is extracted as usual; nothing appears outside DIR.
# usage: hostile.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
S=$top/testvectors/sample
K=$S/sample.key
workdir "$2"

xz -dc "$S/sample.img.xz" >"$W/sample.img"
/usr/bin/python3 "$top/tests/cli/hostile_names.py" "$W/sample.img" "$K" "$W/h" \
	"$W/victim/evil" || give_up "hostile_names.py"
mkdir -p "$W/box" "$W/victim"
# The unmodified sample, extracted and checked against the kernel's
# manifest, is the reference for what each hostile entry must contain.
"$E4DUMP" extract --key-file "$K" "$W/sample.img" -o "$W/ref" 2>"$W/ref.err" &&
	check_extract -q "$S/sample.manifest" "$W/ref" \
	>"$W/ref.check" 2>&1 || give_up "reference: $(head -3 "$W/ref.err" "$W/ref.check")"
# Everything is extracted into $W/box/out, so "outside" is $W/box and $W.
O=$W/box/out
# Outside: $W/box (but the output directories) and $W/victim.
snapshot() {
	(cd "$W" && find box victim \( -path box/out -o -path box/one -o -path box/nopad -o -path box/dot \) \
		-prune -o -print | LC_ALL=C sort)
}
before=$(snapshot)

"$E4DUMP" extract --key-file "$K" "$W/h-hostile.img" -o "$O" >"$W/out" 2>"$W/err"
rc=$?
check "hostile: exit $rc, want 0 (renamed entries are extracted)" '[ $rc = 0 ]'
check "sanitizer report" '! sanitizer_report "$W/err"'
check "nothing outside DIR: $(diff <(echo "$before") <(snapshot) | head -5)" \
	'[ "$before" = "$(snapshot)" ]'

# name as shown | escaped name | inode | the same as this of the reference
while IFS='|' read -r shown esc ino same; do
	check "escaped \"$esc\" missing" '[ -e "$O/secret/$esc" ] || [ -L "$O/secret/$esc" ]'
	want="e4dump: warning: /secret/$shown (inode $ino): unsafe name, extracted as \"$esc\""
	check "warning for $shown: want [$want]" 'grep -qxF -- "$want" "$W/err"'
	check "$esc differs from secret/$same: $(diff -r --no-dereference "$O/secret/$esc" "$W/ref/secret/$same" 2>&1 | head -2)" \
		'diff -r --no-dereference "$O/secret/$esc" "$W/ref/secret/$same" >/dev/null 2>&1'
done <<'EOF'
..|%%2E%2E|15|sub
.|%%2E|19|empty
a\x2fb|%a%2Fb|13|hello.txt
..\x2f..\x2fetc\x2fx|%..%2F..%2Fetc%2Fx|13|hello.txt
x\x01y|%x%01y|14|日本.txt
\x1b[31m|%%1B[31m|14|日本.txt
x\x00y|%x%00y|13|hello.txt
%legit|%%25legit|13|hello.txt
%a%2Fb|%%25a%252Fb|14|日本.txt
..\x2fescape|%..%2Fescape|17|link
EOF
check "directory .. not extracted as a directory" '[ -d "$O/secret/%%2E%2E" ] && [ ! -L "$O/secret/%%2E%2E" ]'
check "symlink ../escape" '[ "$(readlink "$O/secret/%..%2Fescape")" = hello.txt ]'
# The 200-byte name of control bytes: cut, "%~" and the inode number.
long=$(cd "$O/secret" && ls -d -- *'%~13' 2>/dev/null)
check "long escaped name: [$long]" '[ -n "$long" ] && [ ${#long} -le 255 ] && [ "${long:0:5}" = "%%01%" ]'
check "long name warning" 'grep -q "^e4dump: warning: /secret/\(\\\\x01\)\{200\} (inode 13): unsafe name, extracted as \"%%01.*%~13\"$" "$W/err"'
# Unencrypted /plain: raw names with '/' and NUL.  (A second ".." entry is
# dropped by the directory listing, like the real one: never extracted.)
check "plain ../plainx" 'cmp -s "$O/plain/%..%2Fplainx" "$O/plain/hello.txt"'
check "plain p NUL q" 'cmp -s "$O/plain/%p%00q" "$O/plain/日本.txt"'
check "plain warning" 'grep -qxF "e4dump: warning: /plain/..\\x2fplainx (inode 21): unsafe name, extracted as \"%..%2Fplainx\"" "$W/err"'
check "13 renamed: $(tail -1 "$W/err")" 'grep -qx "e4dump: extract: 7 directories, 16 files, 5 symlinks, [0-9]* bytes; 13 renamed, 0 partial, 0 locked kept, 0 skipped" "$W/err"'
check "top of DIR: $(ls -A "$O" | tr '\n' ' ')" '[ "$(ls -A "$O" | LC_ALL=C sort | tr "\n" " ")" = "lost+found plain secret " ]'
# Everything else is exactly the kernel's tree.
check_extract -q "$S/sample.manifest" "$O" --tree plain \
	--allow-extra >"$W/check" 2>&1 && ok || bad "tree: $(grep FAIL "$W/check" | head -3)"
for f in hello.txt link 日本.txt; do
	check "secret/$f differs" 'diff -r --no-dereference "$O/secret/$f" "$W/ref/secret/$f" >/dev/null 2>&1'
done
# Only the expected names are in DIR: escaped names start with '%'.
extra=$(cd "$O/secret" && ls -A | grep -v '^%' | LC_ALL=C sort | tr '\n' ' ')
check "unexpected names in secret: $extra" '[ "$extra" = "hello.txt link 日本.txt " ]'

# Extract of one PATH whose last name is unsafe: the top name is escaped.
"$E4DUMP" extract --key-file "$K" "$W/h-hostile.img" /secret/.. -o "$W/box/one" 2>"$W/err1"
rc=$?
check "one PATH: exit $rc" '[ $rc = 0 ]'
check "one PATH: $(ls -A "$W/box/one" | tr '\n' ' ')" '[ -f "$W/box/one/%%2E%2E/nested file.bin" ]'
check "one PATH warning" 'grep -q "^e4dump: warning: /secret/.. (inode 15): unsafe name, extracted as \"%%2E%2E\"$" "$W/err1"'
# A PATH ending in "." names the directory before it, as path lookup does.
"$E4DUMP" extract --key-file "$K" "$W/sample.img" /secret/./ -o "$W/box/dot" 2>"$W/err3"
rc=$?
check "PATH /secret/./: exit $rc, $(ls -A "$W/box/dot" | tr '\n' ' ')" \
	'[ $rc = 0 ] && [ "$(ls -A "$W/box/dot")" = secret ] && ! grep -v "^e4dump: extract: " "$W/err3"'

# Without padding evidence a name with '/' does not decrypt: skipped,
# exit 1, everything else extracted.  Two long names cut to one escape:
# the second gets its own name ("%~INO~2"), reported; nothing is overwritten.
"$E4DUMP" extract --key-file "$K" "$W/h-nopad.img" -o "$W/box/nopad" 2>"$W/err2"
rc=$?
check "nopad: exit $rc, want 1" '[ $rc = 1 ]'
check "nopad: error" 'grep -q "^e4dump: error: /secret/[A-Za-z0-9_-]* (inode 13): name does not decrypt" "$W/err2"'
check "nopad: collision reported" 'grep -q "^e4dump: error: /secret/\(\\\\x01\)\{200\}z (inode 13): name already taken in this directory, extracted as \"%%01.*%~13~2\"$" "$W/err2"'
check "nopad: both kept" '[ -f "$W/box/nopad/secret/$(cd "$W/box/nopad/secret" && ls -d -- *"%~13~2")" ]'
check "nopad: summary" 'grep -qx "e4dump: extract: [0-9]* directories, [0-9]* files, [0-9]* symlinks, [0-9]* bytes; 2 renamed, 0 partial, 0 locked kept, 1 skipped" "$W/err2"'
check_extract -q "$S/sample.manifest" "$W/box/nopad" --allow-extra \
	>"$W/check2" 2>&1 && ok || bad "nopad tree: $(grep FAIL "$W/check2" | head -3)"
check "nopad: secret/sub differs" 'diff -r --no-dereference "$W/box/nopad/secret/sub" "$W/ref/secret/sub" >/dev/null 2>&1'

# ls is unchanged: without extract such names are names that do not decrypt.
"$E4DUMP" ls --key-file "$K" "$W/h-hostile.img" /secret >"$W/ls" 2>"$W/ls.err"
rc=$?
check "ls: exit $rc, want 1" '[ $rc = 1 ]'
check "ls: control bytes escaped" 'grep -qxF "\\x1b[31m" "$W/ls"'
check "ls: a/b does not decrypt" '! grep -q "a/b" "$W/ls" && [ $(grep -c "name does not decrypt" "$W/ls.err") = 4 ]'
check "nothing outside DIR at the end" '[ "$before" = "$(snapshot)" ]'
finish
