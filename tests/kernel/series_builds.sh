#!/bin/bash
# Every prefix of kernel-patches/series builds on its own: the unpatched
# tree, then after each patch, make bzImage with the project's config
# (tinyconfig + vm/kernel.config) succeeds without a compiler warning in the
# files the patches touch (fs/crypto, fs/ext4, include/linux/fscrypt.h).
# Builds are incremental in one tree, so the first takes minutes and each
# later one about a minute.  A passing result is remembered under
# $E4DUMP_CACHE keyed by the tarball, the series, the config and the
# compiler, and reused.
# usage: series_builds.sh [--force]
set -u
. "$(dirname "$0")/../lib/common.sh"
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
tarball=${E4DUMP_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${E4DUMP_JOBS:-$(nproc)}

patches=()
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	patches+=("$top/kernel-patches/$p")
done <"$top/kernel-patches/series"
# An empty series would only build the unpatched tree and pass.
[ ${#patches[@]} -gt 0 ] || give_up "empty series"
key=$( { stat -c '%s %Y' "$tarball"; sha256sum "$top/kernel-patches/series" \
	"${patches[@]}" "$top/vm/kernel.config" | cut -d' ' -f1; gcc --version | head -1
	sha256sum <"$0"; } | sha256sum | cut -c1-16)
work=$cache/series-builds
done_file=$work/passed-$key
if [ "${1:-}" != --force ] && [ -f "$done_file" ]; then
	echo "cached result for this series ($key):"
	cat "$done_file"
	ok
	finish
fi
mkdir -p "$work" || { bad "cannot create $work"; finish; }
exec 9>"$work/.lock"
flock 9
src=$work/src bld=$work/build log=$work/build.log
rm -rf "$src" "$bld" && mkdir -p "$src" "$bld"
echo "series_builds: extracting $tarball"
tar -xJf "$tarball" -C "$src" --strip-components=1 || { bad "extracting $tarball"; finish; }
mk() { make -C "$src" O="$bld" ARCH=x86_64 KBUILD_BUILD_TIMESTAMP=0 "$@"; }
{ mk tinyconfig &&
	(cd "$bld" && "$src/scripts/kconfig/merge_config.sh" -m -O "$bld" .config "$top/vm/kernel.config") &&
	mk olddefconfig; } >"$log" 2>&1 || { bad "configuring: $(tail -3 "$log")"; finish; }

summary=
for i in $(seq 0 ${#patches[@]}); do
	if [ "$i" -gt 0 ]; then
		p=${patches[$((i - 1))]}
		name=$(basename "$p")
		patch -d "$src" -p1 --batch --forward -i "$p" >>"$log" 2>&1 || { bad "$name does not apply"; break; }
	else
		name="(unpatched 6.1)"
	fi
	start=$(date +%s)
	out=$work/step-$i.log
	if ! mk -j"$jobs" bzImage >"$out" 2>&1; then
		bad "build after $name fails: $(grep -m3 -E 'error|Error' "$out")"
		break
	fi
	warn=$(grep -E '(fs/crypto|fs/ext4|include/linux/fscrypt\.h)[^:]*:[0-9]+:[0-9]+: warning:' "$out" | head -3)
	if [ -n "$warn" ]; then
		bad "build after $name warns: $warn"
	else
		ok
		line="step $i: $name builds, no warnings ($(( $(date +%s) - start )) s)"
		echo "$line"
		summary+="$line"$'\n'
	fi
done
if [ $fail = 0 ]; then
	printf '%s' "$summary" >"$done_file"
	rm -rf "$src" "$bld"   # about 1.5 GB; the result is what is kept
fi
finish
