#!/bin/bash
# Build (or fetch from cache) the Linux 6.1 test kernel used by the QEMU
# cross-check.  See vm/README.md.
#
# Usage: vm/build-kernel.sh [--force] [--stock] [--fscrypt-tool]
#
#   --stock  build the unpatched kernel (no kernel-patches/), e.g. to show
#            what a stock 6.1 does with an image in the 2015 format
#   --fscrypt-tool  merge vm/kernel-fscrypt-tool.config too (what Debian's
#            `fscrypt` needs in the guest); cached apart, as tool-build-<key>,
#            so that the other kernels and their cache entries are untouched
#
#   Prints the absolute path of the bzImage as the LAST line of stdout.
#   Everything else goes to stderr, the full build output to a log file in
#   the cache directory.
#
# Environment:
#   E4DUMP_CACHE           cache root (default /var/cache/e4dump); the kernel
#                          tree lives in $E4DUMP_CACHE/kernel, never in the repo
#   E4DUMP_KERNEL_TARBALL  source tarball (default /usr/src/linux-source-6.1.tar.xz)
#   E4DUMP_JOBS            make -j value (default: nproc)
#   E4DUMP_KERNEL_KEEP     how many old source trees / builds to keep (default 2)
#
# Cache key: tarball (path, size, mtime, Debian package version), the series
# file and every patch it lists (sha256), vm/kernel.config (sha256), the
# compiler version and RECIPE below, with --fscrypt-tool also the second
# fragment (sha256).  A hit prints the path immediately.
set -euo pipefail

RECIPE=e4dump-kernel-recipe-1   # bump when the build procedure changes

die() { echo "build-kernel: error: $*" >&2; exit 1; }
msg() { echo "build-kernel: $*" >&2; }

force=0
stock=0
fstool=0
for arg in "$@"; do
	case "$arg" in
		--force) force=1 ;;
		--stock) stock=1 ;;
		--fscrypt-tool) fstool=1 ;;
		-h|--help) sed -n '2,27p' "$0"; exit 0 ;;
		*) die "unknown argument: $arg" ;;
	esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
tarball=${E4DUMP_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${E4DUMP_JOBS:-$(nproc)}
keep=${E4DUMP_KERNEL_KEEP:-2}
fragment=$repo/vm/kernel.config
toolfrag=$repo/vm/kernel-fscrypt-tool.config
series=$repo/kernel-patches/series
cc=${CC:-gcc}

for t in tar xz make "$cc" flex bison bc sha256sum flock patch perl; do
	command -v "$t" >/dev/null 2>&1 ||
		die "'$t' not found (run scripts/install-deps.sh as root)"
done
[ -r "$tarball" ] || die "kernel source tarball $tarball not readable (apt-get install linux-source-6.1)"
[ -r "$fragment" ] || die "missing $fragment"
frags=("$fragment")
if [ $fstool = 1 ]; then
	[ -r "$toolfrag" ] || die "missing $toolfrag"
	frags+=("$toolfrag")
fi
[ -r "$series" ] || die "missing $series"

case "$cache" in
	"$repo"|"$repo"/*) die "E4DUMP_CACHE must be outside the repository ($cache)" ;;
esac

sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---- patches listed in the series file --------------------------------------
# Lines: patch file name (relative to kernel-patches/, else to the repo root);
# blank lines and lines starting with '#' are ignored; anything after the
# first whitespace on a line is ignored (quilt style, e.g. "-p1").
patches=()
while IFS= read -r line || [ -n "$line" ]; do
	line=${line%%#*}
	read -r name _ <<<"$line" || true
	[ -n "${name:-}" ] || continue
	if [ -f "$repo/kernel-patches/$name" ]; then
		patches+=("$repo/kernel-patches/$name")
	elif [ -f "$repo/$name" ]; then
		patches+=("$repo/$name")
	else
		die "patch '$name' listed in kernel-patches/series not found"
	fi
done <"$series"
[ $stock = 0 ] || patches=()

# ---- cache keys -------------------------------------------------------------
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
tarinfo="$(readlink -f "$tarball") $(stat -c '%s %Y' "$tarball") $pkgver"
srcdesc="$RECIPE
tarball $tarinfo"
[ $stock = 1 ] && srcdesc+="
stock" || srcdesc+="
series $(sha "$series")"
for p in "${patches[@]+"${patches[@]}"}"; do
	srcdesc+="
patch ${p#"$repo"/} $(sha "$p")"
done
srckey=$(printf '%s\n' "$srcdesc" | sha256sum | cut -c1-16)
ccver=$("$cc" --version | head -n1)
fulldesc="$srcdesc
config $(sha "$fragment")
cc $ccver"
# (the default kernel's key is computed as before this option existed)
[ $fstool = 0 ] || fulldesc+="
fscrypt-tool $(sha "$toolfrag")"
key=$(printf '%s\n' "$fulldesc" | sha256sum | cut -c1-16)

kdir=$cache/kernel
src=$kdir/src-$srckey
# The fscrypt-tool kernels have a prefix of their own: neither the prune
# below nor an older copy of this script (pattern build-*) removes one kind
# for the other.
bprefix=build
[ $fstool = 0 ] || bprefix=tool-build
bld=$kdir/$bprefix-$key
image=$bld/bzImage

# Fast path: finished builds are immutable.
if [ $force = 0 ] && [ -f "$bld/.done" ] && [ -f "$image" ]; then
	msg "cache hit ($key)"
	echo "$image"
	exit 0
fi

mkdir -p "$kdir" || die "cannot create $kdir"
exec 9>"$kdir/.lock"
if ! flock -n 9; then
	msg "waiting for the kernel cache lock ($kdir/.lock)"
	flock 9
fi

if [ $force = 0 ] && [ -f "$bld/.done" ] && [ -f "$image" ]; then
	msg "cache hit ($key) after waiting"
	echo "$image"
	exit 0
fi

# Leftovers of interrupted or failed runs (nobody else is building: we hold
# the lock).  Their logs (build-*.log) are kept.
for d in "$kdir"/src-*.tmp "$kdir"/build-* "$kdir"/tool-build-*; do
	[ -d "$d" ] && [ ! -f "$d/.done" ] && [ ! -f "$d/.e4dump-ready" ] && rm -rf "$d"
done

log=$kdir/$bprefix-$key.log
: >"$log"
fail() {
	msg "FAILED: $*"
	msg "---- last lines of $log ----"
	tail -n 40 "$log" >&2
	exit 1
}
start=$(date +%s)

# ---- source tree (extracted + patched), shared by all configs ---------------
if [ $force = 1 ] || [ ! -f "$src/.e4dump-ready" ]; then
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	msg "extracting $tarball -> $src (about a minute)"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1 >>"$log" 2>&1 ||
		fail "extracting $tarball"
	for p in "${patches[@]+"${patches[@]}"}"; do
		msg "applying ${p#"$repo"/}"
		echo "== patch $p" >>"$log"
		patch -d "$src.tmp" -p1 --batch --forward -i "$p" >>"$log" 2>&1 ||
			fail "patch ${p#"$repo"/} does not apply"
	done
	printf '%s\n' "$srcdesc" >"$src.tmp/.e4dump-ready"
	mv "$src.tmp" "$src"
fi

# ---- configure ----------------------------------------------------------------
rm -rf "$bld"
mkdir -p "$bld"
export KBUILD_BUILD_USER=e4dump KBUILD_BUILD_HOST=e4dump
export KBUILD_BUILD_TIMESTAMP="1970-01-01 00:00:00 UTC" KBUILD_BUILD_VERSION=1
mk() { make -C "$src" O="$bld" ARCH=x86_64 CC="$cc" "$@" >>"$log" 2>&1; }

msg "configuring ($key): tinyconfig + ${frags[*]#"$repo"/}"
mk tinyconfig || fail "make tinyconfig"
(cd "$bld" && "$src/scripts/kconfig/merge_config.sh" -m -O "$bld" "$bld/.config" "${frags[@]}") \
	>>"$log" 2>&1 || fail "merge_config.sh"
mk olddefconfig || fail "make olddefconfig"

# Every CONFIG_X=value line of the fragment must be in .config verbatim, and
# every "# CONFIG_X is not set" must not be enabled.
missing=()
while IFS= read -r line; do
	case "$line" in
		CONFIG_*=*)
			grep -qxF -- "$line" "$bld/.config" || {
				have=$(grep -E "^(# )?${line%%=*}[= ]" "$bld/.config" || echo "absent")
				missing+=("$line (got: $have)")
			} ;;
		"# CONFIG_"*" is not set")
			sym=${line#"# "}; sym=${sym%% *}
			! grep -qE "^$sym=" "$bld/.config" || missing+=("$line") ;;
	esac
done < <(cat "${frags[@]}")
if [ ${#missing[@]} -gt 0 ]; then
	msg "FATAL: required kernel options did not survive olddefconfig"
	msg "(probably an unmet dependency; add it to vm/kernel.config):"
	for m in "${missing[@]}"; do echo "    $m" >&2; done
	exit 1
fi
cp "$bld/.config" "$bld/config.final"

# ---- build ----------------------------------------------------------------------
msg "building bzImage with make -j$jobs (several minutes; log: $log)"
mk -j"$jobs" bzImage || fail "make bzImage"
cp "$bld/arch/x86/boot/bzImage" "$image.tmp"
mv "$image.tmp" "$image"
printf '%s\n' "$fulldesc" >"$bld/.done"
cp "$log" "$bld/build.log"
msg "built in $(( $(date +%s) - start )) s: $image"

# ---- prune old trees (keep the newest $keep of each kind) ---------------------
prune() {
	local pat=$1 cur=$2 d n=0
	# shellcheck disable=SC2012
	for d in $(ls -1dt "$kdir"/$pat 2>/dev/null); do
		[ "$d" = "$cur" ] && continue
		n=$((n + 1))
		if [ $n -ge "$keep" ]; then
			msg "pruning old $d"
			rm -rf "$d" "$d.log"
		fi
	done
}
prune 'src-*[0-9a-f]' "$src"
prune "$bprefix-*[0-9a-f]" "$bld"

echo "$image"
