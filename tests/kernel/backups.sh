#!/bin/bash
# The encrypt_2015 marker in the backup superblocks (kernel-patches/, patch
# 6; issue 31, item 1).  e2fsck 1.47 falls back to the backup superblock of
# group 1 when the primary's checksum is bad; were the backups unmarked, it
# would check and rehash the filesystem as a stock one and write the
# unmarked superblock back.  Shown with the kernels' and e2fsck's own
# answers:
#  - the first read-write mount with fscrypt_2015 marks every superblock
#    (primary and groups 1, 3, 5, 7), each with a valid checksum;
#  - control: with the backups unmarked (as the series did before), the
#    fallback makes e2fsck -fy check the filesystem and write back a
#    primary superblock without encrypt_2015;
#  - with them marked, e2fsck -fn and -fy refuse it (unsupported feature)
#    and leave the image byte-identical;
#  - on that image (primary checksum still bad) the stock 6.1 kernel refuses
#    the backup superblock for the unknown feature, read-only and
#    read-write; the patched kernel refuses it without fscrypt_2015 and
#    mounts it with the option; neither changes the image;
#  - a filesystem marked in the primary superblock only gets its backups
#    marked at its next read-write mount with fscrypt_2015;
#  - the debugfs command of fscrypt.rst and kernel-patches/README.md puts
#    an image that has encrypt without the marker (as a 2015 development
#    kernel left it) under the marker, backups included, and the patched
#    kernel then mounts it with fscrypt_2015.
# usage: backups.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
EINVAL=22 EBADMSG=74   # EFSBADCRC is EBADMSG
MARK=0x80010000        # encrypt_2015 | encrypt
sbs() { /usr/bin/python3 "$top/tests/kernel/superblocks.py" "$@"; }

# all_marked IMG WHAT: all 5 superblocks have both features and good checksums
all_marked() {
	local g off incompat csum n=0 total=0
	sbs list "$1" >"$1.sbs" || { bad "$2: superblocks.py list failed"; return; }
	while read -r g off incompat csum; do
		echo "  $2: group $g at $off: incompat 0x$incompat $csum"
		total=$((total + 1))
		[ $(( 0x$incompat & MARK )) = $((MARK)) ] && [ "$csum" = csum-ok ] && n=$((n + 1))
	done <"$1.sbs"
	check "$2: $n of $total superblocks marked with good checksums, want 5 of 5" \
		'[ $n = 5 ] && [ $total = 5 ]'
}
# primary_incompat IMG: s_feature_incompat of the primary superblock (hex)
primary_incompat() { sbs list "$1" | awk 'NR == 1 { print $3 }'; }
# count_incompat IMG ERE: how many superblocks have an incompat word matching ERE
count_incompat() { sbs list "$1" | awk -v re="$2" '$3 ~ re' | wc -l; }
mount_try() {   # MANIFEST TAG ERRNO [KMSG-ERE]
	local man=$1 tag=$2 want=$3 re=${4:-} got
	got=$(awk -v t="$tag" '$1 == "mount-try" && $2 == t { print $4 }' "$man")
	awk -v t="$tag" '$1 == "kmsg" && $2 == t { print $3 }' "$man" |
		/usr/bin/python3 -c 'import sys; [print(bytes.fromhex(l.strip()).decode("utf-8", "replace")) for l in sys.stdin]' \
		>"$W/kmsg.$tag.$(basename "$man")"
	sed "s/^/  $tag: /" "$W/kmsg.$tag.$(basename "$man")"
	if [ "$got" != "$want" ]; then
		bad "$(basename "$man") mount-try $tag: errno '$got', want $want"
	elif [ -n "$re" ] && ! grep -Eq "$re" "$W/kmsg.$tag.$(basename "$man")"; then
		bad "$(basename "$man") mount-try $tag: no kernel message matching /$re/"
	else
		ok
	fi
}
from_image() {  # [--kernel BZIMAGE] SRC SCENARIO OUT
	bash "$top/vm/make-image.sh" "$@" >"$W/$(basename "${@: -1}").log" 2>&1 && return 0
	bad "make-image.sh --from-image ${*: -2:1}: $(tail -5 "$W/$(basename "${@: -1}").log")"
	return 1
}

# ---- the marking mount writes every superblock ---------------------------------
img=$W/backups.img
make_image "$top/vm/scenarios/marker-backups.scn" "$img" "$W/backups.log"
all_marked "$img" "after the marking mount"

# ---- control: unmarked backups are what e2fsck falls back to --------------------
ctl=$W/control.img
cp --sparse=always "$img" "$ctl"
sbs incompat "$ctl" backups clear 0x80000000 && sbs break-csum "$ctl"
e2fsck -fy "$ctl" >"$W/control.fsck" 2>&1
rc=$?
echo "control: e2fsck -fy exit $rc: $(tr '\n' ' ' <"$W/control.fsck" | cut -c1-200)"
pi=$(primary_incompat "$ctl")
check "control: e2fsck -fy fell back to the unmarked backup, checked the filesystem and wrote a primary superblock without encrypt_2015 (exit $rc, incompat 0x$pi)" \
	'grep -q "trying backup blocks" "$W/control.fsck" &&
	 ! grep -q "unsupported feature" "$W/control.fsck" &&
	 [ $(( 0x$pi & 0x80000000 )) = 0 ]'

# ---- with the backups marked, e2fsck refuses and writes nothing -----------------
bimg=$W/badcsum.img
cp --sparse=always "$img" "$bimg"
sbs break-csum "$bimg"
check "the primary superblock's checksum is bad" 'sbs list "$bimg" | head -1 | grep -q csum-bad'
before=$(sha256sum <"$bimg")
for mode in -fn -fy; do
	e2fsck $mode "$bimg" >"$W/fsck$mode.log" 2>&1
	rc=$?
	echo "e2fsck $mode: exit $rc: $(tr '\n' ' ' <"$W/fsck$mode.log" | cut -c1-200)"
	check "e2fsck $mode on a bad primary: exit $rc, want 8, the fallback and \"unsupported feature\"" \
		'[ $rc = 8 ] && grep -q "trying backup blocks" "$W/fsck$mode.log" &&
		 grep -q "unsupported feature" "$W/fsck$mode.log"'
done
check "e2fsck left the image unchanged" '[ "$(sha256sum <"$bimg")" = "$before" ]'

# ---- the stock kernel refuses the backup, the patched one mounts it with the option
if from_image --from-image "$bimg" "$top/vm/scenarios/marker-backup-sb.scn" "$W/patched-sb.img"; then
	man=$W/patched-sb.img.manifest
	mount_try "$man" primary $EBADMSG "invalid superblock checksum"
	mount_try "$man" backup $EINVAL "uses the 2015 encryption format.*mount it with fscrypt_2015"
	mount_try "$man" backup-rw $EINVAL "uses the 2015 encryption format.*mount it with fscrypt_2015"
	mount_try "$man" backup-2015 0
	check "the patched kernel left the image unchanged" 'cmp -s "$bimg" "$W/patched-sb.img"'
fi
if stock=$(bash "$top/vm/build-kernel.sh" --stock 2>"$W/stock-build.log" | tail -1) && [ -r "$stock" ]; then
	if from_image --kernel "$stock" --from-image "$bimg" "$top/vm/scenarios/marker-backup-sb.scn" "$W/stock-sb.img"; then
		man=$W/stock-sb.img.manifest
		mount_try "$man" primary $EBADMSG "invalid superblock checksum"
		mount_try "$man" backup $EINVAL "unsupported optional features \(80000000\)"
		mount_try "$man" backup-rw $EINVAL "unsupported optional features \(80000000\)"
		mount_try "$man" backup-2015 $EINVAL
		check "the stock kernel left the image unchanged" 'cmp -s "$bimg" "$W/stock-sb.img"'
	fi
else
	bad "building the stock kernel: $(tail -5 "$W/stock-build.log")"
fi

# ---- a filesystem marked in the primary only gets its backups at the next mount --
pimg=$W/primary-only.img
cp --sparse=always "$img" "$pimg"
sbs incompat "$pimg" backups clear 0x80000000
n=$(count_incompat "$pimg" "^8")
check "primary-only image: $n superblock(s) marked, want 1" '[ "$n" = 1 ]'
if from_image --from-image "$pimg" "$top/vm/scenarios/marker-rw.scn" "$W/remarked.img"; then
	mount_try "$W/remarked.img.manifest" rw 0
	all_marked "$W/remarked.img" "after a read-write mount of the primary-only image"
fi

# ---- the documented debugfs command on an image without the marker -------------
dimg=$W/devkernel.img
cp --sparse=always "$img" "$dimg"
sbs incompat "$dimg" all clear 0x80000000
n=$(count_incompat "$dimg" "^0001")
check "image as a development kernel left it: $n of 5 superblocks with encrypt, without encrypt_2015" '[ "$n" = 5 ]'
printf 'feature FEATURE_I31\nclose -a\n' | debugfs -w -f - "$dimg" >"$W/debugfs.log" 2>&1 ||
	bad "debugfs: $(tail -3 "$W/debugfs.log")"
all_marked "$dimg" "after debugfs feature FEATURE_I31 + close -a"
if from_image --from-image "$dimg" "$top/vm/scenarios/marker-rw.scn" "$W/devkernel-mounted.img"; then
	mount_try "$W/devkernel-mounted.img.manifest" rw 0
fi
"$E4DUMP" extract -k "$W/keys/7c9fc345b9ec5163.key" "$W/devkernel-mounted.img" /t2015 -o "$W/x" 2>"$W/x.err" && ok ||
	bad "extract after the debugfs marking and a mount: exit $?: $(head -3 "$W/x.err")"
check_extract -q --tree t2015 --strip-tree "$img.manifest" "$W/x" >"$W/x.check" 2>&1 && ok ||
	bad "extract: $(grep FAIL "$W/x.check" | head -3)"
finish
