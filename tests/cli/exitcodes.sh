#!/bin/bash
# Exit codes mean the same in every command (man e4dump, EXIT STATUS):
# 0 all done; 1 something skipped, partial, kept locked or not recovered
# (verify: findings); 2 fatal.  A table of runs on the bundled sample, on
# its copy with a damaged encryption context (corrupt_context.py) and on
# crafted journals (hostile_journal.py: one deletion the journal revoked,
# so not recovered; one whose copies are all there): each run's exit
# status, and with --json the summary's "exit", is the table's.
# usage: exitcodes.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
sample s.img
O=$W/other.key
head -c 64 /dev/zero | tr '\0' 7 >"$O"
/usr/bin/python3 "$top/tests/cli/corrupt_context.py" "$W/s.img" /secret "$W/cx" >/dev/null 2>&1 ||
	give_up "corrupt_context.py failed"
damaged=$(ls "$W"/cx-*.img | head -1)
for m in revoked badlink; do
	/usr/bin/python3 "$top/tests/cli/hostile_journal.py" $m "$W/$m.img" >"$W/$m.gen" 2>&1 ||
		give_up "hostile_journal.py $m: $(tail -2 "$W/$m.gen")"
done
NK=$("$E4DUMP" ls "$W/s.img" /secret 2>/dev/null | head -1)  # a locked file's no-key name
: >"$W/exists"
n=0

# WANT NAME -- CMD...: CMD exits WANT; with --json in CMD, its last line
# is the summary and says WANT
row() {
	local want=$1 name=$2
	shift 3
	n=$((n + 1))
	"$@" >"$W/out.$n" 2>"$W/err.$n"
	local rc=$?
	check "$name: exit $rc, want $want" '[ $rc = "$want" ]'
	case " $* " in *" --json "*)
		check "$name: the summary says exit $want" \
			'tail -1 "$W/out.$n" | /usr/bin/python3 -c "import json,sys; o=json.loads(sys.stdin.read()); sys.exit(o[\"type\"] != \"summary\" or o[\"exit\"] != $want)" 2>/dev/null'
	esac
}
E=$E4DUMP S=$W/s.img
row 0 "ls -R with the key"                  -- $E ls -R --json -k "$K" "$S"
row 0 "ls -R without a key (no-key names)"  -- $E ls -R --json "$S"
row 1 "ls -R with a key that opens nothing" -- $E ls -R --json -k "$O" "$S"
row 1 "ls -R with an entry unreadable"      -- $E ls -R --json -k "$K" "$damaged"
row 1 "ls of a path not there"              -- $E ls --json "$S" /nothing
row 2 "ls of an image not there"            -- $E ls --json "$W/missing.img"
row 0 "stat of a file"                      -- $E stat --json -k "$K" "$S" /plain/hello.txt
row 0 "stat of a locked inode, no key given" -- $E stat --json "$S" "/secret/$NK"
row 1 "stat of a locked inode, the key given opens nothing" -- $E stat --json -k "$O" "$S" /secret
row 1 "stat of a path not there"            -- $E stat --json "$S" /nothing
row 0 "cat of a file"                       -- $E cat -k "$K" "$S" /plain/hello.txt
row 0 "cat -o --json of a decrypted file"   -- $E cat --json -k "$K" "$S" "/secret/sub/nested file.bin" -o "$W/c1"
row 1 "cat of a locked file"                -- $E cat --json "$S" "/secret/$NK" -o "$W/c2"
row 1 "cat of a directory"                  -- $E cat "$S" /plain
row 2 "cat --json without -o"               -- $E cat --json "$S" /plain/hello.txt
row 2 "cat -o onto a file that exists"      -- $E cat --json "$S" /plain/hello.txt -o "$W/exists"
row 0 "extract with the key"                -- $E extract --json -q -k "$K" "$S" -o "$W/x0"
row 1 "extract without the key (skipped)"   -- $E extract --json -q "$S" -o "$W/x1"
row 1 "extract --keep-locked (kept locked)" -- $E extract --json -q --keep-locked "$S" -o "$W/x2"
row 1 "extract with an entry unreadable"    -- $E extract --json -q -k "$K" "$damaged" -o "$W/x3"
row 0 "info"                                -- $E info --json -k "$K" "$S"
row 0 "volumes"                             -- $E volumes --json "$S"
row 0 "verify of the kernel's image"        -- $E verify --json -q -k "$K" "$S"
row 1 "verify with findings"                -- $E verify --json -q -k "$K" "$damaged"
row 2 "journal of an image without one"     -- $E journal --json "$S"
row 0 "keyid with the image"                -- $E keyid --json -k "$K" "$S"
row 2 "keyid without a key"                 -- $E keyid --json "$S"
row 2 "undelete of an image without a journal" -- $E undelete --json "$S" -o "$W/u0"
row 0 "undelete, every entry exact"         -- $E undelete --json "$W/badlink.img" -o "$W/u1"
row 1 "undelete, an entry not recovered"    -- $E undelete --json "$W/revoked.img" -o "$W/u2"
row 2 "mount -o rw"                         -- $E mount --json -o rw "$S" "$W"
finish
