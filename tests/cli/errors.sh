#!/bin/bash
# Error handling of the CLI on host-made images: one clear "e4dump: error:"
# line per failure, the right exit code, no crash (the suite also runs
# under ASan+UBSan), and the image is never modified.
# usage: errors.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
# A small plain image made on the host (no kernel needed for these cases).
mkdir -p "$W/src/dir"
printf 'hello\n' >"$W/src/dir/file"
ln -s file "$W/src/dir/link"
printf 'x' >"$W/src/dir/"$'new\nline\\back'
mkfs.ext4 -q -F -O encrypt -b 4096 -d "$W/src" "$W/plain.img" 8M
chmod 0444 "$W/plain.img"
sum_before=$(sha256sum "$W/plain.img")

expect missing-image 2 '^e4dump: error: .*nonexistent.img: cannot open: No such file or directory' -- \
	"$E4DUMP" ls "$W/nonexistent.img"
head -c 1048576 /dev/zero >"$W/zeros.img"
expect not-ext4 2 '^e4dump: error: .*zeros.img: cannot open: no ext4 superblock \(bad magic at byte 1080\) and no partition table' -- \
	"$E4DUMP" info "$W/zeros.img"
printf 'short' >"$W/tiny.img"
expect tiny-file 2 '^e4dump: error: .*tiny.img: cannot open: no ext4 superblock \(bad magic at byte 1080\) and no partition table' -- \
	"$E4DUMP" ls "$W/tiny.img"
expect read-only-image-ls 0 '' -- "$E4DUMP" ls -l -R "$W/plain.img"
grep -q 'dir/link -> file' "$W/out" || bad "read-only ls -R -l output: $(cat "$W/out")"
grep -q ' dir/new\\x0aline\\x5cback$' "$W/out" || bad "control bytes not escaped: $(grep line "$W/out")"
expect read-only-image-cat 0 '' -- "$E4DUMP" cat "$W/plain.img" /dir/file
[ "$(cat "$W/out")" = hello ] || bad "cat output: $(cat "$W/out")"
expect no-such-path 1 '^e4dump: error: /dir/nope: no such entry "nope"' -- \
	"$E4DUMP" cat "$W/plain.img" /dir/nope
expect cat-dir 1 'not a regular file' -- "$E4DUMP" cat "$W/plain.img" /dir
expect unknown-command 2 '^e4dump: error: unknown command "frob"' -- \
	"$E4DUMP" frob "$W/plain.img"
expect bad-option 2 '^e4dump: error: ls: bad option' -- \
	"$E4DUMP" ls --frob "$W/plain.img"
expect no-args 2 'wrong number of arguments' -- "$E4DUMP" ls
expect extract-no-out 2 'needs -o DIR' -- "$E4DUMP" extract "$W/plain.img"
expect missing-key-file 2 '^e4dump: error: key file .*nokey: No such file' -- \
	"$E4DUMP" ls --key-file "$W/nokey" "$W/plain.img"
printf '0011' >"$W/short.key"
expect short-key 2 '^e4dump: error: key file .*short.key: hex key shorter than 16 bytes' -- \
	"$E4DUMP" ls --key-file "$W/short.key" "$W/plain.img"
head -c 100 /dev/zero | tr '\0' 'x' >"$W/long.key"
expect long-key 2 'key file .*long.key: key longer than 64 bytes' -- \
	"$E4DUMP" ls --key-file "$W/long.key" "$W/plain.img"
expect help 0 '' -- "$E4DUMP" --help
grep -q 'e4dump extract' "$W/out" || bad "--help lacks extract"
# Options in any order.
expect order 0 '' -- "$E4DUMP" extract -o "$W/x1" "$W/plain.img" /dir
[ -f "$W/x1/dir/file" ] && [ "$(readlink "$W/x1/dir/link")" = file ] || bad "extract /dir"
expect order2 0 '' -- "$E4DUMP" extract "$W/plain.img" -o "$W/x2"
[ -f "$W/x2/dir/file" ] || bad "extract all"
# Refuses to overwrite: an existing file is reported, not replaced.
expect no-overwrite 1 'dir/file \(inode [0-9]+\): cannot create: File exists' -- \
	"$E4DUMP" extract "$W/plain.img" -o "$W/x2"
# A symlink planted in the output directory is not followed.
mkdir -p "$W/x3" "$W/elsewhere" && ln -s "$W/elsewhere" "$W/x3/dir"
expect no-follow 1 'cannot open directory' -- "$E4DUMP" extract "$W/plain.img" -o "$W/x3"
[ -z "$(ls -A "$W/elsewhere")" ] || bad "wrote through a planted symlink"

[ "$(sha256sum "$W/plain.img")" = "$sum_before" ] || bad "image modified"

# Keys given that open nothing: ls lists no-key names, exit 1 (something
# was not decrypted); without keys the same listing is what was asked.
S=$top/testvectors/sample
xz -dc "$S/sample.img.xz" >"$W/sample.img"
head -c 64 /dev/zero | tr '\0' '7' >"$W/other.key"
expect "ls with a key that opens nothing" 1 'note: no key for descriptor 5430581507fd59c1 \(none of the given keys opens it\)' -- \
	"$E4DUMP" ls -R --key-file "$W/other.key" "$W/sample.img"
expect "info -v names a key that opens nothing" 0 'e4dump: key .*other\.key opens none of the policies of' -- \
	"$E4DUMP" info -v --key-file "$S/sample.key" --key-file "$W/other.key" "$W/sample.img"
check "... and only that one" '! grep -q "sample\.key opens none" "$W/err"'
expect "ls without keys" 0 '' -- "$E4DUMP" ls -R "$W/sample.img"
expect "ls with the key" 0 '' -- "$E4DUMP" ls -R --key-file "$S/sample.key" "$W/sample.img"
finish
