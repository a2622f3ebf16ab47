#!/bin/bash
# A cheap start (issue 33): the container libraries (libyal's, Android's
# libsparse), libblkid and libfuse3 are loaded only by what needs them
# (image/source/dynlib.h).  The objects a run loads are what the dynamic
# loader itself says it initialises (LD_DEBUG=libs, "calling init:",
# dlopen'd ones included), written to a file (LD_DEBUG_OUTPUT) apart from
# the command's own output.  --version and ls of the raw sample load none
# of them; ls of an E01 loads libewf and of a qcow2 libqcow (and not the
# other), a partitioned disk libblkid, the mount libfuse3, each listing
# what ls of the raw image lists.  A library that cannot be loaded (an
# empty file or a shared object without its functions under its soname,
# first on LD_LIBRARY_PATH) is one error naming its Debian package, exit
# 2, and the raw image still reads with it there.  Skipped when built
# with E4DUMP_DLOPEN=OFF (the libraries are linked).
# usage: dynlib.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
if readelf -d "$E4DUMP" | grep -q 'NEEDED.*libewf'; then
	echo "SKIPPED: built with E4DUMP_DLOPEN=OFF (libewf is linked)"
	finish
fi
for t in ewfacquire qemu-img sfdisk cc readelf; do
	command -v $t >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
done
sample sample.img
OPTIONAL='libewf|libqcow|libvhdi|libvmdk|libsmraw|libbfio|libsparse|libblkid|libfuse3'

# loaded NAME -- CMD...: CMD's stdout in $W/NAME.out, stderr in
# $W/NAME.err, its exit status in RC, and in $W/NAME.libs the base names
# of the objects the loader initialised
loaded() {
	local name=$1
	shift 2
	rm -f "$W/ld.$name".*
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$W/ld.$name" "$@" >"$W/$name.out" 2>"$W/$name.err"
	RC=$?
	cat "$W/ld.$name".* 2>/dev/null | sed -n 's,.*calling init: .*/,,p' | sort -u >"$W/$name.libs"
}
has() { grep -Eq "^($2)\.so" "$W/$1.libs"; }

loaded version -- "$E4DUMP" --version
check "--version runs ($RC)" '[ "$RC" = 0 ]'
check "--version: the loader's record was read ($(wc -l <"$W/version.libs") objects)" \
	'has version "libc|libext2fs"'
check "--version loads no container, libblkid or FUSE library ($(grep -E "$OPTIONAL" "$W/version.libs" | tr "\n" " "))" \
	'! has version "$OPTIONAL"'

loaded raw -- "$E4DUMP" ls "$W/sample.img"
check "ls of the raw image lists ($RC)" '[ "$RC" = 0 ] && grep -qx secret "$W/raw.out"'
check "ls of the raw image loads no container, libblkid or FUSE library ($(grep -E "$OPTIONAL" "$W/raw.libs" | tr "\n" " "))" \
	'! has raw "$OPTIONAL"'

ewfacquire -u -q -t "$W/ev" -f encase6 -C c -E e -e x -D d -N n -c deflate:fast \
	"$W/sample.img" >"$W/ewf.log" 2>&1 || give_up "ewfacquire: $(tail -3 "$W/ewf.log")"
qemu-img convert -O qcow2 "$W/sample.img" "$W/q.qcow2" || give_up "qemu-img convert"

loaded e01 -- "$E4DUMP" ls "$W/ev.E01"
check "ls of the E01 ($RC) lists what ls of the raw image does" \
	'[ "$RC" = 0 ] && cmp -s "$W/raw.out" "$W/e01.out"'
check "ls of the E01 loads libewf" 'has e01 libewf'
check "ls of the E01 loads neither libqcow nor libfuse3" '! has e01 "libqcow|libfuse3"'

loaded qcow -- "$E4DUMP" ls "$W/q.qcow2"
check "ls of the qcow2 ($RC) lists what ls of the raw image does" \
	'[ "$RC" = 0 ] && cmp -s "$W/raw.out" "$W/qcow.out"'
check "ls of the qcow2 loads libqcow" 'has qcow libqcow'
check "ls of the qcow2 loads neither libewf nor libfuse3" '! has qcow "libewf|libfuse3"'

# a disk: an MBR partition at 1 MiB holding the sample
truncate -s 1M "$W/disk.img" && cat "$W/sample.img" >>"$W/disk.img" &&
	echo 'start=2048, type=83' | sfdisk -q "$W/disk.img" >/dev/null 2>&1 ||
	give_up "sfdisk"
loaded disk -- "$E4DUMP" ls "$W/disk.img"
check "ls of the partitioned disk ($RC) lists what ls of the raw image does" \
	'[ "$RC" = 0 ] && cmp -s "$W/raw.out" "$W/disk.out"'
check "ls of the partitioned disk loads libblkid (its partition's filesystem probed)" \
	'has disk libblkid'
check "ls of the partitioned disk loads no container library" \
	'! has disk "libewf|libqcow|libvhdi|libvmdk|libsmraw|libfuse3"'

# the mount loads libfuse3 before anything else (here it then fails: no
# mountpoint)
loaded mount -- "$E4DUMP" mount "$W/sample.img" "$W/no/such/dir"
check "mount loads libfuse3 (exit $RC)" 'has mount libfuse3'
check "mount loads no container library" '! has mount "libewf|libqcow|libblkid"'

# libraries that cannot be loaded
mkdir -p "$W/empty" "$W/stub"
: >"$W/empty/libewf.so.2"
: >"$W/empty/libfuse3.so.3"
echo 'int e4dump_stub;' >"$W/stub.c"
cc -shared -fPIC -Wl,-soname,libewf.so.2 -o "$W/stub/libewf.so.2" "$W/stub.c" ||
	give_up "cc -shared"
cp "$W/stub/libewf.so.2" "$W/stub/libqcow.so.1"
mkdir -p "$W/stub2" && cp "$W/stub/libewf.so.2" "$W/stub2/libqcow.so.1"
expect "E01 with an empty libewf.so.2 first on the path" 2 \
	'^e4dump: error: .*ev\.E01: cannot open: EWF \(E01/S01\) container: libewf\.so\.2 cannot be loaded: .*\(install the Debian package libewf2\)$' \
	-- env LD_LIBRARY_PATH="$W/empty" "$E4DUMP" ls "$W/ev.E01"
check "one line of error, nothing listed" '[ "$(wc -l <"$W/err")" = 1 ] && [ ! -s "$W/out" ]'
expect "E01 with a libewf.so.2 lacking libewf's functions" 2 \
	'libewf\.so\.2 has no function libewf_[a-z_]+: .*\(install the Debian package libewf2\)$' \
	-- env LD_LIBRARY_PATH="$W/stub" "$E4DUMP" ls "$W/ev.E01"
expect "qcow2 with a libqcow.so.1 lacking libqcow's functions" 2 \
	'QCOW container: libqcow\.so\.1 has no function libqcow_[a-z_]+: .*\(install the Debian package libqcow1\)$' \
	-- env LD_LIBRARY_PATH="$W/stub" "$E4DUMP" ls "$W/q.qcow2"
expect "the raw image reads with the broken libraries first on the path" 0 '' \
	-- env LD_LIBRARY_PATH="$W/stub:$W/empty" "$E4DUMP" ls "$W/sample.img"
check "... and lists what it did" 'cmp -s "$W/raw.out" "$W/out"'
expect "the E01 still reads with only libqcow broken" 0 '' \
	-- env LD_LIBRARY_PATH="$W/stub2" "$E4DUMP" ls "$W/ev.E01"
mkdir -p "$W/mnt"
expect "mount with an empty libfuse3.so.3 first on the path" 2 \
	'^e4dump: error: mount: libfuse3\.so\.3 cannot be loaded: .*\(install the Debian package libfuse3-3\)$' \
	-- env LD_LIBRARY_PATH="$W/empty" "$E4DUMP" mount "$W/sample.img" "$W/mnt"
check "the mount is not mounted" '! mountpoint -q "$W/mnt"'
finish
