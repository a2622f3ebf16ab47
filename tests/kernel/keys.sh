#!/bin/bash
# Keys in the filesystem's keyring, as xfstests generic/580 (add, status,
# removal with an open file), 429 (no-key dentries once the key is back) and
# 581 (other users' claims; not its quota) test them, in stock mode (v2 and v1 keys; keys-61.scn) and in the 2015
# format (v1 keys; keys-2015.scn).  Expected values from fscrypt.rst
# ("Adding keys", "Removing keys", "Getting key status"):
#  - after FS_IOC_ADD_ENCRYPTION_KEY the status is PRESENT (2); a v2 key is
#    ADDED_BY_SELF (flag 1) with one user, a v1 key has neither;
#  - removing a key while a file is open: success with FILES_BUSY (1), status
#    INCOMPLETELY_REMOVED (3), and the open file still reads its plaintext
#    (compared with what the guest wrote, from the content generator); once
#    it is closed, removing again completes: ABSENT (1);
#  - a no-key dentry does not survive the key coming back: lstat by the old
#    no-key name gives ENOENT, the same inode is listed and found under its
#    plaintext name (generic/429);
#  - another user may add the same v2 key (2 users); root's removal then
#    only drops root's claim (OTHER_USERS, 2; still PRESENT, 1 user, not
#    added by self); REMOVE_ALL_USERS removes it; a v1 key cannot be added by
#    another user (EACCES, 13).
# usage: keys.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"

# want MANIFEST TYPE TAG FIELDS...: the record TYPE TAG has exactly FIELDS
# (TAG may be two words, e.g. "m1 nokey")
want() {
	local man=$1 prefix="$2 $3 " got w
	shift 3
	w="$*"
	got=$(grep -F "$prefix" "$man" | grep "^$prefix" | cut -c$((${#prefix} + 1))-)
	check "$(basename "$man" .img.manifest): $prefix: '$got', want '$w'" '[ "$got" = "$w" ]'
}
# held_matches MANIFEST TAG PATH: held and read-held TAG read what the guest
# wrote to PATH (FNV-1a-64 of the generated content)
held_matches() {
	local man=$1 tag=$2 path=$3 fnv
	fnv=$(/usr/bin/python3 - "$top/tests/vm" "$path" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from check_extract import fnv1a64, generate
p = sys.argv[2].encode()
print("%016x" % fnv1a64(generate(fnv1a64(p), 100)))
PY
)
	want "$man" held "$tag" 0 100 "$fnv"
	want "$man" read-held "$tag" 0 100 "$fnv"
}

# removal_cycle MANIFEST V STATUS: key version V's records (tags vV-*, hV,
# mV, tree kV): STATUS after adding, removal while kV/hello.txt is open,
# then after closing it, then the dentry once the key is back
removal_cycle() {
	local man=$1 v=$2
	want "$man" fskey-status "v$v-added" 0 "$3"
	want "$man" fskey-remove "v$v-busy" 0 1
	want "$man" fskey-status "v$v-busy" 0 3 0 0
	held_matches "$man" "h$v" "k$v/hello.txt"
	want "$man" fskey-remove "v$v-done" 0 0
	want "$man" fskey-status "v$v-done" 0 1 0 0
	want "$man" recheck "m$v nokey" 2 0
	want "$man" recheck "m$v plain" 0 0
}

for mode in 61 2015; do
	img=$W/keys-$mode.img man=$img.manifest
	make_image "$top/vm/scenarios/keys-$mode.scn" "$img" "$W/keys-$mode.log"
	grep -Ev '^([fdlsh]|tree|key|inherit|#)' "$man"
	# v1 keys: present, neither added-by-self nor counted users
	removal_cycle "$man" 1 "2 0 0"
	check "keys-$mode: fskey-add-as v1: $(grep '^fskey-add-as 2 ' "$man")" \
		'grep -qx "fskey-add-as 2 1000 13" "$man"'
	[ $mode = 61 ] || continue
	removal_cycle "$man" 2 "2 1 1"
	check "fskey-add-as v2: $(grep '^fskey-add-as 1 ' "$man")" \
		'grep -qx "fskey-add-as 1 1000 0" "$man"'
	want "$man" fskey-status v2-users 0 2 1 2
	want "$man" fskey-remove v2-other 0 2
	want "$man" fskey-status v2-other 0 2 0 1
	want "$man" fskey-remove v2-all 0 0
	want "$man" fskey-status v2-all 0 1 0 0
done
finish
