#!/bin/bash
# extract's and verify's progress line: on a terminal (script(1) gives it a pseudo-
# terminal) a last line with the entries and bytes done; nothing when
# standard error is a pipe or with --quiet.
# usage: progress.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
command -v script >/dev/null || give_up "script (bsdutils) not installed"
script -q -c "'$E4DUMP' extract --key-file '$K' '$W/s.img' -o '$W/x1'" /dev/null >"$W/tty" 2>&1
nf=$(find "$W/x1" -mindepth 1 | wc -l)   # what the extraction made
check "on a terminal: the last line counts the entries extracted ($(tr '\r' '\n' <"$W/tty" | grep -a done | head -1))" \
	'tr "\r" "\n" <"$W/tty" | grep -aqE "^e4dump: done extracting $nf entries, [0-9.]+ MiB, [0-9.]+ MiB/s, [0-9.]+ s"'
"$E4DUMP" extract --key-file "$K" "$W/s.img" -o "$W/x2" 2>"$W/pipe"
check "to a pipe: no progress" '! grep -q extracting "$W/pipe"'
script -q -c "'$E4DUMP' extract --quiet --key-file '$K' '$W/s.img' -o '$W/x3'" /dev/null >"$W/quiet" 2>&1
check "--quiet on a terminal: no progress" '! grep -aq extracting "$W/quiet"'
# verify: the same, counting the entries its summary counts
script -q -c "'$E4DUMP' verify --key-file '$K' '$W/s.img'" /dev/null >"$W/vtty" 2>&1
ne=$(tr '\r' '\n' <"$W/vtty" | sed -n 's/.*findings ([0-9]* inodes, [0-9]* directories, \([0-9]*\) entries.*/\1/p')
check "verify on a terminal: a last line of $ne entries" \
	'[ -n "$ne" ] && tr "\r" "\n" <"$W/vtty" | grep -aqE "^e4dump: done verifying $ne entries"'
"$E4DUMP" verify --key-file "$K" "$W/s.img" >/dev/null 2>"$W/vpipe"
check "verify to a pipe: no progress" '! grep -q verifying "$W/vpipe"'
script -q -c "'$E4DUMP' verify -q --key-file '$K' '$W/s.img'" /dev/null >"$W/vquiet" 2>&1
check "verify -q on a terminal: no progress" '! grep -aq verifying "$W/vquiet"'
all_right() { local d; for d in x1 x2 x3; do check_extract -q "$S/sample.manifest" "$W/$d" >/dev/null 2>&1 || return 1; done; }
check "the three extractions: the kernel's manifest" all_right
finish
