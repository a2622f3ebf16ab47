#!/bin/bash
# e4dump mount (issue 17) on images the kernel wrote: the FUSE view is
# checked with ordinary tools against the guest's manifest and against the
# image as debugfs and tests/lib/ext4img.py read it, never against e4dump's
# own output:
# * check_extract.py walks the mounted tree (type, mode, size, mtime,
#   contents, symlink targets, hard links, nothing extra); find, stat,
#   sha256sum and readlink spot checks; reads at unaligned and random
#   offsets (dd, pread; mount_check.py reads) against the generator's bytes,
#   done first, while nothing is in the page cache;
# * st_ino is the image's inode number, and mode, links, owner, size and the
#   three times with nanoseconds are that inode's (mount_check.py inodes);
# * user.e4dump.context names the tree's policy and the inode's own nonce
#   (the manifest, ext4img and debugfs ea_get);
# * every write fails with EROFS, the image's sha256 does not change, and
#   after the unmount no e4dump process is left and the mountpoint is empty;
# and per KIND:
#   v1        v1-pad.scn: v1 policies, paddings 4-32, three keys, htree dirs
#   v2        v2.scn: v2 policies, IV_INO_LBLK_64/32; mounted as a daemon
#   adiantum  adiantum-1k.scn: Adiantum and HCTR2, 1 KiB blocks; stopped by
#             SIGTERM; the image at an --offset inside a larger file
#   casefold  v2-casefold.scn: lookups in another case (the kernel's own
#             `exists` records), readdir shows the stored case
#   onekey    v2-1k.scn (two keys: a v2 and a v1 tree, 1 KiB blocks) with the
#             v2 key only: the v1 tree shows the kernel's no-key names (its
#             `n` records), its files give EACCES; without any key every
#             readdir record; -o rw is refused;
#             --keep-locked gives the stored ciphertext (ext4img, debugfs dump)
# usage: mount.sh E4DUMP WORKDIR KIND [IMAGE]
# IMAGE (with IMAGE.manifest and keys/ beside it) is one a scenario test left
# (FIXTURES in tests/CMakeLists.txt); when absent the image is written here.
set -u
E4DUMP=$1
KIND=$3
SRC=${4:-}
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
W=$(cd "$W" && pwd)
export LC_ALL=C
PY=/usr/bin/python3
MC=$top/tests/vm/mount_check.py
MNT=$W/mnt-$KIND
mkdir -p "$MNT"
T0=$SECONDS

case $KIND in
v1) SCN=v1-pad ;;
v2) SCN=v2 ;;
adiantum) SCN=adiantum-1k ;;
casefold) SCN=v2-casefold ;;
onekey) SCN=v2-1k ;;
*) give_up "unknown kind $KIND" ;;
esac

# FUSE: a skip (reported as such, not a pass) where it cannot work.
[ -c /dev/fuse ] || give_up "SKIPPED: /dev/fuse is missing (no FUSE on this machine)"
for t in fusermount3 getfattr setfattr mountpoint pgrep debugfs; do
	command -v $t >/dev/null ||
		give_up "SKIPPED: $t is missing (scripts/install-deps.sh installs fuse3, attr)"
done

img=$SRC
if [ -z "$img" ] || ! [ -s "$img" ] || ! [ -s "$img.manifest" ] ||
	! ls "$(dirname "$img")"/keys/*.key >/dev/null 2>&1; then
	img=$W/image.img
	make_image "$top/vm/scenarios/$SCN.scn" "$img" "$W/make.log"
fi
img=$(realpath "$img")
man=$img.manifest
keydir=$(dirname "$img")/keys
sum_before=$(sha256sum <"$img")
echo "image $img ($SCN.scn), $((SECONDS - T0)) s"

# -- one mount session -----------------------------------------------------
PID= DAEMON=
# in the mount table (mountpoint -q fails on a mount whose daemon is gone)
mounted() { awk -v m="$MNT" '$2 == m {f = 1} END {exit !f}' /proc/mounts; }
cleanup() {
	if mounted; then fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill "$PID"; fi
	PID=
}
trap cleanup EXIT
trap "exit 1" INT TERM HUP     # so that the EXIT trap runs

# the e4dump processes serving this test's mountpoint (daemon included)
served() { pgrep -f -- "e4dump mount .* ($MNT|mnt-$KIND)\$"; }

# start ARGS...: e4dump mount -f ARGS IMAGE MNT in the background (or with
# --daemon first: without -f, as a daemon; with --relative, MNT given
# relative to the working directory); waits until it is mounted
start() {
	local fg=-f i mnt=$MNT
	DAEMON=
	if [ "${1:-}" = --daemon ]; then fg= DAEMON=1 && shift; fi
	if [ "${1:-}" = --relative ]; then mnt=mnt-$KIND && shift; fi
	if [ -z "$fg" ]; then
		"$E4DUMP" mount "$@" "$MOUNT_IMG" "$MNT" >"$W/mount.out" 2>"$W/mount.err"
		local rc=$?
		[ $rc = 0 ] || { bad "mount (daemon) $*: exit $rc: $(head -3 "$W/mount.err")"; return 1; }
		mountpoint -q "$MNT" && ok || { bad "mount (daemon) returned before the mount was there"; return 1; }
		PID=$(served)
		[ "$(echo "$PID" | wc -w)" = 1 ] && ok || { bad "daemon: pgrep finds '$PID'"; PID=; return 1; }
		return 0
	fi
	(cd "$W" && exec "$E4DUMP" mount -f "$@" "$MOUNT_IMG" "$mnt") >"$W/mount.out" 2>"$W/mount.err" &
	PID=$!
	for ((i = 0; i < 200; i++)); do
		mountpoint -q "$MNT" && { ok; return 0; }
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	bad "mount -f $*: not mounted after 20 s: $(head -3 "$W/mount.err")"
	cleanup
	return 1
}

# stop [--signal] [RC]: fusermount3 -u (or SIGTERM to the -f process); the
# process exits RC (default 0; 1 when keys were given and a policy none of
# them opens, as for ls: EXIT STATUS in e4dump.1), none is left, the
# mountpoint is empty
stop() {
	local i rc how=fusermount3 want=0
	[ "${1:-}" = --signal ] && how=SIGTERM && shift
	want=${1:-0}
	if [ $how = SIGTERM ]; then
		kill -TERM "$PID"
	else
		fusermount3 -u "$MNT" || bad "fusermount3 -u failed"
	fi
	if [ -n "$DAEMON" ]; then
		for ((i = 0; i < 100; i++)); do served >/dev/null || break; sleep 0.1; done
		rc=0
	else
		for ((i = 0; i < 100; i++)); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
		wait "$PID"
		rc=$?
	fi
	check "unmount ($how): e4dump exits $want (exit $rc): $(head -3 "$W/mount.err")" '[ $rc = "$want" ]'
	check "unmount: an e4dump process is left: $(served | tr '\n' ' ')" '! served >/dev/null'
	check "unmount ($how): still mounted: $(grep " $MNT " /proc/mounts)" '! mounted'
	cleanup         # what a failed unmount left, for the next session
	check "unmount: the mountpoint is not empty: $(ls -A "$MNT" | head -3)" '[ -z "$(ls -A "$MNT")" ]'
	PID=
}

# -- checks ------------------------------------------------------------------
treeinfo() { awk -v t="$1" '$1 == "tree" && $2 == t {print $3; exit}' "$man"; }
alltrees() { awk '$1 == "tree" {print $2}' "$man"; }
manpath() { printf '%s' "$1" | xxd -p | tr -d '\n'; }
# the manifest's path of a standard tree's entry by its name prefix
entry() {
	awk -v t="$1" -v re="^$(manpath "$1/$2")" '$2 == t && $3 ~ re {print $3; exit}' "$man" | xxd -r -p
}

# random and unaligned reads: first, while the page cache is cold
reads() {
	local a=() t
	for t in "$@"; do a+=(--tree "$t"); done
	$PY "$MC" reads "$man" "$MNT" "${a[@]}" >"$W/reads" 2>&1 && ok ||
		bad "reads: $(grep -m5 -e FAIL -e Error "$W/reads")"
	tail -1 "$W/reads"
}

# check_extract.py on the mounted trees, and spot checks with find, stat,
# sha256sum and readlink
manifest_trees() {
	local a=() t n want got f big
	for t in "$@"; do a+=(--tree "$t"); done
	check_extract -q "$man" "$MNT" "${a[@]}" >"$W/check" 2>&1 && ok ||
		bad "check_extract ${a[*]}: $(grep -m5 FAIL "$W/check")"
	echo "check_extract $*: $(tail -1 "$W/check")"
	for t in "$@"; do
		for f in "f s h:f" "d:d" "l:l"; do
			want=$(awk -v t="$t" -v k="${f%:*}" '$2 == t && index(k, $1) {n++} END {print n + 0}' "$man")
			got=$(find "$MNT/$t" -type "${f#*:}" | wc -l)
			check "find $t -type ${f#*:}: $got, manifest $want" '[ "$got" = "$want" ]'
		done
		[ "$(treeinfo "$t")" = plain ] && continue
		big=$(entry "$t" "a name of one hundred bytes")
		[ -n "$big" ] || continue       # a small tree
		got=$(sha256sum <"$MNT/$big" | cut -d' ' -f1)
		want=$($PY "$MC" sha "$man" "$big")
		check "sha256sum $big: $got, want $want" '[ "$got" = "$want" ] && [ -n "$got" ]'
		got=$(stat -c %s "$MNT/$t/link-long")
		check "stat -c %s $t/link-long: $got, want 300" '[ "$got" = 300 ]'
		want=$(awk -v p="$(manpath "$t/link-long")" '$1 == "l" && $3 == p {print $7}' "$man" | xxd -r -p)
		got=$(readlink "$MNT/$t/link-long")
		check "readlink $t/link-long: $got" '[ "$got" = "$want" ] && [ -n "$got" ]'
		got=$(stat -c '%i %h' "$MNT/$t/hardlink target" "$MNT/$t/sub/hard link" | sort -u)
		check "stat hard links of $t: '$got'" '[ "$(echo "$got" | wc -l)" = 1 ] && [ "${got#* }" = 2 ]'
	done
}

# stat against the image's inodes, for everything mounted
inodes() {
	$PY "$MC" inodes "$img" "$MNT" >"$W/inodes" 2>&1 && ok ||
		bad "inodes: $(grep -m5 -e FAIL -e Error "$W/inodes")"
	tail -1 "$W/inodes"
}

# user.e4dump.context: every entry (mount_check.py context), then getfattr
# on one file of each encrypted tree against debugfs's ea_get
contexts() {
	local t f ino want got ea
	$PY "$MC" context "$man" "$MNT" "$img" "$@" ${CTX_STRICT:-} >"$W/context" 2>&1 && ok ||
		bad "context: $(grep -m5 -e FAIL -e Error "$W/context")"
	tail -1 "$W/context"
	for t in "$@"; do
		case $(treeinfo "$t") in enc|enc2) ;; *) continue ;; esac
		f=$(find "$MNT/$t" -type f | sort | head -1)
		ino=$(stat -c %i "$f")
		ea=$(debugfs -R "ea_get -x <$ino> c" "$img" 2>/dev/null | sed -n 's/^c ([0-9]*) = //p' | tr -d ' \n')
		got=$(getfattr --absolute-names --only-values -n user.e4dump.context "$f" 2>&1)
		want="nonce=${ea: -32}"
		case $(treeinfo "$t") in
		enc) want="v1 descriptor=${ea:8:16} contents=$((16#${ea:2:2})) filenames=$((16#${ea:4:2})) .* $want" ;;
		enc2) want="v2 identifier=${ea:16:32} contents=$((16#${ea:2:2})) filenames=$((16#${ea:4:2})) .* $want" ;;
		esac
		check "getfattr $t (inode $ino): '$got', debugfs: $ea" \
			'[ ${#ea} -ge 56 ] && [[ $got =~ ^$want$ ]] && awk -v t="$t" -v g="$got" '"'"'$1 == "tree" && $2 == t && index(g, "=" $4 " ") {f = 1} END {exit !f}'"'"' "$man"'
	done
	f=$(find "$MNT" -maxdepth 1 -name lost+found)
	if [ -n "$f" ]; then
		getfattr -n user.e4dump.context "$f" >/dev/null 2>"$W/getfattr.err"
		check "getfattr on unencrypted lost+found: ENODATA: $(cat "$W/getfattr.err")" \
			'grep -q "No such attribute" "$W/getfattr.err"'
	fi
}

# writes with ordinary tools: each fails with EROFS; then the system calls
writes() {
	local f=$MNT/$1 d=$MNT/$2 c
	local cmds=("touch '$f'" "touch '$d/new'" "mkdir '$d/new'" "rm -f '$f'" "rmdir '$d'"
		"mv '$f' '$d/new'" "ln '$f' '$d/new'" "ln -s x '$d/new'" "chmod 600 '$f'"
		"chown 1:1 '$f'" "truncate -s 0 '$f'" "setfattr -n user.x -v 1 '$f'"
		"setfattr -x user.e4dump.context '$f'" "echo x >>'$f'" "echo x >'$d/new'"
		"mkfifo '$d/new'" "cp /etc/hostname '$d/new'")
	for c in "${cmds[@]}"; do
		(eval "$c") >/dev/null 2>"$W/write.err"
		check "$c: want 'Read-only file system', got: $(head -1 "$W/write.err")" \
			'[ -s "$W/write.err" ] && grep -q "Read-only file system" "$W/write.err"'
	done
	check "a write made something: $(ls -d "$d/new" 2>&1)" '! [ -e "$d/new" ] && [ -f "$f" ]'
	$PY "$MC" writes "$f" "$d" >"$W/writes" 2>&1 && ok || bad "writes: $(grep -m5 -e FAIL -e Error "$W/writes")"
	tail -1 "$W/writes"
}

# a locked tree lists the kernel's no-key names (readdir TAG), byte for byte
nokey_readdir() {
	local tag dir count n
	records "$man" readdir || return
	while IFS=$'\t' read -r tag dir count; do
		[ -z "${1:-}" ] || [ "$dir" = "$1" ] || continue
		check_extract "$man" --readdir "$tag" --strip-tree >"$W/kernel.$tag" || bad "readdir $tag records"
		(cd "$MNT/$dir" && find . -mindepth 1 | sed 's|^\./||' | sort) >"$W/mount.$tag"
		n=$(wc -l <"$W/mount.$tag")
		if [ "$n" -gt 0 ] && cmp -s "$W/kernel.$tag" "$W/mount.$tag"; then
			ok
			echo "readdir $tag (/$dir): the mount lists the kernel's $n no-key names"
		else
			bad "readdir $tag (/$dir): the mount differs from the kernel: $(diff "$W/kernel.$tag" "$W/mount.$tag" | head -4)"
		fi
	done <"$W/records.readdir"
}

# statfs: the image's block size, block count and inode count (dumpe2fs)
statfs() {
	local want got
	want=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '
		/^Block size/ {b = $2 + 0} /^Block count/ {c = $2 + 0} /^Inode count/ {i = $2 + 0}
		END {print b, c, i}')
	got=$(stat -f -c '%S %b %c' "$MNT")
	check "stat -f: '$got', dumpe2fs: '$want'" '[ "$got" = "$want" ]'
}

# as another user (nobody): without allow_other nothing of the mount is
# reachable; with it the image's modes hold (default_permissions)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
other_user() {
	local t=$1 r
	if ! as_nobody test -x "$W"; then
		echo "note: $W is not searchable by nobody: other-user checks left out"
		return
	fi
	if [ "${2:-}" != allow_other ]; then
		as_nobody stat "$MNT/$t" >/dev/null 2>"$W/nobody.err"
		check "without allow_other, nobody: stat $t: $(cat "$W/nobody.err")" \
			'grep -q "Permission denied" "$W/nobody.err"'
		return
	fi
	r=$(as_nobody sha256sum <"$MNT/$t/sub/one.txt" 2>&1 | cut -d' ' -f1)
	check "allow_other: nobody reads $t/sub/one.txt (0644)" '[ "$r" = "$($PY "$MC" sha "$man" "$t/sub/one.txt")" ]'
	as_nobody cat "$MNT/$t/é" >/dev/null 2>"$W/nobody.err"
	check "allow_other: nobody: cat $t/é (0600): $(cat "$W/nobody.err")" 'grep -q "Permission denied" "$W/nobody.err"'
	as_nobody ls "$MNT/$t/sub/deeper" >/dev/null 2>"$W/nobody.err"
	check "allow_other: nobody: ls $t/sub/deeper (0700): $(cat "$W/nobody.err")" 'grep -q "Permission denied" "$W/nobody.err"'
}

toplevel() {
	local want got
	want=$( (alltrees; echo lost+found) | sort | tr '\n' ' ')
	got=$(ls -A "$MNT" | tr '\n' ' ')
	check "top level: '$got', want '$want'" '[ "$got" = "$want" ]'
}

keyargs=()
for k in "$keydir"/*.key; do keyargs+=(--key-file "$k"); done
MOUNT_IMG=$img
# listxattr against getxattr on symlinks: checked once, in the v2 session
[ $KIND = v2 ] && CTX_STRICT=--symlink-listxattr
mapfile -t trees < <(alltrees)

# -- the sessions ---------------------------------------------------------------
case $KIND in
v1 | v2 | adiantum | casefold)
	if [ $KIND = v2 ]; then start --daemon -o allow_other "${keyargs[@]}"; else start "${keyargs[@]}"; fi ||
		give_up "cannot mount"
	reads "${trees[@]}"
	toplevel
	statfs
	manifest_trees "${trees[@]}"
	inodes
	contexts "${trees[@]}"
	enc=
	for t in "${trees[@]}"; do [ "$(treeinfo "$t")" = plain ] || { enc=$t; break; }; done
	writes "$(cd "$MNT" && find "$enc/sub" -maxdepth 1 -type f | sort | head -1)" "$enc/sub"
	;;&
casefold)
	# the kernel's case-insensitive lookups (exists TAG PATH 0|1), by stat
	records "$man" exists
	while IFS=$'\t' read -r tag path want; do
		stat "$MNT/$path" >/dev/null 2>&1 && got=1 || got=0
		check "casefold lookup $tag ($path): $got, kernel $want" '[ "$got" = "$want" ]'
	done <"$W/records.exists"
	got=$(stat -c %i "$MNT/v2cf/Folding/README.TXT" "$MNT/v2cf/Folding/readme.txt" \
		"$MNT/v2cf/folding/Readme.Txt" "$MNT/v2cf/FOLDING/readme.TXT" 2>&1 | sort -u)
	check "stat README.TXT, readme.txt, folding/Readme.Txt: one inode: $got" \
		'[ "$(echo "$got" | wc -l)" = 1 ] && [ "$got" -gt 0 ] 2>/dev/null'
	ls "$MNT/v2cf/Folding" >"$W/folding.ls"
	check "readdir shows the stored case README.TXT, not readme.txt" \
		'grep -qx README.TXT "$W/folding.ls" && ! grep -qx readme.txt "$W/folding.ls"'
	check "the root is not casefolded: stat /V2CF fails" '! stat "$MNT/V2CF" >/dev/null 2>&1'
	;;
esac

case $KIND in
v1)
	$PY "$MC" openmany "$man" "$MNT" pad4 100 >"$W/openmany" 2>&1 && ok ||
		bad "openmany: $(grep -m5 -e FAIL -e Error "$W/openmany")"
	tail -1 "$W/openmany"
	other_user pad4
	stop
	# errors: a missing mountpoint, image or key file, an option FUSE
	# refuses, an image that is not ext4: exit 2, a message, nothing mounted
	expect "mount on a missing directory" 2 "No such file or directory" -- "$E4DUMP" mount "$img" "$W/missing"
	expect "mount a missing image" 2 "." -- "$E4DUMP" mount "$W/missing.img" "$MNT"
	expect "mount with a missing key file" 2 "." -- "$E4DUMP" mount --key-file "$W/missing.key" "$img" "$MNT"
	expect "mount -o no_such_option" 2 "." -- "$E4DUMP" mount -o no_such_option "$img" "$MNT"
	expect "mount a file that is not ext4" 2 "." -- "$E4DUMP" mount "$man" "$MNT"
	check "a failed mount left something mounted" '! mounted && ! served >/dev/null'
	;;
v2)
	other_user v2pad16 allow_other
	stop
	;;
casefold)
	stop
	;;
adiantum)
	stop
	# the image 1 MiB into a larger file (--offset), stopped by SIGTERM
	{ head -c 1048576 /dev/zero && cat "$img"; } >"$W/offset.img"
	MOUNT_IMG=$W/offset.img
	start --offset 1048576 "${keyargs[@]}" || give_up "cannot mount with --offset"
	manifest_trees "${trees[@]}"
	stop --signal
	MOUNT_IMG=$img
	# the mountpoint given relative to the working directory, SIGTERM
	start --relative "${keyargs[@]}" || give_up "cannot mount mnt-$KIND"
	toplevel
	stop --signal
	;;
onekey)
	# the v2 key only: the v1 tree is locked
	v2key=$keydir/$(awk '$1 == "key2" {print $2; exit}' "$man").key
	locked=$(awk '$1 == "tree" && $3 == "enc" {print $2}' "$man")
	opened=$(awk '$1 == "tree" && $3 != "enc" {print $2}' "$man")
	[ -s "$v2key" ] && [ -n "$locked" ] && [ -n "$opened" ] || give_up "keys/trees of $SCN: $v2key / $locked / $opened"
	start --key-file "$v2key" || give_up "cannot mount"
	reads $opened
	toplevel
	manifest_trees $opened
	nokey_readdir "$locked"
	# with the key, the kernel's no-key names of the opened tree still work
	tag=$(awk -v t="$opened" '$1 == "readdir" {print $2, $3}' "$man" | while read -r a b; do
		[ "$(echo "$b" | xxd -r -p)" = "$opened" ] && echo "$a"; done)
	$PY "$MC" nokey-lookup "$man" "$MNT" "$tag" >"$W/nokey-lookup" 2>&1 && ok ||
		bad "nokey-lookup $tag: $(grep -m5 -e FAIL -e Error "$W/nokey-lookup")"
	tail -1 "$W/nokey-lookup"
	$PY "$MC" locked "$img" "$MNT/$locked" >"$W/locked" 2>&1 && ok ||
		bad "locked: $(grep -m5 -e FAIL -e Error "$W/locked")"
	tail -1 "$W/locked"
	f=$(find "$MNT/$locked" -maxdepth 1 -type f | head -1)
	cat "$f" >/dev/null 2>"$W/cat.err"
	check "cat a locked file: $(cat "$W/cat.err")" 'grep -q "Permission denied" "$W/cat.err"'
	inodes
	contexts "${trees[@]}"
	writes "$(cd "$MNT" && find "$locked" -maxdepth 1 -type f | head -1)" "$locked"
	stop 1
	# -o rw is refused: the mount is read-only by construction
	expect "mount -o rw" 2 "read-only" -- "$E4DUMP" mount -f -o rw "$img" "$MNT"
	# no key: every readdir record; writes refused
	start || give_up "cannot mount without keys"
	nokey_readdir
	for t in $locked $opened; do
		$PY "$MC" locked "$img" "$MNT/$t" >"$W/locked.$t" 2>&1 && ok ||
			bad "locked $t: $(grep -m5 -e FAIL -e Error "$W/locked.$t")"
	done
	check "mounted read-only" 'grep " $MNT " /proc/mounts | grep -q " ro[,.]"'
	writes "$(cd "$MNT" && find "$opened" -maxdepth 1 -type f | head -1)" "$opened"
	inodes
	stop
	# --keep-locked: the locked tree's files are their stored ciphertext
	start --keep-locked --key-file "$v2key" || give_up "cannot mount with --keep-locked"
	$PY "$MC" locked "$img" "$MNT/$locked" --keep >"$W/keep" 2>&1 && ok ||
		bad "keep-locked: $(grep -m5 -e FAIL -e Error "$W/keep")"
	tail -1 "$W/keep"
	f=$(find "$MNT/$locked" -maxdepth 1 -type f -size +1000k | head -1)
	ino=$(stat -c %i "$f")
	debugfs -R "dump <$ino> $W/dump.bin" "$img" >/dev/null 2>&1
	check "keep-locked: the 1 MiB file (inode $ino) is what debugfs dump gives" \
		'[ -s "$W/dump.bin" ] && cmp -s "$f" "$W/dump.bin"'
	manifest_trees $opened
	stop 1
	;;
esac

check "the image changed during the sessions" '[ "$(sha256sum <"$img")" = "$sum_before" ]'
echo "$KIND: $((SECONDS - T0)) s"
finish
