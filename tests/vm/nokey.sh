#!/bin/bash
# Without a key, e4dump ls prints byte for byte the names the kernel's
# readdir returned (vm/scenarios/nokey-61.scn: Linux 6.1 base64url no-key
# names, a 3000-entry htree directory, names of every length 1..255), and
# the kernel's own no-key behaviour holds: lookup by no-key name works, open
# fails with ENOKEY, so do create, mkdir, symlink, mknod, O_TMPFILE, link,
# rename and truncate, symlink targets read without the key are the ones
# e4dump stat shows, unlink by no-key name works, a policy cannot be set on
# a non-empty directory, and everything created inside inherits the policy.
# Two trees of one policy share no name or symlink ciphertext (generic/399),
# and an encrypted file on the orphan list is read by e4dump and survives the
# kernel's orphan cleanup without its key (ext4/024).
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
# symlink targets without the key (generic/397's symlinks): what the kernel's readlink
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
# every encrypted inode has its own nonce, and they do not compress
# (xfstests generic/613)
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

# No ciphertext repeats between two trees of one policy (xfstests
# generic/399, names and symlink targets): the scenario makes the same
# small tree twice under one key, modes and flags (readdir tags T and Tb);
# each has its own nonces, so none of the kernel's no-key names, compared
# component by component, and none of the no-key symlink targets is in both
pairs=0
while IFS=$'\t' read -r tag _; do
	case "$tag" in *b) ;; *) continue ;; esac
	a=${tag%b}
	grep -q "^readdir $a " "$man" || continue
	pairs=$((pairs + 1))
	/usr/bin/python3 - "$top/tests/vm" "$man" "$a" "$tag" >"$W/repeat.$tag" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from check_extract import read_records
man, a, b = sys.argv[2:5]
def names(tag):
    # the components below the listed directory, and the targets
    paths = [r.fields[1] for r in read_records(man, "n", tag)]
    comps = {c for p in paths for c in p.split(b"/")[1:]}
    targets = {r.fields[2] for r in read_records(man, "t", tag)}
    return len(paths), comps, targets
na, ca, ta = names(a)
nb, cb, tb = names(b)
print(f"{a}: {na} entries, {len(ta)} symlinks; {b}: {nb} entries, {len(tb)} symlinks;"
      f" names in both: {len(ca & cb)}, targets in both: {len(ta & tb)}")
sys.exit(0 if na == nb and na > 0 and ta and len(ta) == len(tb) and not ca & cb and not ta & tb else 1)
PY
	[ $? = 0 ] && ok || bad "generic/399: $(cat "$W/repeat.$tag")"
	cat "$W/repeat.$tag"
done <"$W/records.readdir"
[ $pairs -gt 0 ] && ok || bad "generic/399: no pair of trees of one policy (readdir tags T and Tb)"

# An encrypted file on the orphan list (xfstests ext4/024, regression test
# for 0d06863f903a): a copy of the image whose s_last_orphan names a file
# with links, of a size that is not a multiple of the block size.  e4dump
# reads the file as it is; the kernel (no key added) mounts the copy and
# truncates the file to i_size without the BUG of old, logs it, empties the
# list and leaves the contents as they were (only mtime and ctime change).
small=$(awk '$1 == "tree" && $3 == "enc" && / small/ { print $2, $4; exit }' "$man")
read -r otree odesc <<<"$small"
okey=$W/keys/$odesc.key
opath="$otree/sub/nested file.bin"
if [ -n "$otree" ] && oino=$("$E4DUMP" stat --json -k "$okey" "$img" "/$opath" 2>"$W/orphan.err" |
	grep '^{"type":"stat"' | /usr/bin/python3 -c 'import json, sys
r = json.load(sys.stdin)
assert r["size"] % 4096, "size a multiple of the block size"
print(r["inode"])' 2>>"$W/orphan.err"); then
	ok
	cp --sparse=always "$img" "$W/orphan.img"
	/usr/bin/python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import ext4img
im = ext4img.Image(sys.argv[2], write=True)
im.write_superblock({"last_orphan": int(sys.argv[3])})' "$top/tests/lib" "$W/orphan.img" "$oino"
	# orphan_tree LABEL: e4dump extracts the tree, and it is the manifest's
	orphan_tree() {
		rm -rf "$W/orphan.$1"
		"$E4DUMP" extract -k "$okey" "$W/orphan.img" "/$otree" -o "$W/orphan.$1" 2>"$W/orphan.$1.err" &&
			check_extract -q --apply-removed --tree "$otree" --strip-tree "$man" "$W/orphan.$1" >"$W/orphan.$1.check" 2>&1 &&
			ok || bad "ext4/024 $1: /$otree: $(head -2 "$W/orphan.$1.err"; grep -m3 FAIL "$W/orphan.$1.check")"
	}
	orphan_tree before
	if grep -q "^remount fscrypt_2015" "$man"; then oscn=orphan-2015.scn; else oscn=orphan-61.scn; fi
	if bash "$top/vm/make-image.sh" --from-image "$W/orphan.img" "$top/vm/scenarios/$oscn" \
		"$W/orphan.run.img" >"$W/orphan.log" 2>&1; then
		ok
		mv "$W/orphan.run.img" "$W/orphan.img"
		omsg=$(awk '$1 == "kmsg" && $2 == "orphan" { print $3 }' "$W/orphan.run.img.manifest" |
			/usr/bin/python3 -c 'import sys; print(" | ".join(bytes.fromhex(l.strip()).decode() for l in sys.stdin))')
		echo "ext4/024: inode $oino ($opath) on the orphan list; the kernel: $omsg"
		check "ext4/024: mount-try: $(grep '^mount-try' "$W/orphan.run.img.manifest")" \
			'grep -Eq "^mount-try orphan [^ ]+ 0$" "$W/orphan.run.img.manifest"'
		check "ext4/024: no message '1 truncate cleaned up': $omsg" '[[ "$omsg" == *"1 truncate cleaned up"* ]]'
		olast=$(/usr/bin/python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import ext4img
print(ext4img.Image(sys.argv[2]).superblock()["last_orphan"])' "$top/tests/lib" "$W/orphan.img")
		check "ext4/024: s_last_orphan after the mount: $olast, want 0" '[ "$olast" = 0 ]'
		# ext4_truncate() sets mtime and ctime (fs/ext4/inode.c), so the
		# tree is compared with the one read before, not with the manifest
		rm -rf "$W/orphan.after"
		"$E4DUMP" extract -k "$okey" "$W/orphan.img" "/$otree" -o "$W/orphan.after" 2>"$W/orphan.after.err" &&
			diff -r --no-dereference "$W/orphan.before" "$W/orphan.after" >"$W/orphan.diff" 2>&1 &&
			ok || bad "ext4/024 after the kernel: /$otree: $(head -2 "$W/orphan.after.err"; head -3 "$W/orphan.diff")"
	else
		bad "ext4/024: the kernel on the orphan image: $(tail -5 "$W/orphan.log")"
	fi
else
	bad "ext4/024: no file $opath to put on the orphan list: $(head -2 "$W/orphan.err")"
fi

finish
