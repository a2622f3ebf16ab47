#!/bin/bash
# e4dump timeline on the kernel-written sample: a TSK 3.x body file that
# mactime (sleuthkit) reads; every line's fields are what stat gives that
# inode (stat.sh checks stat against debugfs), and mactime dates a file
# as debugfs's raw mtime says.  Without the key, encrypted entries keep
# their no-key names, marked; '|' in a name is escaped.  TSK's own
# conventions: the lines of the unencrypted subtree are fls -m's, byte for
# byte, with the same mount prefix (symlinks as "NAME -> TARGET");
# --nanoseconds gives debugfs's nanoseconds and mactime still reads it;
# stat of a freed inode says "not allocated" and its dtime, as istat.
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
rc=$?
check "mactime reads it ($(wc -l <"$W/mac") lines)" '[ $rc = 0 ] && [ "$(wc -l <"$W/mac")" -gt 18 ]'
hino=$(debugfs -R "ls -p /plain" "$W/s.img" 2>/dev/null | awk -F/ '$6 == "hello.txt" {print $2}')
hm=$(debugfs -R "stat <$hino>" "$W/s.img" 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]*\):.*/\1/p')
hdate=$(date -u -d "@$((16#$hm))" +%Y-%m-%dT%H:%M:%SZ)
check "mactime dates /plain/hello.txt's modification as debugfs's mtime ($hdate)" \
	'grep -q "^$hdate,100,m.*,\"/plain/hello.txt\"$" "$W/mac"'
must_run "timeline without the key" "$W/body.nk" -- "$E4DUMP" timeline "$W/s.img" /secret 2>/dev/null
nk=$(grep -cE ' \(encrypted, no key\)( -> [^|]*)?\|' "$W/body.nk")
check "no-key names marked: $nk of $(wc -l <"$W/body.nk")" \
	'[ "$nk" = $(( $(wc -l <"$W/body.nk") - 1 )) ]'
# fls -m PREFIX reads the plain subtree as e4dump does: the same lines
command -v fls >/dev/null || give_up "fls not installed (sleuthkit)"
fls -m /mnt/evidence -r "$W/s.img" 2>/dev/null | grep '^0|/mnt/evidence/plain/' | sort >"$W/fls"
if must_run "timeline -m /mnt/evidence/ IMAGE /plain" "$W/body.m" -- \
	"$E4DUMP" timeline -m /mnt/evidence/ "$W/s.img" /plain; then
	grep -v '^0|/mnt/evidence/plain|' "$W/body.m" | sort >"$W/body.m.sorted"
	check "-m: the lines of /plain are fls -m's ($(wc -l <"$W/fls") lines; diff: $(diff "$W/fls" "$W/body.m.sorted" | head -4))" \
		'[ -s "$W/fls" ] && cmp -s "$W/fls" "$W/body.m.sorted"'
	check "symlinks as NAME -> TARGET: $(grep -c ' -> ' "$W/body.m")" \
		'grep -q "^0|/mnt/evidence/plain/link -> hello.txt|" "$W/body.m"'
fi
# --nanoseconds: SECONDS.NNNNNNNNN, debugfs's extra field >> 2
if must_run "timeline --nanoseconds" "$W/body.ns" -- "$E4DUMP" timeline --nanoseconds "$W/s.img" /plain; then
	hx=$(debugfs -R "stat <$hino>" "$W/s.img" 2>/dev/null | sed -n 's/^ *mtime: 0x\([0-9a-f]*\):\([0-9a-f]*\).*/\1 \2/p')
	want=$(printf '%d.%09d' "0x${hx% *}" $(( 0x${hx#* } >> 2 )))
	got=$(awk -F'|' '$2 == "/plain/hello.txt" {print $9}' "$W/body.ns")
	check "--nanoseconds: /plain/hello.txt mtime $got, debugfs $want" '[ "$got" = "$want" ]'
	t9='-?[0-9]+\.[0-9]{9}'
	check "--nanoseconds: every time has 9 decimals" \
		'! grep -vE "^([^|]*\|){7}$t9\|$t9\|$t9\|$t9\$" "$W/body.ns" | grep -q .'
	mactime -b "$W/body.ns" -d -y -z UTC >"$W/mac.ns" 2>"$W/mac.ns.err"
	check "mactime reads --nanoseconds (exit $?, dates /plain/hello.txt $hdate)" \
		'[ $? = 0 ] && grep -q "^$hdate,100,m.*,\"/plain/hello.txt\"$" "$W/mac.ns"'
fi
# a time before 1970 with nanoseconds: ext4 stores -1 s and 0.5 s
# (debugfs sif: mtime 0xffffffff, extra 0x77359400: 500000000 << 2,
# epoch bits 0), the time -0.5 s, one decimal number for mactime and plaso
cp "$W/s.img" "$W/old.img"
debugfs -w -R "sif <$hino> mtime 0xffffffff" "$W/old.img" >/dev/null 2>&1 &&
	debugfs -w -R "sif <$hino> mtime_extra 0x77359400" "$W/old.img" >/dev/null 2>&1 ||
	give_up "debugfs sif"
if must_run "timeline --nanoseconds, mtime before 1970" "$W/body.old" -- \
	"$E4DUMP" timeline --nanoseconds "$W/old.img" /plain; then
	got=$(awk -F'|' '$2 == "/plain/hello.txt" {print $9}' "$W/body.old")
	check "--nanoseconds: -1 s + 0.5 s is $got, want -0.500000000" '[ "$got" = "-0.500000000" ]'
fi
# stat of a freed inode: "not allocated" and its dtime, as istat
mkdir -p "$W/del" && echo gone >"$W/del/gone" && echo kept >"$W/del/kept"
mkfs.ext4 -q -F -d "$W/del" "$W/del.img" 4M >/dev/null 2>&1 || give_up mkfs.ext4
gino=$(debugfs -R "ls -p /" "$W/del.img" 2>/dev/null | awk -F/ '$6 == "gone" {print $2}')
debugfs -w -R "rm /gone" "$W/del.img" >/dev/null 2>&1 || give_up "debugfs rm"
istat "$W/del.img" "$gino" >"$W/istat" 2>&1
idel=$(sed -n 's/^Deleted:\t\(.*\) (UTC)$/\1/p' "$W/istat")
if must_run "stat of the freed inode $gino" "$W/stat.del" -- "$E4DUMP" stat "$W/del.img" "<$gino>"; then
	check "istat says Not Allocated, dtime $idel" 'grep -q "^Not Allocated" "$W/istat" && [ -n "$idel" ]'
	check "stat: not allocated" 'grep -qx "allocation: not allocated" "$W/stat.del"'
	got=$(sed -n 's/^dtime: //p' "$W/stat.del")
	check "stat: dtime $got, istat $idel" \
		'[ -n "$got" ] && [ "$(date -u -d "$got" +%s)" = "$(date -u -d "$idel UTC" +%s)" ]'
fi
# extract of the freed inode by number: its DFXML says unallocated, as
# its JSON record and istat do
"$E4DUMP" extract --json --dfxml "$W/del.xml" "$W/del.img" "<$gino>" -o "$W/del.out" >"$W/del.json" 2>"$W/del.err"
check "extract --dfxml of the freed inode $gino: <unalloc>1, no <alloc>" \
	'grep -q "<unalloc>1</unalloc>" "$W/del.xml" && ! grep -q "<alloc>" "$W/del.xml" && grep -q "\"allocated\":false" "$W/del.json"'
kino=$(debugfs -R "ls -p /" "$W/del.img" 2>/dev/null | awk -F/ '$6 == "kept" {print $2}')
"$E4DUMP" stat "$W/del.img" /kept >"$W/stat.kept" 2>&1
check "stat of an inode in use: allocated, no dtime" \
	'grep -qx "allocation: allocated" "$W/stat.kept" && ! grep -q "^dtime:" "$W/stat.kept"'
mkdir -p "$W/src" && echo x >"$W/src/a|b"
mkfs.ext4 -q -F -d "$W/src" "$W/bar.img" 4M >/dev/null 2>&1 || give_up mkfs.ext4
must_run "timeline of a name with '|'" "$W/body.bar" -- "$E4DUMP" timeline "$W/bar.img"
check "'|' escaped, 11 fields" 'grep -q "^0|/a\\\\x7cb|" "$W/body.bar" && ! awk -F"|" "NF != 11" "$W/body.bar" | grep -q .'
finish
