#!/bin/bash
# The README's first command as a newcomer meets it: scripts/demo.sh on a
# copy of the tree, as a user who is not root (nobody, when this runs as
# root), with the packages present.  It installs nothing more, builds the
# tool into build/bin, leaves the sample at build/sample.img, decrypts it
# and prints the next commands to try.
# usage: demo_user.sh WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
workdir "$1"
bash "$top/scripts/install-deps.sh" --tool >/dev/null 2>&1 ||
	give_up "the tool's packages are not installed (scripts/install-deps.sh --tool)"
mkdir -p "$W/tree"
tar -C "$top" --exclude=./.git --exclude='./build*' --exclude=./fuzz/corpus \
	--exclude=./fuzz/findings -cf - . | tar -C "$W/tree" -xf - || give_up "copy of the tree"
run=(bash scripts/demo.sh)
if [ "$(id -u)" = 0 ]; then
	chown -R nobody "$W/tree" && chmod 755 "$W"
	run=(runuser -u nobody -- env HOME="$W" bash scripts/demo.sh)
fi
(cd "$W/tree" && "${run[@]}") >"$W/out" 2>"$W/err"
rc=$?
check "demo.sh as $( [ "$(id -u)" = 0 ] && echo nobody || id -un): exit 0 ($rc; $(tail -2 "$W/err"))" '[ $rc = 0 ]'
check "it installed nothing (the installer's only message is a list of missing packages)" '! grep -q "installing" "$W/err"'
check "the tool is in build/bin" '[ -x "$W/tree/build/bin/e4dump" ]'
check "the sample is at build/sample.img" '[ -s "$W/tree/build/sample.img" ]'
check "the sample decrypted: the secret tree listed" 'grep -q "secret/hello.txt" "$W/out"'
check "the next commands are printed" 'grep -q "^== next, try:" "$W/out" && grep -q "e4dump stat" "$W/out"'
finish
