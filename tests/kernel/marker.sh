#!/bin/bash
# The on-disk marker of the 2015 format (kernel-patches/, feature
# encrypt_2015 = incompat 0x80000000), shown in QEMU with the kernel's own
# answers and messages:
#  - the patched kernel marks a filesystem without encryption at its first
#    read-write mount with fscrypt_2015 (encrypt + encrypt_2015 in the
#    superblock), refuses that mount read-only, refuses the marked
#    filesystem without the option, refuses test_dummy_encryption other
#    than v1 and, in FIPS mode (fips=1), test_dummy_encryption at all, and
#    refuses policies the 2015 format never had (v2, flags, modes other than
#    AES-256-XTS/AES-256-CTS);
#  - on a filesystem in the current format (encrypt without encrypt_2015)
#    it refuses fscrypt_2015, and without the option accepts every policy
#    the stock kernel does;
#  - the unpatched 6.1 kernel refuses the marked filesystem, read-write and
#    read-only, and leaves the image unchanged;
#  - the same refusals of test_dummy_encryption when it comes from the
#    superblock's default mount options (s_mount_opts);
#  - fscrypt_2015 is refused on 1 KiB blocks (not the page size), and the
#    filesystem is left unmarked;
#  - e2fsck -fn and e2fsck -p refuse it and change nothing;
#  - e4dump info reports the format from the feature, and extract reads it.
# usage: marker.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
EINVAL=22

# mount_try MANIFEST TAG ERRNO [KMSG-ERE]: the mount-try record TAG has
# ERRNO, and (when given) one of its kernel messages matches KMSG-ERE
mount_try() {
	local man=$1 tag=$2 want=$3 re=${4:-} got
	got=$(awk -v t="$tag" '$1 == "mount-try" && $2 == t { print $4 }' "$man")
	[ "$got" = "$want" ] || { bad "$(basename "$man") mount-try $tag: errno '$got', want $want"; return; }
	kmsgs "$man" "$tag" >"$W/kmsg.$tag"
	sed "s/^/  $tag: /" "$W/kmsg.$tag"
	if [ -n "$re" ] && ! grep -Eq "$re" "$W/kmsg.$tag"; then
		bad "$(basename "$man") mount-try $tag: no kernel message matching /$re/"
		return
	fi
	ok
}
kmsgs() {
	awk -v t="$2" '$1 == "kmsg" && $2 == t { print $3 }' "$1" |
		/usr/bin/python3 -c 'import sys; [print(bytes.fromhex(l.strip()).decode("utf-8", "replace")) for l in sys.stdin]'
}
policy_try() {
	local man=$1 tag=$2 want=$3 got
	got=$(awk -v t="$tag" '$1 == "policy-try" && $2 == t { print $3 }' "$man")
	check "$(basename "$man") policy-try $tag: errno '$got', want $want" '[ "$got" = "$want" ]'
}
features() {   # s_feature_incompat of an image, in hex
	/usr/bin/python3 -c 'import struct, sys
f = open(sys.argv[1], "rb"); f.seek(1024 + 0x60)
print("%08x" % struct.unpack("<I", f.read(4))[0])' "$1"
}

# ---- the patched kernel marks a filesystem and guards it ------------------------
img=$W/m2015.img man=$img.manifest
make_image "$top/vm/scenarios/marker-2015.scn" "$img" "$W/m2015.log"
incompat=$(features "$img")
echo "s_feature_incompat after the first fscrypt_2015 mount: 0x$incompat"
check "encrypt and encrypt_2015 set (0x$incompat)" \
	'[ $(( 0x$incompat & 0x80010000 )) = $(( 0x80010000 )) ]'
mount_try "$man" ro-unmarked $EINVAL "Can't use fscrypt_2015 read-only"
mount_try "$man" mark 0 "2015 encryption format enabled \(encrypt and encrypt_2015 features set\)"
mount_try "$man" no-option $EINVAL "uses the 2015 encryption format.*mount it with fscrypt_2015"
mount_try "$man" ro-marked 0
mount_try "$man" dummy-default $EINVAL "fscrypt_2015 allows only test_dummy_encryption=v1"
mount_try "$man" dummy-v2 $EINVAL "fscrypt_2015 allows only test_dummy_encryption=v1"
mount_try "$man" dummy-v1 0
policy_try "$man" v1-xts-cts 0
policy_try "$man" v1-pad32 $EINVAL
policy_try "$man" v1-aes128 $EINVAL
policy_try "$man" v1-adiantum $EINVAL
policy_try "$man" v2 $EINVAL

# e4dump: the format from the feature, and the tree written in it
must_run "info" "$W/info" -- "$E4DUMP" info "$img" &&
	check "info names the format and why: $(grep -E 'encrypt_2015|name format' "$W/info")" \
		'grep -qx "encrypt_2015 feature: yes" "$W/info" &&
		 grep -qx "name format: 2015 (encrypt_2015 feature)" "$W/info"'
"$E4DUMP" extract -k "$W/keys/7c9fc345b9ec5163.key" "$img" /t2015 -o "$W/x" 2>"$W/x.err" && ok ||
	bad "extract: exit $?: $(head -3 "$W/x.err")"
check_extract -q --tree t2015 --strip-tree "$man" "$W/x" >"$W/x.check" 2>&1 && ok ||
	bad "extract: $(grep FAIL "$W/x.check" | head -3)"

# ---- FIPS mode: the 2015 dummy key (equal XTS halves) refused at mount ------------
fimg=$W/fips.img
make_image "$top/vm/scenarios/fips-2015.scn" "$fimg" "$W/fips.log"
check "fips=1 took effect: $(grep '^proc fips' "$fimg.manifest")" \
	'grep -qx "proc fips 1" "$fimg.manifest"'
mount_try "$fimg.manifest" fips-dummy $EINVAL "test_dummy_encryption can't be used with fscrypt_2015 in FIPS mode"
mount_try "$fimg.manifest" fips-plain 0
"$E4DUMP" extract -k "$W/keys/7c9fc345b9ec5163.key" "$fimg" /t2015 -o "$W/fx" 2>"$W/fx.err" && ok ||
	bad "extract (FIPS image): exit $?: $(head -3 "$W/fx.err")"
check_extract -q --tree t2015 --strip-tree "$fimg.manifest" "$W/fx" >"$W/fx.check" 2>&1 && ok ||
	bad "extract (FIPS image): $(grep FAIL "$W/fx.check" | head -3)"

# ---- test_dummy_encryption in the superblock's s_mount_opts: the same checks ----
# (v2 refused; v1 refused in FIPS mode), on copies of the marked image
for v in v2 v1; do
	simg=$W/sbopts-$v.img scn=marker-sbopts.scn tag=sbopts
	[ $v = v1 ] && scn=marker-sbopts-fips.scn tag=sbopts-fips
	cp --sparse=always "$img" "$simg.src"
	/usr/bin/python3 "$top/tests/kernel/superblocks.py" mount-opts "$simg.src" "test_dummy_encryption=$v" ||
		bad "setting s_mount_opts"
	if bash "$top/vm/make-image.sh" --from-image "$simg.src" "$top/vm/scenarios/$scn" "$simg" \
		>"$W/sbopts-$v.log" 2>&1; then
		if [ $v = v2 ]; then
			mount_try "$simg.manifest" $tag $EINVAL "fscrypt_2015 allows only test_dummy_encryption=v1"
		else
			check "fips=1 took effect: $(grep '^proc fips' "$simg.manifest")" \
				'grep -qx "proc fips 1" "$simg.manifest"'
			mount_try "$simg.manifest" $tag $EINVAL "test_dummy_encryption can't be used with fscrypt_2015 in FIPS mode"
		fi
	else
		bad "$scn: $(tail -5 "$W/sbopts-$v.log")"
	fi
done

# ---- fscrypt_2015 needs the block size to be the page size -----------------------
kimg=$W/m1k.img
make_image "$top/vm/scenarios/marker-1k.scn" "$kimg" "$W/m1k.log"
mount_try "$kimg.manifest" 1k $EINVAL "Can't use fscrypt_2015 with a block size of 1024 bytes: the 2015 format requires the page size \(4096\)"
mount_try "$kimg.manifest" 1k-plain 0
incompat=$(features "$kimg")
check "1 KiB blocks: neither encrypt nor encrypt_2015 set (0x$incompat)" \
	'[ $(( 0x$incompat & 0x80010000 )) = 0 ]'

# ---- e2fsck from Debian's e2fsprogs refuses it and changes nothing ----------------
cp --sparse=always "$img" "$W/fsck.img"
before=$(sha256sum <"$W/fsck.img")
for mode in -fn -p -fy; do
	e2fsck $mode "$W/fsck.img" >"$W/fsck$mode.log" 2>&1
	rc=$?
	echo "e2fsck $mode: exit $rc: $(tr '\n' ' ' <"$W/fsck$mode.log" | cut -c1-160)"
	check "e2fsck $mode: exit $rc, want 8 and \"unsupported feature\"" \
		'[ $rc = 8 ] && grep -q "unsupported feature" "$W/fsck$mode.log"'
done
check "e2fsck left the image unchanged" '[ "$(sha256sum <"$W/fsck.img")" = "$before" ]'

# ---- the stock kernel refuses it --------------------------------------------------
if stock=$(bash "$top/vm/build-kernel.sh" --stock 2>"$W/stock-build.log" | tail -1) && [ -r "$stock" ]; then
	ok
	simg=$W/stock.img
	if bash "$top/vm/make-image.sh" --kernel "$stock" --from-image "$img" \
		"$top/vm/scenarios/marker-stock.scn" "$simg" >"$W/stock.log" 2>&1; then
		ok
		mount_try "$simg.manifest" stock $EINVAL "unsupported optional features \(80000000\)"
		mount_try "$simg.manifest" stock-ro $EINVAL "unsupported optional features \(80000000\)"
		check "the stock kernel left the image unchanged" \
			'cmp -s "$img" "$simg"'
	else
		bad "stock kernel run: $(tail -5 "$W/stock.log")"
	fi
else
	bad "building the stock kernel: $(tail -5 "$W/stock-build.log")"
fi

# ---- a filesystem in the current format: fscrypt_2015 refused ---------------------
img=$W/m61.img man=$img.manifest
make_image "$top/vm/scenarios/marker-61.scn" "$img" "$W/m61.log"
mount_try "$man" with-2015 $EINVAL "encrypt without encrypt_2015"
mount_try "$man" ro-with-2015 $EINVAL "encrypt without encrypt_2015"
policy_try "$man" v1-xts-cts 0
policy_try "$man" v1-pad32 0
policy_try "$man" v1-aes128 0
policy_try "$man" v1-adiantum 0
# root: CAP_FOWNER skips the key check (fs/crypto/keyring.c: fscrypt_verify_key_added)
policy_try "$man" v2 0
incompat=$(features "$img")
check "no encrypt_2015 on a stock-format filesystem (0x$incompat)" \
	'[ $(( 0x$incompat & 0x80000000 )) = 0 ]'
must_run "info (current format)" "$W/info61" -- "$E4DUMP" info "$img" &&
	check "info: $(grep -E 'encrypt_2015|name format' "$W/info61")" \
		'grep -qx "encrypt_2015 feature: no" "$W/info61" &&
		 grep -q "^name format: Linux 6.1 (" "$W/info61"'
finish
