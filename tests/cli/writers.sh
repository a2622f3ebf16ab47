#!/bin/bash
# Every writer renders the record (issue 28 item 2): on the kernel-written
# sample (with the key, without, --keep-locked), on copies of it whose
# directory context is damaged (corrupt_context.py: a bad version, cut
# short, a stale hash) and on an image with '|' in a name, the DFXML of
# extract --dfxml is the --json records of the same run, field for field
# (inode, size, mode, links, owner, times, target, name state, policy,
# key, hashes, unreadable blocks, output path, status), and the body file
# of timeline (-m PREFIX, with and without --nanoseconds) is timeline
# --json's records line for line (tests/cli/writers_check.py).
# usage: writers.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
/usr/bin/python3 "$top/tests/cli/corrupt_context.py" "$W/s.img" /secret "$W/cx" ||
	give_up "corrupt_context.py"
mkdir -p "$W/src/a|b" && echo x >"$W/src/a|b/c|d" && ln -s "c|d" "$W/src/a|b/l|k"
mkfs.ext4 -q -F -d "$W/src" "$W/bar.img" 4M >/dev/null 2>&1 || give_up mkfs.ext4
wchk() { /usr/bin/python3 "$top/tests/cli/writers_check.py" "$@"; }

n=0
for img in s cx-version cx-truncated cx-hash bar; do
	for how in key nokey locked; do
		case $how in
		key) opts=(--key-file "$K") ;;
		nokey) opts=() ;;
		locked) opts=(--keep-locked) ;;
		esac
		x=$W/$img-$how
		"$E4DUMP" extract --json "${opts[@]}" --dfxml "$x.xml" "$W/$img.img" -o "$x" \
			>"$x.json" 2>"$x.err"
		rc=$?
		if [ $rc = 2 ] || [ ! -s "$x.xml" ]; then
			bad "extract --json --dfxml $img ($how): exit $rc: $(head -2 "$x.err")"
			continue
		fi
		sanitizer_report "$x.err" && bad "$img ($how): sanitizer report"
		wchk dfxml "$x.xml" "$x.json" >"$x.check" 2>&1 && ok ||
			bad "DFXML of $img ($how): $(grep -m5 FAIL "$x.check"; tail -1 "$x.check")"
		n=$((n + $(grep -c "<fileobject>" "$x.xml")))
		[ $how = locked ] && continue
		for ns in "" --nanoseconds; do
			b=$x-body${ns:+-ns}
			"$E4DUMP" timeline --json "${opts[@]}" "$W/$img.img" >"$b.json" 2>"$b.jerr"
			rc=$?
			"$E4DUMP" timeline $ns -m /mnt/evidence/ "${opts[@]}" "$W/$img.img" \
				>"$b" 2>"$b.err"
			if [ $rc = 2 ] || [ ! -s "$b" ]; then
				bad "timeline --json $img ($how): exit $rc: $(head -2 "$b.jerr")"
				continue
			fi
			wchk body "$b" "$b.json" --prefix /mnt/evidence/ $ns >"$b.check" 2>&1 && ok ||
				bad "body file of $img ($how${ns:+, $ns}): $(grep -m5 FAIL "$b.check"; tail -1 "$b.check")"
		done
	done
done
check "the fileobjects compared ($n)" '[ $n -gt 100 ]'
finish
