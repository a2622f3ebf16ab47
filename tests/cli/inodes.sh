#!/bin/bash
# Inodes by number, debugfs's "<N>" syntax, wherever a PATH is taken, and
# the sizes ls -l gives them, on the kernel-written sample.  The numbers come from debugfs (e2fsprogs),
# which lists the unencrypted root; contents are checked against debugfs
# (plain files) and the kernel's manifest (the encrypted tree, extracted
# by its inode number).
# usage: inodes.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
# inode of a root entry, from debugfs's "ls -p" (/INO/MODE/UID/GID/NAME/SIZE/)
ino_of() { debugfs -R "ls -p /$1" "$W/s.img" 2>/dev/null | awk -F/ -v n="$2" '$6 == n {print $2}'; }
secret=$(ino_of "" secret) plain=$(ino_of "" plain) hello=$(ino_of plain hello.txt)
check "debugfs gives the inodes (secret $secret, plain $plain, plain/hello.txt $hello)" \
	'[ -n "$secret" ] && [ -n "$plain" ] && [ -n "$hello" ]'

expect "extract '<$secret>'" 0 '' -- "$E4DUMP" extract --key-file "$K" "$W/s.img" "<$secret>" -o "$W/x"
mv "$W/x/<$secret>" "$W/x/secret" 2>/dev/null
check "the encrypted tree extracted by inode number: the kernel's manifest" \
	'check_extract -q --tree secret "$S/sample.manifest" "$W/x" >"$W/check" 2>&1 || { head -3 "$W/check"; false; }'
debugfs -R "cat <$hello>" "$W/s.img" >"$W/want" 2>/dev/null
must_run "cat '<$hello>'" "$W/got" -- "$E4DUMP" cat "$W/s.img" "<$hello>" &&
	check "cat '<$hello>': what debugfs reads" '[ -s "$W/want" ] && cmp -s "$W/want" "$W/got"'
must_run "cat '<$plain>/hello.txt'" "$W/got" -- "$E4DUMP" cat "$W/s.img" "<$plain>/hello.txt" &&
	check "cat '<$plain>/hello.txt': what debugfs reads" 'cmp -s "$W/want" "$W/got"'
"$E4DUMP" cat --key-file "$K" "$W/s.img" "/secret/sub/nested file.bin" >"$W/bypath" 2>&1
must_run "cat '<$secret>/sub/nested file.bin'" "$W/got" -- \
	"$E4DUMP" cat --key-file "$K" "$W/s.img" "<$secret>/sub/nested file.bin" &&
	check "the same bytes as by its path" '[ -s "$W/bypath" ] && cmp -s "$W/bypath" "$W/got"'
must_run "ls '<$secret>'" "$W/ls" -- "$E4DUMP" ls --key-file "$K" "$W/s.img" "<$secret>" &&
	check "ls '<$secret>': what ls /secret shows" \
		'[ "$(cat "$W/ls")" = "$("$E4DUMP" ls --key-file "$K" "$W/s.img" /secret)" ]'
expect "inode 0" 1 "error: <0>: no inode 0 \\(the filesystem has inodes 1 to" -- "$E4DUMP" ls "$W/s.img" "<0>"
expect "an inode past the last" 1 "error: <99999>: no inode 99999" -- "$E4DUMP" cat "$W/s.img" "<99999>"
expect "'/<$secret>' is a name, not an inode" 1 "no such entry \"<$secret>\"" -- "$E4DUMP" ls "$W/s.img" "/<$secret>"

# ls -l gives a locked encrypted symlink the size the kernel's lstat
# would: its no-key target (fscrypt_symlink_getattr -> fscrypt_get_symlink
# -> fscrypt_fname_disk_to_usr with hash 0: unpadded base64url of 8 zero
# bytes of hash and the ciphertext, i_size less its 2-byte length)
lino=$(debugfs -R "ls -p /secret" "$W/s.img" 2>/dev/null | awk -F/ '$3 ~ /^120/ {print $2; exit}')
lsize=$(debugfs -R "stat <$lino>" "$W/s.img" 2>/dev/null |
	awk '/Size:/ {for (i = 1; i <= NF; i++) if ($i == "Size:") print $(i + 1); exit}')
want=$(( ((8 + lsize - 2) * 4 + 2) / 3 ))
"$E4DUMP" ls -l "$W/s.img" /secret 2>/dev/null >"$W/ls-locked"
check "ls -l without the key: an encrypted symlink's size is its no-key target's ($want, i_size $lsize)" \
	'[ "$lsize" -gt 2 ] && awk -v s="$want" '"'"'$2 == "l" && $4 == s {f = 1} END {exit !f}'"'"' "$W/ls-locked"'
finish
