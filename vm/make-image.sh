#!/bin/bash
# Make an fscrypt-encrypted ext4 image with the real Linux 6.1 kernel in QEMU.
# See vm/README.md.
#
# Usage: vm/make-image.sh [options] SCENARIO OUT_IMAGE [MANIFEST_OUT]
#
#   SCENARIO      scenario file (vm/scenarios/*.scn)
#   OUT_IMAGE     ext4 image to create (overwritten)
#   MANIFEST_OUT  manifest written by the guest (default OUT_IMAGE.manifest)
#
# Also writes OUT_IMAGE.console.log (guest console) and the raw master keys of
# the scenario's `key` lines as KEYS_DIR/<deschex>.key (default KEYS_DIR:
# "keys" next to OUT_IMAGE) and of its `key2` lines (v2 keys) as
# KEYS_DIR/<identifierhex>.key, the identifier being the one the kernel
# returned (the manifest's `key2` records, in the order of the lines).
#
# Options (a flag beats the environment variable, which beats an `@size` /
# `@mkfs` line of the scenario, which beats the default):
#   --size SIZE        image size for mkfs           E4DUMP_IMAGE_SIZE  (64M)
#   --mkfs-opts OPTS   mkfs.ext4 options             E4DUMP_MKFS_OPTS
#                      (default: -O encrypt -b 4096 -N 8192)
#   --keys-dir DIR     where to write <deschex>.key
#   --timeout SEC      QEMU wall-clock limit         E4DUMP_QEMU_TIMEOUT (300)
#   --kernel BZIMAGE   kernel to boot                E4DUMP_BZIMAGE
#                      (default: built/cached by vm/build-kernel.sh)
#   --no-fsck          skip the final `e2fsck -fn` of the image
#   --from-image SRC   start from a copy of the image SRC instead of mkfs
#                      (to run a scenario on what an earlier run wrote)
#   --cache            reuse what an earlier run of the same scenario (same
#                      guest, kernel, initramfs and this script) wrote, from
#                      $E4DUMP_CACHE/images/<key>/; else run it and keep it
#                      there (for scenarios whose run is slow or random)
#   E4DUMP_CACHE       cache root (default /var/cache/e4dump)
#
# Scenarios with `secret` lines: the secrets' bytes go to SECRETS_DIR/NAME
# ("secrets" next to OUT_IMAGE).  `@disk2 SIZE`: a second ext4 image,
# OUT_IMAGE.disk2.img, is the guest's /dev/vdc.  `@fscrypt-tool`: the kernel
# of `build-kernel.sh --fscrypt-tool` and an initramfs holding Debian's
# `fscrypt` (vm/fscrypt-tool-root.sh).  A scenario ending with `capture`:
# the guest (-m E4DUMP_CAPTURE_MEM MiB, default 256) waits with its keys
# added, the host saves its RAM through QMP into OUT_IMAGE.capture.elf (ELF
# core), .raw (pmemsave from 0) and .lime (from the ELF), writes the
# capture manifest OUT_IMAGE.capture.keys (vm/capture.py) and quits QEMU.
#
# Exit status 0 only if the guest printed E4DUMP-GUEST-OK, QEMU exited by
# itself (or, with `capture`, on the host's quit) in time, a complete
# manifest was read back and e2fsck is happy.
set -euo pipefail

die() { echo "make-image: error: $*" >&2; exit 1; }
msg() { echo "make-image: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${E4DUMP_CACHE:-/var/cache/e4dump}

opt_size=${E4DUMP_IMAGE_SIZE:-}
opt_mkfs=${E4DUMP_MKFS_OPTS:-}
opt_keys=
opt_timeout=${E4DUMP_QEMU_TIMEOUT:-300}
opt_kernel=${E4DUMP_BZIMAGE:-}
opt_fsck=1
opt_from=
opt_cache=0
args=()
while [ $# -gt 0 ]; do
	case "$1" in
		--size) opt_size=$2; shift 2 ;;
		--mkfs-opts) opt_mkfs=$2; shift 2 ;;
		--keys-dir) opt_keys=$2; shift 2 ;;
		--timeout) opt_timeout=$2; shift 2 ;;
		--kernel) opt_kernel=$2; shift 2 ;;
		--no-fsck) opt_fsck=0; shift ;;
		--from-image) opt_from=$2; shift 2 ;;
		--cache) opt_cache=1; shift ;;
		-h|--help) sed -n '2,47p' "$0"; exit 0 ;;
		--) shift; args+=("$@"); break ;;
		-*) die "unknown option $1" ;;
		*) args+=("$1"); shift ;;
	esac
done
[ ${#args[@]} -ge 2 ] && [ ${#args[@]} -le 3 ] ||
	die "usage: $0 [options] SCENARIO OUT_IMAGE [MANIFEST_OUT] (see --help)"
scenario=${args[0]}
image=${args[1]}
manifest=${args[2]:-$image.manifest}
consolelog=$image.console.log
keysdir=${opt_keys:-$(dirname "$image")/keys}
secretsdir=$(dirname "$image")/secrets
disk2=$image.disk2.img

for t in qemu-system-x86_64 mkfs.ext4 e2fsck cpio gcc python3 timeout flock sha256sum truncate; do
	command -v "$t" >/dev/null 2>&1 ||
		die "'$t' not found (run scripts/install-deps.sh as root)"
done
[ -r "$scenario" ] || die "cannot read scenario $scenario"
scen_bytes=$(stat -c %s "$scenario")
[ "$scen_bytes" -lt 65536 ] || die "scenario is $scen_bytes bytes (max 65535)"
grep -q $'\r' "$scenario" && die "scenario has CR characters"

# ---- host directives of the scenario (@size, @mkfs) ---------------------------
scen_size=$(sed -n 's/^@size[[:space:]]\{1,\}//p' "$scenario" | tail -n1)
scen_mkfs=$(sed -n 's/^@mkfs[[:space:]]\{1,\}//p' "$scenario" | tail -n1)
# "@append WORDS": more kernel command line (e.g. fips=1)
scen_append=$(sed -n 's/^@append[[:space:]]\{1,\}//p' "$scenario" | tail -n1)
case "$scen_append" in
	*[!A-Za-z0-9=._,\ -]*) die "@append: only [A-Za-z0-9=._, -] allowed" ;;
esac
# "@fsck no": e2fsck checks htree hashes with Linux 6.1's rule, which 2015
# format directories (kernel-patches/, fscrypt_2015) do not follow.
if grep -q '^@fsck[[:space:]]\{1,\}no[[:space:]]*$' "$scenario"; then
	opt_fsck=0
fi
# "@fscrypt-tool": the kernel and initramfs that run Debian's fscrypt
fstool=0
grep -q '^@fscrypt-tool[[:space:]]*$' "$scenario" && fstool=1
# "@disk2 SIZE": a second ext4 image (e.g. the root filesystem of fscrypt's
# login protectors), /dev/vdc in the guest
disk2_size=$(sed -n 's/^@disk2[[:space:]]\{1,\}//p' "$scenario" | tail -n1)
case "$disk2_size" in
	''|[0-9]*[0-9KMG]) ;;
	*) die "@disk2: a size such as 16M" ;;
esac
# a scenario whose last command is `capture` (vm/guest/scn_capture.c): the
# guest waits with its keys added and the host saves its RAM (vm/capture.py)
capmode=0
grep -q '^capture[[:space:]]*$' "$scenario" && capmode=1
capmem=${E4DUMP_CAPTURE_MEM:-256}
case "$capmem" in
	[1-9]*[0-9]) ;;
	*) die "E4DUMP_CAPTURE_MEM: MiB, a number" ;;
esac
capture=$image.capture
# the capture's files PREFIX.{elf,raw,lime,keys} copied to DEST.*
copy_capture() {
	local x
	for x in elf raw lime keys; do
		cp --sparse=always "$1.$x" "$2.$x" || return 1
	done
}
size=${opt_size:-${scen_size:-64M}}
mkfs_opts=${opt_mkfs:-${scen_mkfs:--O encrypt -b 4096 -N 8192}}

t0=$(date +%s)

# ---- kernel ---------------------------------------------------------------------
if [ -z "$opt_kernel" ]; then
	kflags=()
	[ $fstool = 0 ] || kflags=(--fscrypt-tool)
	opt_kernel=$("$here/build-kernel.sh" "${kflags[@]+"${kflags[@]}"}" | tail -n1) ||
		die "kernel build failed"
fi
[ -r "$opt_kernel" ] || die "kernel $opt_kernel not readable"

# ---- guest init + initramfs (cached by the sha256 of vm/guest/ and compiler) ---
# /init is every vm/guest/*.c compiled together (guest.h lists them).
cflags="-static -O2 -Wall -Wextra -Werror -std=gnu11"
gsrc=("$here"/guest/*.c)
# With @fscrypt-tool the tree of vm/fscrypt-tool-root.sh is added; its files
# are in the key.
extra=
if [ $fstool = 1 ]; then
	extra=$(mktemp -d "${TMPDIR:-/tmp}/e4dump-vm-root.XXXXXX")
	trap 'rm -rf "$extra"' EXIT
	bash "$here/fscrypt-tool-root.sh" "$extra" || die "vm/fscrypt-tool-root.sh failed"
fi
gkey=$( { (cd "$here/guest" && LC_ALL=C sha256sum -- *.c *.h);
	  gcc --version | head -n1; echo "$cflags";
	  cpio --version | head -n1; echo initramfs-1;
	  [ -z "$extra" ] || (cd "$extra" && find . -print0 | LC_ALL=C sort -z |
		xargs -0 stat -c '%n %a %F' && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 sha256sum); } | sha256sum | cut -c1-16)
gdir=$cache/guest/$gkey
initramfs=$gdir/initramfs.cpio
if [ ! -f "$gdir/.done" ]; then
	mkdir -p "$cache/guest"
	exec 8>"$cache/guest/.lock"
	flock 8
	if [ ! -f "$gdir/.done" ]; then
		msg "building guest init ($gkey)"
		rm -rf "$gdir"
		mkdir -p "$gdir/root/dev" "$gdir/root/proc" "$gdir/root/mnt"
		# shellcheck disable=SC2086
		gcc $cflags -o "$gdir/root/init" "${gsrc[@]}" ||
			die "compiling vm/guest/*.c failed"
		chmod 0755 "$gdir/root/init"
		[ -z "$extra" ] || cp -a "$extra/." "$gdir/root/" || die "copying the tool's files"
		(cd "$gdir/root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
			cpio --null -o -H newc -R 0:0 --reproducible --quiet) >"$initramfs.tmp" ||
			die "cpio failed"
		mv "$initramfs.tmp" "$initramfs"
		touch "$gdir/.done"
	fi
	exec 8>&-
fi

# ---- the cache of finished runs (--cache) ---------------------------------------------
# key: the scenario, the kernel and initramfs (their bytes), this script, the
# mkfs options and mkfs.ext4's version
ikey=
if [ $opt_cache = 1 ]; then
	[ -z "$opt_from" ] || die "--cache and --from-image do not go together"
	ikey=$( { echo image-cache-1; sha256sum <"$scenario"; sha256sum <"$opt_kernel";
		  sha256sum <"$initramfs"; sha256sum <"$0"; echo "$size|$mkfs_opts|$opt_fsck";
		  [ $capmode = 0 ] || { echo "capture $capmem"; sha256sum <"$here/capture.py"; };
		  mkfs.ext4 -V 2>&1 | sed -n 1p; } | sha256sum | cut -c1-16)
	idir=$cache/images/$ikey
	if [ -f "$idir/.done" ]; then
		mkdir -p "$(dirname "$image")" "$(dirname "$manifest")" "$keysdir" "$secretsdir"
		rm -f "$image" "$manifest" "$consolelog" "$disk2" "$capture".*
		cp --sparse=always "$idir/image.img" "$image" &&
			{ [ $capmode = 0 ] || copy_capture "$idir/capture" "$capture"; } &&
			cp "$idir/manifest" "$manifest" && cp "$idir/console.log" "$consolelog" &&
			{ [ ! -f "$idir/disk2.img" ] || cp --sparse=always "$idir/disk2.img" "$disk2"; } &&
			{ [ -z "$(ls -A "$idir/keys")" ] || cp "$idir/keys/"* "$keysdir/"; } &&
			{ [ -z "$(ls -A "$idir/secrets")" ] || cp "$idir/secrets/"* "$secretsdir/"; } ||
			die "cannot copy the cached run $idir"
		touch "$idir/.done"
		msg "OK (cached, $idir): $image"
		echo "$image"
		exit 0
	fi
fi

# ---- work area ---------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/e4dump-vm.XXXXXX")
trap 'rm -rf "$work" ${extra:+"$extra"}' EXIT
scendisk=$work/scenario.disk
truncate -s "${E4DUMP_SCEN_DISK_SIZE:-16M}" "$scendisk"
# the text at offset 0; the rest of the (sparse) file is zeros, hence the NUL
dd if="$scenario" of="$scendisk" conv=notrunc status=none

# ---- keys ---------------------------------------------------------------------------
mkdir -p "$keysdir"
python3 - "$scenario" "$keysdir" <<'EOF' || die "bad key line in $scenario"
import sys, os
scen, keysdir = sys.argv[1], sys.argv[2]
seen = {}
for no, line in enumerate(open(scen, encoding="utf-8"), 1):
    w = line.split()
    if not w or w[0] != "key":
        continue
    if len(w) != 4:
        sys.exit(f"{scen}:{no}: usage: key PREFIX DESCHEX KEYHEX")
    desc, key = w[2].lower(), bytes.fromhex(w[3])
    if len(desc) != 16:
        sys.exit(f"{scen}:{no}: descriptor must be 16 hex digits")
    bytes.fromhex(desc)
    if seen.get(desc, key) != key:
        sys.exit(f"{scen}:{no}: descriptor {desc} used with two different keys")
    seen[desc] = key
    with open(os.path.join(keysdir, desc + ".key"), "wb") as f:
        f.write(key)
for no, line in enumerate(open(scen, encoding="utf-8"), 1):
    w = line.split()
    if w and w[0] == "key2" and (len(w) != 2 or not 16 <= len(bytes.fromhex(w[1])) <= 64):
        sys.exit(f"{scen}:{no}: usage: key2 KEYHEX (16..64 bytes)")
EOF
# `secret NAME text:ESCAPED|hex:HEX` (vm/guest/scn_tool.c): the same bytes
# as the guest's /secrets/NAME, to SECRETS_DIR/NAME
if grep -q '^secret[[:space:]]' "$scenario"; then
	mkdir -p "$secretsdir"
	python3 - "$scenario" "$secretsdir" <<'EOF' || die "bad secret line in $scenario"
import sys, os, re
scen, sdir = sys.argv[1], sys.argv[2]
for no, line in enumerate(open(scen, encoding="utf-8"), 1):
    w = line.split()
    if not w or w[0] != "secret":
        continue
    if len(w) != 3 or not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}", w[1]):
        sys.exit(f"{scen}:{no}: usage: secret NAME text:ESCAPED|hex:HEX")
    kind, _, val = w[2].partition(":")
    if kind == "hex":
        data = bytes.fromhex(val)
    elif kind == "text":
        data = re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                      val.encode())
    else:
        sys.exit(f"{scen}:{no}: text:ESCAPED or hex:HEX")
    with open(os.path.join(sdir, w[1]), "wb") as f:
        f.write(data)
EOF
fi

# ---- the ext4 image -------------------------------------------------------------------
mkdir -p "$(dirname "$image")" "$(dirname "$manifest")"
rm -f "$image" "$manifest" "$consolelog" "$capture".*
if [ -n "$opt_from" ]; then
	[ -r "$opt_from" ] || die "cannot read $opt_from"
	msg "copying $opt_from"
	cp --sparse=always "$opt_from" "$image" || die "cannot copy $opt_from"
else
	msg "mkfs.ext4 -q -F $mkfs_opts $image $size"
	# shellcheck disable=SC2086
	mkfs.ext4 -q -F $mkfs_opts "$image" "$size" >"$work/mkfs.log" 2>&1 || {
		cat "$work/mkfs.log" >&2; die "mkfs.ext4 failed"; }
fi
drive2=()
rm -f "$disk2"
if [ -n "$disk2_size" ]; then
	mkfs.ext4 -q -F "$disk2" "$disk2_size" >"$work/mkfs2.log" 2>&1 || {
		cat "$work/mkfs2.log" >&2; die "mkfs.ext4 of the second disk failed"; }
	drive2=(-drive "file=$disk2,format=raw,if=virtio")
fi

# ---- run the guest ----------------------------------------------------------------------
msg "booting $(basename "$opt_kernel") in QEMU (TCG, timeout ${opt_timeout}s)"
t1=$(date +%s)
rc=0
mem=512 monitor=()
if [ $capmode = 1 ]; then
	mem=$capmem
	monitor=(-qmp "unix:$work/qmp.sock,server=on,wait=off")
fi
timeout -k 10 "$opt_timeout" qemu-system-x86_64 \
	-accel tcg -cpu max -m "$mem" -smp 1 \
	-nodefaults -display none -monitor none -serial "file:$consolelog" -no-reboot \
	"${monitor[@]+"${monitor[@]}"}" \
	-kernel "$opt_kernel" -initrd "$initramfs" \
	-append "console=ttyS0 panic=-1 rdinit=/init quiet no_timer_check${scen_append:+ $scen_append}" \
	-drive "file=$image,format=raw,if=virtio" \
	-drive "file=$scendisk,format=raw,if=virtio" \
	"${drive2[@]+"${drive2[@]}"}" \
	</dev/null >"$work/qemu.out" 2>&1 &
qpid=$!
caprc=0
if [ $capmode = 1 ]; then
	# the guest prints E4DUMP-GUEST-CAPTURE-READY and waits: its RAM as an
	# ELF core and raw, then QEMU is told to quit
	python3 "$here/capture.py" monitor "$work/qmp.sock" "$consolelog" "$qpid" \
		$((mem * 1048576)) "$capture.elf" "$capture.raw" "$opt_timeout" || caprc=$?
	[ $caprc = 0 ] || kill "$qpid" 2>/dev/null || true
fi
wait "$qpid" || rc=$?
t2=$(date +%s)

failed() {
	msg "FAILED: $*"
	if [ -s "$work/qemu.out" ]; then
		msg "---- qemu output ----"; tail -n 20 "$work/qemu.out" >&2
	fi
	msg "---- last lines of the console log ($consolelog) ----"
	tail -n 30 "$consolelog" 2>/dev/null | tr -d '\r' >&2 || true
	exit 1
}
[ -f "$consolelog" ] || failed "no console log (QEMU exit status $rc)"
if grep -a -q "E4DUMP-GUEST-FAIL" "$consolelog"; then
	failed "guest reported: $(grep -a -m1 -o 'E4DUMP-GUEST-FAIL.*' "$consolelog" | tr -d '\r')"
fi
[ $rc -ne 124 ] && [ $rc -ne 137 ] || failed "QEMU timed out after ${opt_timeout}s"
[ $rc -eq 0 ] || failed "QEMU exited with status $rc"
grep -a -q "^E4DUMP-GUEST-OK" "$consolelog" || failed "guest did not report E4DUMP-GUEST-OK"
[ $caprc = 0 ] || failed "the RAM capture failed"

# ---- manifest ------------------------------------------------------------------------------
python3 - "$scendisk" "$manifest" <<'EOF' || failed "bad manifest on the scenario disk"
import sys
data = open(sys.argv[1], "rb").read()[65536:]
end = data.find(b"\0")
if end < 0:
    sys.exit("manifest is not NUL-terminated")
text = data[:end]
lines = text.decode("ascii").splitlines()
if not lines or lines[0] != "# e4dump-manifest 1":
    sys.exit("manifest header missing")
n = sum(1 for l in lines if l[:2] in ("f ", "d ", "l ", "h ", "s "))
if lines[-1] != f"end {n}":
    sys.exit(f"manifest trailer {lines[-1]!r} does not match {n} entries")
open(sys.argv[2], "wb").write(text)
EOF

# ---- v2 keys: KEYS_DIR/<identifier>.key ---------------------------------------------------
# The n-th `key2` line of the scenario gave the n-th `key2 IDHEX NBYTES` record
# of the manifest; the identifier is also recomputed here (HKDF-SHA512, as
# fs/crypto/keyring.c) as a check.
python3 - "$scenario" "$manifest" "$keysdir" <<'EOF' || failed "v2 key identifiers"
import sys, os, hmac, hashlib
scen, man, keysdir = sys.argv[1:]
keys = [bytes.fromhex(l.split()[1]) for l in open(scen, encoding="utf-8")
        if l.split()[:1] == ["key2"]]
ids = [l.split()[1:] for l in open(man, encoding="ascii") if l.startswith("key2 ")]
if len(keys) != len(ids):
    sys.exit(f"{len(keys)} key2 lines in the scenario, {len(ids)} in the manifest")
for key, (ident, nbytes) in zip(keys, ids):
    prk = hmac.new(bytes(64), key, hashlib.sha512).digest()
    want = hmac.new(prk, b"fscrypt\0\x01\x01", hashlib.sha512).digest()[:16].hex()
    if ident != want or int(nbytes) != len(key):
        sys.exit(f"kernel's identifier {ident} ({nbytes} bytes) != HKDF {want} ({len(key)})")
    with open(os.path.join(keysdir, ident + ".key"), "wb") as f:
        f.write(key)
EOF

if [ $capmode = 1 ]; then
	python3 "$here/capture.py" lime "$capture.elf" "$capture.lime" ||
		failed "LiME file from $capture.elf"
	python3 "$here/capture.py" keys "$scenario" "$manifest" $((mem * 1048576)) "$capture.keys" "$keysdir" ||
		failed "capture manifest $capture.keys"
fi

if [ $opt_fsck = 1 ]; then
	e2fsck -fn "$image" >"$work/fsck.log" 2>&1 || {
		cat "$work/fsck.log" >&2; failed "e2fsck -fn found problems in $image"; }
	if [ -n "$disk2_size" ]; then
		e2fsck -fn "$disk2" >"$work/fsck2.log" 2>&1 || {
			cat "$work/fsck2.log" >&2; failed "e2fsck -fn found problems in $disk2"; }
	fi
fi

if [ -n "$ikey" ]; then
	rm -rf "$idir" "$idir.tmp"
	mkdir -p "$idir.tmp/keys" "$idir.tmp/secrets"
	cp --sparse=always "$image" "$idir.tmp/image.img" &&
		cp "$manifest" "$idir.tmp/manifest" && cp "$consolelog" "$idir.tmp/console.log" &&
		{ [ -z "$disk2_size" ] || cp --sparse=always "$disk2" "$idir.tmp/disk2.img"; } &&
		{ [ $capmode = 0 ] || copy_capture "$capture" "$idir.tmp/capture"; } &&
		{ [ -z "$(ls -A "$keysdir")" ] || cp "$keysdir"/* "$idir.tmp/keys/"; } &&
		{ [ ! -d "$secretsdir" ] || [ -z "$(ls -A "$secretsdir")" ] ||
		  cp "$secretsdir"/* "$idir.tmp/secrets/"; } &&
		touch "$idir.tmp/.done" && mv "$idir.tmp" "$idir" ||
		failed "cannot store the run in $idir"
	# the newest few stay (E4DUMP_IMAGE_KEEP, default 8)
	ls -1td "$cache/images"/*/ 2>/dev/null | tail -n +$((${E4DUMP_IMAGE_KEEP:-8} + 1)) |
		while read -r old; do [ "${old%/}" != "$idir" ] && rm -rf "$old"; done
fi

msg "OK: $image ($(grep -c '^[fdlhs] ' "$manifest") entries; QEMU $((t2 - t1)) s, total $((t2 - t0)) s)"
msg "manifest: $manifest; keys: $keysdir; console: $consolelog"
echo "$image"
