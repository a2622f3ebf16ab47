#!/bin/bash
# kernel-patches/: every patch in the series is in git format-patch form
# with a Signed-off-by, numbered [PATCH i/N] in series order, with a cover
# letter 0000-cover-letter.patch ([PATCH 0/N], no placeholder left), and
# scripts/checkpatch.pl --strict (from the kernel tree vm/build-kernel.sh
# extracted) reports no errors and only the warnings and checks justified in
# kernel-patches/README.md: "Unknown commit id" for the 2015 commits the
# messages cite (absent from a tree made from the tarball) and CamelCase for
# ext4's existing Opt_* names.
# usage: checkpatch.sh
set -u
. "$(dirname "$0")/../lib/common.sh"
bash "$top/vm/build-kernel.sh" >/dev/null 2>&1 || give_up "kernel build failed"
cache=${E4DUMP_CACHE:-/var/cache/e4dump}
src=$(ls -dt "$cache"/kernel/src-*[0-9a-f] 2>/dev/null | head -1)
[ -x "$src/scripts/checkpatch.pl" ] || give_up "no kernel tree in $cache"
allowed='^(WARNING: Unknown commit id|CHECK: Avoid CamelCase: <Opt_)'
total=$(grep -cv '^\(#.*\)\?$' "$top/kernel-patches/series")
cover=$top/kernel-patches/0000-cover-letter.patch
if [ -f "$cover" ] && grep -q "^Subject: \[PATCH 0/$total\] " "$cover" &&
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$cover"; then
	ok
else
	bad "cover letter $cover missing, not [PATCH 0/$total] or with a placeholder"
fi
n=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	f=$top/kernel-patches/$p
	n=$((n + 1))
	head -1 "$f" | grep -q '^From [0-9a-f]\{40\} ' && grep -q "^Subject: \[PATCH $n/$total\] " "$f" &&
		grep -q '^Signed-off-by: ' "$f" && ok || bad "$p: not git format-patch output with a Signed-off-by"
	out=$(cd "$src" && perl scripts/checkpatch.pl --strict --no-tree --no-color "$f" 2>&1)
	errors=$(printf '%s\n' "$out" | sed -n 's/^total: \([0-9]*\) errors.*/\1/p')
	if [ "$errors" = 0 ]; then
		ok
	else
		bad "$p: checkpatch: $(printf '%s\n' "$out" | grep -m3 '^ERROR')"
	fi
	other=$(printf '%s\n' "$out" | grep -E '^(WARNING|CHECK):' | grep -Ev "$allowed")
	[ -z "$other" ] && ok || bad "$p: unjustified: $(printf '%s\n' "$other" | head -3)"
	printf '%s: %s\n' "$p" "$(printf '%s\n' "$out" | grep '^total:')"
done <"$top/kernel-patches/series"
[ $n -gt 0 ] && ok || bad "empty series"
finish
