#!/bin/bash
# --help, every command's --help, the man page and the README against the
# command table: every command and every option is documented in each, and
# every policy version, mode and flag Linux 6.1 defines (linux/fscrypt.h,
# listed here) is named in --help and the man page.
# usage: docs.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
MAN=$top/e4dump/e4dump.1
README=$top/README.md
must_run "--help" "$W/help" -- "$E4DUMP" --help || finish
cmds=$(sed -n 's/^  e4dump \([a-z]*\) .*/\1/p; s/^  e4dump \([a-z]*\)$/\1/p' "$W/help" | sort -u)
check "--help lists commands ($(echo $cmds))" '[ "$(echo "$cmds" | wc -l)" -ge 10 ]'
# the man page's COMMANDS section and SYNOPSIS
sed -n '/^\.SH COMMANDS/,/^\.SH OPTIONS/p' "$MAN" >"$W/man.cmds"
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$MAN" >"$W/man.syn"
for c in $cmds; do
	check "man COMMANDS: $c" 'grep -qx "\.B $c" "$W/man.cmds"'
	check "man SYNOPSIS: $c" 'grep -Eq "^\.B (e4dump )?$c( |$)" "$W/man.syn"'
	check "README: e4dump $c" 'grep -q "e4dump $c" "$README"'
	"$E4DUMP" "$c" --help >"$W/h.$c" 2>&1
	check "$c --help: exit 0" '[ $? = 0 ] && grep -q "^usage: e4dump $c" "$W/h.$c"'
done
# every option of the global list, in the man page's OPTIONS
sed -n '/^options (each command/,/^$/p' "$W/help" |
	grep -oE '^  (-[a-zA-Z], )?--?[a-z][a-z0-9-]*' | grep -oE -- '--?[a-z][a-z0-9-]*$' | sort -u >"$W/opts"
sed -n '/^\.SH OPTIONS/,/^\.SH NAME ESCAPING/p' "$MAN" | sed 's/\\-/-/g' >"$W/man.opts"
check "options listed ($(wc -l <"$W/opts"))" '[ "$(wc -l <"$W/opts")" -ge 20 ]'
while read -r o; do
	check "man OPTIONS: $o" 'grep -Eq -- "(^|[ \"])$o( |$|,|\")" "$W/man.opts"'
done <"$W/opts"
# each command's options are among the global ones
for c in $cmds; do
	for o in $(sed -n '/^options:/,$p' "$W/h.$c" | grep -oE '^  (-[a-zA-Z], )?--?[a-z][a-z0-9-]*' | grep -oE -- '--?[a-z][a-z0-9-]*$'); do
		grep -qx -- "$o" "$W/opts" || bad "$c --help: $o not in --help's option list"
	done
done
for w in "v1" "v2" AES-256-XTS AES-128-CBC-ESSIV Adiantum AES-256-CTS AES-128-CTS AES-256-HCTR2 \
	DIRECT_KEY IV_INO_LBLK_64 IV_INO_LBLK_32 PAD_4 PAD_32; do
	check "--help names $w" 'grep -q -- "$w" "$W/help"'
	check "man page names $w" 'sed "s/\\\\-/-/g" "$MAN" | grep -q -- "$w"'
done
finish
