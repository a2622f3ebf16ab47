#!/bin/bash
# e4dump timeline (issue 28, item 3) on deletions a real Linux 6.1 kernel
# made (vm/scenarios/undelete-*.scn, the images of tests/vm/undelete.sh);
# expected values from the guest's manifest, the jbd2 journal decoded by
# tests/vm/timeline_check.py from the image's bytes, and debugfs/istat/
# mactime, never from e4dump:
#   every entry the kernel deleted is in timeline --json once, marked
#   deleted, by its decrypted path (without the keys: the kernel's no-key
#   path; its name lost: /$OrphanFiles/OrphanFile-INO), with the dtime of the newest freed copy
#   of its inode in the journal and the allocation debugfs testi gives;
#   the body file (-m PREFIX) has a line for each, PREFIX/PATH
#   [-> TARGET] (deleted) as fls writes them, 11 fields, and mactime reads
#   it (exit 0) and lists them; each line is the --json record of the entry
#   (tests/cli/writers_check.py); with PATH only those below it;
#   undelete --json reports the same record of each (path, allocated,
#   dtime, times) as timeline --json, and its --manifest the same path;
#   --no-deleted leaves them out; --journal-events gives an event per
#   commit block of the journal at its commit time, and the event of the
#   transaction that freed each deleted inode names it; stat of each
#   freed inode says "not allocated" with istat's dtime; and where the
#   inode table's dtime differs from the journal's newest copy (rewritten
#   here with debugfs, as after a crash before checkpoint), timeline gives
#   the journal's and stat the table's.
# usage: timeline.sh E4DUMP WORKDIR a|b|c|d
set -u
E4DUMP=$1
SC=$3
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
case $SC in a|b|c|d) ;; *) give_up "usage: timeline.sh E4DUMP WORKDIR a|b|c|d" ;; esac
command -v mactime >/dev/null || give_up "mactime not installed (sleuthkit)"
tc() { /usr/bin/python3 "$top/tests/vm/timeline_check.py" "$@"; }
# run timeline_check.py MODE ...; count it, show its last line
verdict() {
	local name=$1
	shift
	checker "$name" tc "$@"
}

deletion_image $SC

if must_run "timeline --json with the keys" "$W/tl.json" -- \
	"$E4DUMP" timeline --json "${keys[@]}" "$img"; then
	verdict json json "$man" "$W/tl.json" "$img"
fi
# one record of a deleted entry: undelete's (JSON and manifest) and
# timeline's agree with each other, with debugfs testi and the journal
rm -rf "$W/ud" "$W/ud.tsv"
"$E4DUMP" undelete --json "${keys[@]}" --manifest "$W/ud.tsv" "$img" -o "$W/ud" \
	>"$W/ud.json" 2>"$W/ud.err"
rc=$?
check "undelete --json --manifest: exit 0 or 1 ($rc: $(head -2 "$W/ud.err"))" '[ $rc -le 1 ]'
[ -s "$W/tl.json" ] && verdict agree agree "$man" "$W/ud.json" "$W/ud.tsv" "$W/tl.json" "$img"
if [ $SC = a ] || [ $SC = c ]; then
	if must_run "timeline --json without a key" "$W/nk.json" -- "$E4DUMP" timeline --json "$img"; then
		verdict nokey json "$man" "$W/nk.json" "$img" --nokey
	fi
fi
if must_run "timeline -m /mnt/evidence/" "$W/body" -- \
	"$E4DUMP" timeline -m /mnt/evidence/ "${keys[@]}" "$img"; then
	mactime -b "$W/body" -d -y -z UTC >"$W/mac" 2>"$W/mac.err"
	rc=$?
	check "mactime -b reads it (exit $rc: $(head -2 "$W/mac.err"))" '[ $rc = 0 ] && [ -s "$W/mac" ]'
	verdict body body "$man" "$W/body" "$W/mac" /mnt/evidence/ "$img"
	# the body file renders the records --json prints, deleted ones too
	[ -s "$W/tl.json" ] && checker writers /usr/bin/python3 "$top/tests/cli/writers_check.py" \
		body "$W/body" "$W/tl.json" --prefix /mnt/evidence/
fi
if must_run "timeline --no-deleted" "$W/body.nd" -- "$E4DUMP" timeline --no-deleted "${keys[@]}" "$img"; then
	check "--no-deleted: no line marked deleted" '! grep -q " (deleted" "$W/body.nd"'
	check "--no-deleted: the live entries all there ($(wc -l <"$W/body.nd") lines)" \
		'[ "$(wc -l <"$W/body.nd")" = "$(grep -vc " (deleted" "$W/body")" ]'
fi
# --journal-events: a commit per transaction, at the commit block's time
if must_run "timeline --journal-events --json" "$W/ev.json" -- \
	"$E4DUMP" timeline --journal-events --json "${keys[@]}" "$img"; then
	verdict events events "$man" "$W/ev.json" "$img"
fi
if must_run "timeline --journal-events" "$W/body.ev" -- \
	"$E4DUMP" timeline --journal-events "${keys[@]}" "$img"; then
	mactime -b "$W/body.ev" -d -y -z UTC >"$W/mac.ev" 2>"$W/mac.ev.err"
	rc=$?
	nev=$(grep -c '^0|<journal transaction [0-9]* committed' "$W/body.ev")
	mev=$(grep -c ',\.\.c\.,-/----------,0,0,0,"<journal transaction' "$W/mac.ev")
	check "mactime reads the journal's events (exit $rc; $nev events, $mev changes in mactime's output)" \
		'[ $rc = 0 ] && [ "$nev" -gt 0 ] && [ "$mev" = "$nev" ]'
fi
# PATH: the deleted entries below it, no others
if [ $SC = a ] && must_run "timeline IMAGE /v1pad4/sub" "$W/body.sub" -- \
	"$E4DUMP" timeline "${keys[@]}" "$img" /v1pad4/sub; then
	want=$(grep -c '^v1pad4/sub/' "$W/records.removed")
	got=$(grep -c ' (deleted' "$W/body.sub")
	check "PATH /v1pad4/sub: $got deleted lines, the manifest removed $want below it" \
		'[ "$want" -gt 0 ] && [ "$got" = "$want" ] && ! grep " (deleted" "$W/body.sub" | grep -qv "^0|/v1pad4/sub/"'
fi
# b: every deleted inode is in use again (churn); nothing freed to stat
[ $SC = b ] || verdict stat stat "$man" "$img" "$E4DUMP"

# The inode table's dtime of a deleted inode rewritten: the journal's copy
# still says when the kernel freed it
if [ $SC = a ]; then
	# the first deleted entry's inode (a record has objects inside: parsed)
	ino=$(/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("deleted") is True:
        print(o["inode"])
        break' "$W/tl.json")
	[ -n "$ino" ] || give_up "no deleted entry in $W/tl.json"
	cp --sparse=always "$img" "$W/moved.img"
	debugfs -w -R "set_inode_field <$ino> dtime @1234567890" "$W/moved.img" >/dev/null 2>&1 ||
		give_up "debugfs set_inode_field"
	if must_run "timeline --json of the rewritten image" "$W/moved.json" -- \
		"$E4DUMP" timeline --json "${keys[@]}" "$W/moved.img"; then
		verdict moved json "$man" "$W/moved.json" "$W/moved.img"
		check "inode $ino: its dtime is the journal's, not the table's 2009-02-13" \
			'! grep -q "\"inode\":$ino,.*\"dtime\":\"2009-02-13T23:31:30" "$W/moved.json"'
	fi
	"$E4DUMP" stat "$W/moved.img" "<$ino>" >"$W/moved.stat" 2>&1
	check "stat <$ino>: the table's dtime, as istat ($(grep ^dtime: "$W/moved.stat"))" \
		'grep -qx "dtime: 2009-02-13T23:31:30.000000000Z" "$W/moved.stat" &&
		 istat "$W/moved.img" $ino | grep -q "^Deleted:.*2009-02-13 23:31:30"'
fi
finish
