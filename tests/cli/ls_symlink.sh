#!/bin/bash
# ls -l shows a symlink as lstat and readlink would, by the symlink's own
# policy, not its directory's, as stat and ls --json do (linkfacts.c).
# symlink_policy_craft.py makes, from the kernel-written sample, and
# derives from fs/crypto (Linux 6.1) what lstat's st_size and readlink
# give:
#  - "other": /secret/link under another master key than /secret, listed
#    with the sample's key (which opens /secret only): the no-key target
#    and its length, not i_size (the stored ciphertext's);
#  - "plain": /secret/sub/up a plain symlink in the encrypted /secret/sub,
#    listed without a key: its target as stored, though its directory is
#    locked;
#  - the sample itself without a key: the no-key target of /secret/link.
# Each line of ls -l, stat and the ls --json record say the same; exit 0
# (stat: 1 when keys were given and none opens the inode: kept locked).
# usage: ls_symlink.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
python3 "$top/tests/cli/symlink_policy_craft.py" "$W/s.img" "$W/other.img" "$W/plain.img" \
	>"$W/facts" || give_up "symlink_policy_craft.py"

# same IMAGE INO SIZE TARGET DIR STAT_RC [KEY OPTIONS...]: ls -l (-R) DIR,
# stat of <INO> (exit STAT_RC) and ls --json -R DIR show INO with SIZE and
# TARGET
same() {
	local img=$1 ino=$2 size=$3 target=$4 dir=$5 stat_rc=$6
	shift 6
	expect "ls -l $(basename "$img") $dir" 0 '' -- "$E4DUMP" ls -lR "$@" "$img" "$dir"
	check "ls -l $(basename "$img"): inode $ino: size $size, -> $target" \
		'grep -Eq "^ *$ino l 0777 +$size [0-9-]+ [0-9:]+ .* -> $target\$" "$W/out"'
	expect "stat $(basename "$img") <$ino>" "$stat_rc" '' -- "$E4DUMP" stat "$@" "$img" "<$ino>"
	check "stat $(basename "$img") <$ino>: size $size, target $target" \
		'grep -qx "size: $size" "$W/out" && grep -q "^target: $target (" "$W/out"'
	expect "ls --json $(basename "$img") $dir" 0 '' -- "$E4DUMP" ls --json -R "$@" "$img" "$dir"
	check "ls --json $(basename "$img"): inode $ino: size $size, target $target" \
		'python3 -c "import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in r if x.get(\"inode\") == $ino]
sys.exit(0 if len(r) == 1 and r[0][\"size\"] == $size and r[0][\"target\"] == sys.argv[2] else 1)" \
			"$W/out" "$target"'
}

read -r _ ino size target < <(grep '^other ' "$W/facts")
same "$W/other.img" "$ino" "$size" "$target" /secret 1 --key-file "$K"
same "$W/s.img" "$ino" "$size" "$target" /secret 0
read -r _ ino size target < <(grep '^plain ' "$W/facts")
same "$W/plain.img" "$ino" "$size" "$target" /secret 0
finish
