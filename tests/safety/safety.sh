#!/bin/bash
# e4dump on hostile images (tests/safety/craft.py), one block per property
# of the man page's SECURITY section: time (second links, loops, shared
# and too deep extent trees, blocks past i_size), lengths (i_size, inline
# data, NUL in a symlink), what extract makes (no device nodes, setuid and
# setgid dropped, the image never replaced), a wrong key never used, two
# entries of one name both kept, names safe on a terminal, clear errors.
# Memory (memory.sh) and key material (keys.sh) have their own tests.
# usage: safety.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
S=$top/testvectors/sample
K=$S/sample.key
/usr/bin/python3 "$top/tests/safety/craft.py" "$W" relink loop shared deep6 \
	bigsize pastsize special terminal nulsym dups wrongkey inline \
	symev emptyname aliasdir sharedfiles policies dupnames unused ind64k \
	>"$W/craft.log" 2>&1 || give_up "craft.py: $(tail -3 "$W/craft.log")"
e() { timeout 60 "$E4DUMP" "$@"; }
no_sanitizer() { check "$1: sanitizer report" '! sanitizer_report "$W/err"'; }

# 2. Time: each directory entered once; trees checked before use.
expect "second link" 1 '^e4dump: error: /b/e \(inode 1[0-9]\): second link to a directory already entered' -- \
	e ls -R "$W/relink.img"
check "second link: /a/d listed once: $(tr '\n' ' ' <"$W/out")" \
	'[ "$(grep -c "/[xy]$" "$W/out")" = 2 ] && grep -qx "a/d/x" "$W/out" && ! grep -q "^b/e/" "$W/out"'
expect "loop" 1 '^e4dump: error: /a/d/back \(inode 1[0-9]\): directory loop' -- \
	e ls -R "$W/loop.img"
expect "shared extent tree" 1 '^e4dump: error: /d \(inode [0-9]+\): bad extent tree: tree block referenced twice' -- \
	e ls "$W/shared.img" /d
check "shared extent tree: block 0 listed: $(wc -l <"$W/out")" '[ "$(wc -l <"$W/out")" = 20 ]'
expect "depth 6" 1 'bad extent tree: extent tree deeper than 5' -- e cat "$W/deep6.img" /f
check "depth 6: nothing printed" '[ ! -s "$W/out" ]'
expect "blocks past i_size" 0 '' -- e ls -R "$W/pastsize.img"
check "blocks past i_size: no diagnostics: $(head -2 "$W/err")" '[ ! -s "$W/err" ]'
expect "file past i_size" 0 '' -- e cat "$W/pastsize.img" /f
check "file past i_size: 10 bytes" '[ "$(cat "$W/out")" = 0123456789 ]'
expect "aliased directory blocks" 1 '^e4dump: error: /d \(inode [0-9]+\): directory block 32768: its block is mapped twice in the directory$' -- \
	e ls -R "$W/aliasdir.img"
check "aliased directory blocks: the rest listed" '[ "$(tr "\n" " " <"$W/out")" = "d e e/x lost+found " ]'
expect "tree shared by files: extract" 1 '' -- e extract "$W/sharedfiles.img" -o "$W/sf"
check "tree shared by files: the first made: $(ls "$W/sf" | wc -l) files" \
	'[ "$(ls "$W/sf" | tr "\n" " ")" = "f00000 lost+found " ] && [ "$(stat -c %s "$W/sf/f00000")" = $((2 * 4 * 340 * 4096)) ] && [ "$(head -c 4096 "$W/sf/f00000" | tr -d S | wc -c)" = 0 ]'
check "tree shared by files: $(grep -c "belongs to inode" "$W/err") errors: $(sed -n 2p "$W/err")" \
	'[ "$(grep -c "^e4dump: error: /f0[0-9]* (inode [0-9]*): bad extent tree: tree block [0-9]* belongs to inode [0-9]* too$" "$W/err")" = 1999 ]'
rm -rf "$W/sf"
expect "tree shared by files: verify" 1 '' -- e verify "$W/sharedfiles.img"
check "tree shared by files: $(grep -c "^inode.block_map: .*belongs to inode" "$W/out") findings" \
	'[ "$(grep -c "^inode.block_map: inode [0-9]*: /f0[0-9]*: bad extent tree: tree block [0-9]* belongs to inode [0-9]* too$" "$W/out")" = 1999 ]'
# (with a key that opens none of them: exit 1, a policy stays locked)
for k in "" "-k $W/other.key"; do
	expect "50000 policies: ls -R $k" "$([ -n "$k" ] && echo 1 || echo 0)" '' -- e ls -R $k "$W/policies.img"
	check "50000 policies: all listed" '[ "$(wc -l <"$W/out")" = 50000 ]'
done
expect "20000 entries of one name" 1 '' -- e extract "$W/dupnames.img" /d -o "$W/dn"
check "20000 entries of one name: all made: $(ls -f "$W/dn/d" | wc -l)" \
	'[ "$(ls -f "$W/dn/d" | wc -l)" = 20002 ] && [ "$(grep -c "name already taken" "$W/err")" = 19999 ]'
rm -rf "$W/dn"
expect "80000 entries of unused inodes: verify" 1 '' -- e verify "$W/unused.img"
check "80000 entries of unused inodes: every one: $(tail -1 "$W/out")" \
	'[ "$(grep -c "^dirent.bad_inode: inode [0-9]*: /d/e[0-9]*: entry points to inode [0-9]*, which is not in use$" "$W/out")" = 80000 ]'

# 3. Lengths: what the kernel refuses is refused.
for f in neg huge; do
	expect "i_size $f" 1 "^e4dump: error: /$f \(inode [0-9]+\): bad i_size" -- e cat "$W/bigsize.img" /$f
	check "i_size $f: nothing printed" '[ ! -s "$W/out" ]'
done
expect "i_size ok" 0 '' -- e cat "$W/bigsize.img" /ok
expect "ls -l of bad sizes" 1 'bad i_size' -- e ls -l "$W/bigsize.img"
check "ls -l of bad sizes: all listed" '[ "$(wc -l <"$W/out")" = 4 ] && grep -q "? ????.* neg$" "$W/out"'
expect "inline data past the inode" 1 '^e4dump: error: /mid \(inode [0-9]+\): inline data: xattr value outside its area' -- \
	e cat "$W/inline.img" /mid
expect "inline data" 0 '' -- e cat "$W/inline.img" /small
check "inline data: 40 bytes" '[ "$(cat "$W/out")" = "$(printf "s%.0s" $(seq 40))" ]'
expect "inline data in the xattr block" 1 '^e4dump: error: /blk \(inode [0-9]+\): inline data flag without a system.data attribute in the inode$' -- \
	e cat "$W/inline.img" /blk
check "inline data in the xattr block: nothing printed" '[ ! -s "$W/out" ]'
expect "inline directory" 0 '' -- e ls "$W/inline.img" /d
check "inline directory: its entry" '[ "$(cat "$W/out")" = x ]'
expect "NUL in a symlink" 1 '^e4dump: error: /s \(inode [0-9]+\): symlink target has a NUL byte at offset 3 of 8$' -- \
	e cat "$W/nulsym.img" /s
check "NUL in a symlink: nothing printed" '[ ! -s "$W/out" ]'
expect "symlink of 60 bytes" 0 '^e4dump: warning: /s60 \(inode [0-9]+\): fast symlink of 60 bytes: shown as Linux shows it, cut to 59$' -- \
	e cat "$W/nulsym.img" /s60
check "symlink of 60 bytes: 59 shown" '[ "$(cat "$W/out")" = "$(printf "L%.0s" $(seq 59))" ]'
expect "empty name" 1 '^e4dump: error: /d \(inode [0-9]+\): directory block 0: entry in use with an empty name$' -- \
	e ls "$W/emptyname.img" /d
check "empty name: nothing listed" '[ ! -s "$W/out" ]'
# 64 KiB blocks: triple-indirect blocks start past logical block 2^32
# (T[15]: 2^32 + 16396); the block is not shown at logical block 16396.
e cat "$W/ind64k.img" /f 2>"$W/err" | head -c $((16397 * 65536)) >"$W/out"
no_sanitizer "indirect past 2^32 blocks"
check "indirect past 2^32 blocks: 2^32+... not at block 16396" \
	'[ "$(head -c 65536 "$W/out" | tr -d A | wc -c)" = 0 ] && [ "$(tail -c +$((16396 * 65536 + 1)) "$W/out" | head -c 65536 | tr -d "\0" | wc -c)" = 0 ]'

# 4. extract: no device nodes, FIFOs or sockets; setuid/setgid dropped
# unless asked; the image itself never replaced, even with --force.
expect "special files" 1 'fifo \(inode [0-9]+\): special file not extracted' -- \
	e extract "$W/special.img" -o "$W/sp"
check "special files: none made" '[ -z "$(find "$W/sp" ! -type f ! -type d ! -type l)" ] && [ ! -e "$W/sp/fifo" ] && [ ! -e "$W/sp/cdev" ]'
check "special files: 3 reported" '[ "$(grep -c "special file not extracted" "$W/err")" = 3 ]'
modes=$(cd "$W/sp" && stat -c "%n %a" suid sgid sgdir sticky | tr '\n' ' ')
check "setuid and setgid dropped: $modes" '[ "$modes" = "suid 755 sgid 711 sgdir 775 sticky 1777 " ]'
expect "--keep-setid" 1 '' -- e extract --keep-setid "$W/special.img" -o "$W/sp2"
modes=$(cd "$W/sp2" && stat -c "%n %a" suid sgid sgdir sticky | tr '\n' ' ')
check "--keep-setid: $modes" '[ "$modes" = "suid 4755 sgid 2711 sgdir 2775 sticky 1777 " ]'
mkdir -p "$W/guard"
cp "$W/special.img" "$W/guard/plain"      # the image is named like an entry
sum=$(sha256sum <"$W/guard/plain") ino=$(stat -c %i "$W/guard/plain")
expect "image guard" 1 '^e4dump: error: /plain \(inode [0-9]+\): cannot replace: it is the image being read$' -- \
	e extract --force "$W/guard/plain" -o "$W/guard"
check "image guard: image unchanged" '[ "$(sha256sum <"$W/guard/plain")" = "$sum" ] && [ "$(stat -c %i "$W/guard/plain")" = "$ino" ]'
mkdir -p "$W/guard2"
cp "$W/special.img" "$W/guard2/image"
ln "$W/guard2/image" "$W/guard2/suid"     # another name of the image
expect "image guard (a link)" 1 '/suid \(inode [0-9]+\): cannot replace: it is the image being read' -- \
	e extract --force "$W/guard2/image" -o "$W/guard2"
check "image guard (a link): unchanged" '[ "$(stat -c %h "$W/guard2/image")" = 2 ] && [ "$(sha256sum <"$W/guard2/suid")" = "$sum" ]'

# 5. A key that has the policy's descriptor but does not decrypt its
# names is not used: no garbage, the policy stays locked.
expect "wrong key: ls" 1 'no key for descriptor [0-9a-f]{16} \(the key with its descriptor does not decrypt its names\)' -- \
	e ls -R -k "$W/other.key" "$W/wrongkey.img" /secret
check "wrong key: only no-key names: $(head -2 "$W/out")" \
	'[ "$(wc -l <"$W/out")" = 7 ] && ! grep -vq "^[A-Za-z0-9_-]\{20,\}\(/[A-Za-z0-9_-]\{20,\}\)\?$" "$W/out"'
nk=$(grep -m1 "^nPmBp" "$W/out")   # the no-key name of hello.txt (inode 13)
expect "wrong key: cat" 1 'skipped: no key for descriptor' -- \
	e cat -k "$W/other.key" "$W/wrongkey.img" "/secret/$nk"
check "wrong key: cat printed nothing" '[ ! -s "$W/out" ]'
# A symlink whose header claims 16 of its 58 bytes: only 16 bytes are
# evidence for a key, not enough to accept one that matches nothing else.
expect "short symlink header: info" 0 '' -- e info -k "$W/other.key" "$W/symev.img"
check "short symlink header: not opened: $(grep -o "inodes 8, .*" "$W/out")" \
	'grep -q "descriptor 5430581507fd59c1, inodes 8, no key opens it" "$W/out"'
expect "wrong key: extract" 1 'skipped [0-9]* entries below it: no key opens its names' -- e extract -k "$W/other.key" "$W/wrongkey.img" /secret -o "$W/wk"
check "wrong key: nothing extracted: $(ls -A "$W/wk/secret")" '[ -z "$(ls -A "$W/wk/secret")" ]'

# 6. Two entries of one name: both kept, the second renamed, exit 1;
# directories are not merged.
expect "same names" 1 '/p/same \(inode [0-9]+\): name already taken in this directory, extracted as "%same%~[0-9]+"' -- \
	e extract "$W/dups.img" -o "$W/du"
check "same names: both files: $(ls "$W/du/p" | tr '\n' ' ')" \
	'[ "$(cat "$W/du/p/same" "$W/du/p/%same%~"*)" = "$(printf "first\nsecond")" ] || [ "$(cat "$W/du/p/%same%~"* "$W/du/p/same")" = "$(printf "first\nsecond")" ]'
check "same names: directories kept apart" '[ "$(ls "$W/du/p/dir1" "$W/du/p/%dir1%~"* | grep -c "^[ab]$")" = 2 ] && [ "$(ls "$W/du/p/dir1" | wc -l)" = 1 ]'
e extract -k "$K" "$W/dups-enc.img" /secret -o "$W/de" 2>"$W/err"
rc=$?
check "same decrypted names: exit $rc, $(head -2 "$W/err")" '[ $rc = 1 ] && grep -q "hello.txt (inode 14): name already taken" "$W/err"'
xz -dc "$S/sample.img.xz" >"$W/sample.img"
e extract -k "$K" "$W/sample.img" /secret -o "$W/ref"
check "same decrypted names: both contents" \
	'cmp -s "$W/de/secret/hello.txt" "$W/ref/secret/hello.txt" && cmp -s "$W/de/secret/%hello.txt%~14" "$W/ref/secret/日本.txt"'

# 7. Names and symlink targets are shown with terminal controls escaped.
expect "terminal" 0 '' -- e ls -l "$W/terminal.img" /d
check "terminal: no raw controls" '! LC_ALL=C grep -q "$(printf "\x1b\|\xc2\x9b\|\xc2\x85\|\xe2\x80\xae\|\xe2\x81\xa6\|\x7f\|\x07")" "$W/out"'
for want in 'csi\xc2\x9b31mred' 'rlo\xe2\x80\xaetxt.exe' 'lri\xe2\x81\xa6x' 'esc\x1b]0;title\x07' \
	'del\x7fx' 'nel\xc2\x85line' 'link -> \x1b]0;pwned\x07\xe2\x80\xae'; do
	check "terminal: $want" 'grep -qF -- "$want" "$W/out"'
done
expect "terminal: a path given" 1 'no such entry "esc\\x1b\]0;x"' -- \
	e cat "$W/terminal.img" "$(printf '/d/esc\x1b]0;x/y')"

# 9. Clear errors for bad arguments.
mkdir "$W/keydir"
: >"$W/empty.key"
expect "key file is a directory" 2 '^e4dump: error: key file .*/keydir: is a directory$' -- \
	e ls -k "$W/keydir" "$W/dups.img"
expect "empty key file" 2 '^e4dump: error: key file .*/empty.key: empty$' -- \
	e ls -k "$W/empty.key" "$W/dups.img"
expect "non-hex salt" 2 '^e4dump: error: --salt: "zz" is none of s:TEXT, 0xHEX, a UUID or HEX \(1 to 256 bytes\)$' -- \
	e ls --salt zz --passphrase-file "$W/empty.key" "$W/dups.img"
expect "odd salt" 2 '^e4dump: error: --salt: "abc"' -- \
	e ls --salt abc --passphrase-file "$W/empty.key" "$W/dups.img"
expect "no abbreviations" 2 '^e4dump: error: ls: bad option "--key"' -- e ls --key "$K" "$W/dups.img"
expect "options of another command" 2 '^e4dump: error: ls: bad option "--seed"' -- e ls --seed x "$W/dups.img"
expect "-o for extract, undelete and cat only" 2 '^e4dump: error: ls: bad option "-o"' -- e ls -o d "$W/dups.img" /p
finish
