#!/bin/bash
# e4dump timeline on the kernel-written sample: a TSK 3.x body file that
# mactime (sleuthkit) reads; every line's fields are what stat gives that
# inode (stat.sh checks stat against debugfs), and mactime dates a file
# as debugfs's raw mtime says.  Without the key, encrypted entries keep
# their no-key names, marked; '|' in a name is escaped.
# usage: timeline.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
command -v mactime >/dev/null || give_up "mactime not installed (sleuthkit)"
must_run "timeline" "$W/body" -- "$E4DUMP" timeline --key-file "$K" "$W/s.img" || finish
"$E4DUMP" ls -R --key-file "$K" "$W/s.img" >"$W/ls" 2>/dev/null
check "one line per entry and the root ($(wc -l <"$W/body"), ls -R $(wc -l <"$W/ls"))" \
	'[ "$(wc -l <"$W/body")" = $(( $(wc -l <"$W/ls") + 1 )) ]'
check "11 fields on every line" '! awk -F"|" "NF != 11" "$W/body" | grep -q .'
# "r/rrw-r--r--" to 0644 (TSK's mode string; s, S, t, T as ls shows them)
octal() {
	local p=${1:3:9} v=0 i c
	for i in 0 1 2 3 4 5 6 7 8; do
		c=${p:i:1}
		case $c in -|S|T) ;; *) v=$(( v | (0400 >> i) )) ;; esac
	done
	case ${p:2:1} in s|S) v=$(( v | 04000 )) ;; esac
	case ${p:5:1} in s|S) v=$(( v | 02000 )) ;; esac
	case ${p:8:1} in t|T) v=$(( v | 01000 )) ;; esac
	printf '%04o' $v
}
sec() { date -u -d "$(sed -n "s/^$1: \(.*\)\..*/\1/p" "$2")" +%s; }
n=0
while IFS='|' read -r md5 name ino mode uid gid size a m c cr; do
	"$E4DUMP" stat --key-file "$K" "$W/s.img" "<$ino>" >"$W/st" 2>/dev/null
	perm=$(sed -n 's/^mode: //p' "$W/st")
	want="$(sed -n 's/^uid: //p' "$W/st")|$(sed -n 's/^gid: //p' "$W/st")|$(sed -n 's/^size: //p' "$W/st")|$(sec atime "$W/st")|$(sec mtime "$W/st")|$(sec ctime "$W/st")|$(sec crtime "$W/st")"
	[ "$md5" = 0 ] && [ "$uid|$gid|$size|$a|$m|$c|$cr" = "$want" ] &&
		[ "$(octal "$mode")" = "$perm" ] || bad "$name (inode $ino): $uid|$gid|$size|$a|$m|$c|$cr, stat: $want"
	n=$((n + 1))
done <"$W/body"
check "every line is what stat says ($n lines)" '[ $n -ge 18 ]'
mactime -b "$W/body" -d -y -z UTC >"$W/mac" 2>"$W/mac.err"
check "mactime reads it ($(wc -l <"$W/mac") lines)" '[ $? = 0 ] && [ "$(wc -l <"$W/mac")" -gt 18 ]'
hino=$(debugfs -R "ls -p /plain" "$W/s.img" 2>/dev/null | awk -F/ '$6 == "hello.txt" {print $2}')
hm=$(debugfs -R "stat <$hino>" "$W/s.img" 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]*\):.*/\1/p')
hdate=$(date -u -d "@$((16#$hm))" +%Y-%m-%dT%H:%M:%SZ)
check "mactime dates /plain/hello.txt's modification as debugfs's mtime ($hdate)" \
	'grep -q "^$hdate,100,m.*,\"/plain/hello.txt\"$" "$W/mac"'
must_run "timeline without the key" "$W/body.nk" -- "$E4DUMP" timeline "$W/s.img" /secret 2>/dev/null
check "no-key names marked: $(grep -c ' (encrypted, no key)|' "$W/body.nk") of $(wc -l <"$W/body.nk")" \
	'[ "$(grep -c " (encrypted, no key)|" "$W/body.nk")" = $(( $(wc -l <"$W/body.nk") - 1 )) ]'
mkdir -p "$W/src" && echo x >"$W/src/a|b"
mkfs.ext4 -q -F -d "$W/src" "$W/bar.img" 4M >/dev/null 2>&1 || give_up mkfs.ext4
must_run "timeline of a name with '|'" "$W/body.bar" -- "$E4DUMP" timeline "$W/bar.img"
check "'|' escaped, 11 fields" 'grep -q "^0|/a\\\\x7cb|" "$W/body.bar" && ! awk -F"|" "NF != 11" "$W/body.bar" | grep -q .'
finish
