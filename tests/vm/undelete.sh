#!/bin/bash
# e4dump undelete (issue 16) on deletions a real Linux 6.1 kernel made
# (vm/scenarios/undelete-*.scn, vm/README.md "Deletions"); expected values
# from the guest's manifest and from debugfs/dumpe2fs on the final image
# only (tests/vm/undelete_check.py):
#   a  everything still in the journal: each deleted file and symlink
#      (v1 and v2; small, 1 MiB, sparse, depth-1 extent tree, inline and
#      block symlinks, a 4-level subtree) comes back exact, byte for byte
#      (check_extract.py --removed-only), by its decrypted path, and
#      nothing else; PATH limits it to a subtree; without a key the
#      kernel's no-key paths of the same entries, not recovered ("no key"),
#      nothing written; with --keep-locked the ciphertext is kept
#   b  some freed blocks allocated again: a file with a block in use (final
#      bitmap, debugfs testb) is partial with exactly those blocks suspect,
#      the others exact
#   c  deletions in a 3000-entry htree directory: exact; no-key paths
#   d  a journal that wrapped between the making of the files and their
#      deletion: names found whose inodes have no journal copy from while
#      they were in use are not recovered (at least one), freed inodes
#      whose names are lost are reported as /$OrphanFiles/OrphanFile-INO; every deleted inode
#      once, nothing else; nothing claimed exact unless its bytes are
#      right, nothing not recovered written
# undelete --dfxml lists every deleted entry as an unallocated fileobject
# with the journal's dtime, the kernel's blocks as byte runs and hashes
# that match the recovered files (tests/cli/dfxml_check.py --deleted);
# and e4dump journal --json shows every block copy debugfs logdump shows,
# with the inode table blocks as such; the final image's DFXML is valid
# and true to what the kernel left (tests/vm/dfxml_verify.sh).
# usage: undelete.sh E4DUMP WORKDIR a|b|c|d
set -u
E4DUMP=$1
SC=$3
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
case $SC in a|b|c|d) ;; *) give_up "usage: undelete.sh E4DUMP WORKDIR a|b|c|d" ;; esac
uc() { /usr/bin/python3 "$top/tests/vm/undelete_check.py" "$@"; }

deletion_image $SC

# The journal, as e4dump shows it, against debugfs.
if must_run "journal --json" "$W/journal.json" -- "$E4DUMP" journal --json "$img"; then
	uc journal "$man" "$W/journal.json" "$img" >"$W/journal.check" 2>&1 && ok ||
		bad "journal: $(grep -m5 FAIL "$W/journal.check"; tail -1 "$W/journal.check")"
	tail -1 "$W/journal.check"
fi

# The final image's DFXML (tests/vm/dfxml_verify.sh): what the kernel left.
"$E4DUMP" extract "${keys[@]}" --dfxml "$W/x.xml" --manifest "$W/x.tsv" "$img" -o "$W/x" 2>"$W/x.err"
rc=$?
check "extract --dfxml of the final image: exit 0 ($rc)" '[ $rc = 0 ]'
. "$top/tests/vm/dfxml_verify.sh"
dfxml_verify "extract --dfxml" "$W/x.xml" "$W/x.tsv" "$W/x" "$img" "$man"

"$E4DUMP" undelete --help >"$W/help" 2>&1 ||
	give_up "e4dump has no undelete command (e4dump undelete --help: $(head -1 "$W/help"))"

# undelete NAME WANT OUT [KEYS] IMAGE [PATH]: --json -o OUT exits WANT (0
# when every entry comes back whole; 1 when one is partial, kept locked or
# not recovered: without the key, the reused blocks of b, the wrapped
# journal of d), one JSON object a line
undelete() {
	local name=$1 want=$2 out=$3
	shift 3
	rm -rf "$out"
	"$E4DUMP" undelete --json "$@" -o "$out" >"$out.json" 2>"$out.err"
	local rc=$?
	if [ $rc != "$want" ]; then
		bad "$name: exit $rc, want $want: $(head -3 "$out.err")"
		return 1
	elif sanitizer_report "$out.err"; then
		bad "$name: sanitizer report"
		return 1
	fi
	ok
	/usr/bin/python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' \
		"$out.json" 2>"$out.jsonerr" && ok || bad "$name: --json output: $(tail -1 "$out.jsonerr")"
}
# run undelete_check.py MODE ...; count it, show its last line
verdict() {
	local name=$1
	shift
	checker "$name" uc "$@"
}

case $SC in
a|c)
	if undelete "undelete with the keys" 0 "$W/rec" "${keys[@]}" "$img"; then
		verdict exact exact "$man" "$W/rec.json" "$W/rec"
		check_extract -q --removed-only "$man" "$W/rec" >"$W/rec.files" 2>&1 && ok ||
			bad "recovered files: $(grep -m8 FAIL "$W/rec.files"; tail -1 "$W/rec.files")"
		tail -1 "$W/rec.files"
	fi
	rm -f "$W/man.tsv"
	if [ $SC = a ] && undelete "undelete --manifest" 0 "$W/man" "${keys[@]}" \
		--manifest "$W/man.tsv" "$img"; then
		verdict manifest manifest "$man" "$W/man.tsv"
	fi
	if [ $SC = a ] && undelete "undelete PATH" 0 "$W/sub" "${keys[@]}" "$img" /v1pad4/sub; then
		verdict exact-under exact "$man" "$W/sub.json" "$W/sub" --under v1pad4/sub
	fi
	if undelete "undelete without a key" 1 "$W/nokey" "$img"; then
		verdict nokey nokey "$man" "$W/nokey.json" "$W/nokey"
	fi
	if [ $SC = a ] && undelete "undelete --keep-locked without a key" 1 "$W/locked" --keep-locked "$img"; then
		verdict locked nokey "$man" "$W/locked.json" "$W/locked" --locked
	fi
	# --max-output bounds what undelete writes, as extract's: with one
	# byte allowed, every file of more is refused (named, exit 1) and
	# nothing larger is left in the output
	if [ $SC = a ]; then
		rm -rf "$W/cap"
		"$E4DUMP" undelete --json --max-output 1 "${keys[@]}" "$img" -o "$W/cap" \
			>"$W/cap.json" 2>"$W/cap.err"
		rc=$?
		check "undelete --max-output 1: exit 1 (rc $rc)" '[ $rc = 1 ]'
		check "undelete --max-output 1: files refused for --max-output" \
			'grep -q "more than --max-output allows" "$W/cap.json"'
		check "undelete --max-output 1: no file of more than one byte written" \
			'[ -z "$(find "$W/cap" -type f ! -name "*.e4dump.json" -size +1c)" ]'
	fi
	;;
b)
	if undelete "undelete with the key" 1 "$W/rec" "${keys[@]}" "$img"; then
		verdict reuse reuse "$man" "$W/rec.json" "$W/rec" "$img"
	fi
	;;
d)
	if undelete "undelete with the key" 1 "$W/rec" "${keys[@]}" "$img"; then
		verdict wrapped wrapped "$man" "$W/rec.json" "$W/rec" "$img"
	fi
	;;
esac

# undelete --dfxml (issue 28): a fileobject per deleted entry, unallocated,
# with the journal's dtime, the kernel's FIEMAP blocks as byte runs, the
# tree's policy, hashes sha256sum gives of what was written and, for a
# file recovered complete, of what the kernel was given; valid under the
# DFXML schema's rules (tests/cli/dfxml_check.py --deleted); each
# fileobject the --json record of the same run.  NAME OUT
# CHECK-OPTIONS -- UNDELETE-OPTIONS
undelete_dfxml() {
	local name=$1 out=$2 opts=$3
	shift 4
	rm -rf "$out" "$out.xml" "$out.tsv"
	"$E4DUMP" undelete --json "$@" --dfxml "$out.xml" --manifest "$out.tsv" "$img" -o "$out" \
		>"$out.json" 2>"$out.err"
	local rc=$?
	if [ $rc = 2 ] || [ ! -s "$out.xml" ]; then
		bad "$name: exit $rc, no DFXML: $(head -3 "$out.err")"
		return
	fi
	# shellcheck disable=SC2086
	/usr/bin/python3 "$top/tests/cli/dfxml_check.py" "$out.xml" $opts --tsv "$out.tsv" \
		--deleted "$man" --image "$img" >"$out.check" 2>&1 && ok ||
		bad "$name: $(grep -m8 FAIL "$out.check"; tail -1 "$out.check")"
	echo "$name: $(tail -2 "$out.check" | tr '\n' ' ')"
	# the DFXML renders the record --json prints (tests/cli/writers_check.py)
	/usr/bin/python3 "$top/tests/cli/writers_check.py" dfxml "$out.xml" "$out.json" --by-inode \
		>"$out.writers" 2>&1 && ok ||
		bad "$name: the DFXML is not the --json records: $(grep -m5 FAIL "$out.writers"; tail -1 "$out.writers")"
	local n
	n=$(grep -c "<fileobject>" "$out.xml")
	check "$name: a fileobject per deleted entry ($n, undelete says $(grep -o '[0-9]* deleted entries' "$out.err"))" \
		'grep -q "undelete: $n deleted entries" "$out.err"'
}
undelete_dfxml "undelete --dfxml with the keys" "$W/dx" "--out $W/dx --all" -- "${keys[@]}"
if [ $SC = a ] || [ $SC = c ]; then
	undelete_dfxml "undelete --dfxml without a key" "$W/dxn" "--nokey" --
fi
if [ $SC = a ]; then
	undelete_dfxml "undelete --dfxml --keep-locked" "$W/dxl" "--out $W/dxl --all --nokey" -- --keep-locked
fi
finish
