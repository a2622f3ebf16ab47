#!/bin/bash
# undelete and journal on hostile journals (tests/cli/hostile_journal.py):
# each image once broke them: a 255-byte deleted name at depth 63
# overflowed the path rows (deep); every deleted name re-read every copy
# of its inode-table block (quad); a deleted directory's map claiming 16 TB
# aliased onto journaled blocks (bigdir); suspect ranges sorted by
# insertion (sus); revoke records scanned per transaction (revoke); a
# journal inode whose extents alias its blocks, read as often as they
# claim (jalias); one record revoked a million times kept a million times
# (revdup); a transaction revoking two million distinct blocks listed
# with a JSON object per block, 25 times the log's size (revdistinct);
# deleted directories naming each other listed under every
# name (dircycle); two deleted directories of one name merged into one
# output directory (samename); copies naming the root, the resize and
# journal inodes reported deleted and exact, a live file's old name not
# told apart (reserved); a non-UTF-8 symlink target written raw into the
# JSON (badlink); a fast symlink whose xattr block is numbered by
# l_i_file_acl_high alone read as a block symlink (aclhigh); a copy of a
# symlink's block revoked before the deletion taken as its content
# (revoked: jbd2 would not replay it); a '/' inside a deleted name not
# escaped, and an orphan's path "<INO>", "/<INO>" or "/<INO> (deleted)"
# by writer (slash):
# undelete_hostile_check.py says what each must give.
# Each
# must finish without a crash or sanitizer report, with its output well
# formed (its --dfxml valid DFXML, a fileobject per deleted entry);
# memory stays bounded (peak RSS under 200 MB without sanitizers,
# measured by /usr/bin/time: a size, not a time).
# usage: undelete_hostile.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
GEN=$top/tests/cli/hostile_journal.py
for t in mke2fs debugfs dumpe2fs /usr/bin/time; do
	command -v $t >/dev/null || give_up "$t not found (scripts/install-deps.sh)"
done
run_case() {
	local name=$1 cmd=$2
	shift 2
	rm -rf "$W/out-$name"
	env "$@" /usr/bin/python3 "$GEN" "${name%%-*}" "$W/$name.img" >"$W/$name.gen" 2>&1 ||
		{ bad "$name: the image could not be made: $(tail -2 "$W/$name.gen")"; return; }
	sha=$(sha256sum <"$W/$name.img")
	if [ "$cmd" = undelete ]; then
		rm -f "$W/$name.xml" "$W/$name.tsv"
		/usr/bin/time -f '%M' -o "$W/$name.rss" "$E4DUMP" undelete --json "$W/$name.img" \
			--dfxml "$W/$name.xml" --manifest "$W/$name.tsv" \
			-o "$W/out-$name" >"$W/$name.json" 2>"$W/$name.err"
	else
		/usr/bin/time -f '%M' -o "$W/$name.rss" "$E4DUMP" journal --json "$W/$name.img" \
			>"$W/$name.json" 2>"$W/$name.err"
	fi
	rc=$?
	check "$name: $cmd exits 0 or 1 (rc $rc)" '[ $rc -le 1 ]'
	check "$name: no sanitizer report" '! grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$W/$name.err"'
	check "$name: JSON Lines ending in a summary" \
		'/usr/bin/python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(r[-1][\"type\"] != \"summary\")" "$W/$name.json"'
	# --dfxml: well formed and valid under the DFXML schema's rules, a
	# fileobject per deleted entry reported (tests/cli/dfxml_check.py)
	if [ "$cmd" = undelete ] && grep -q '"type": *"deleted"' "$W/$name.json"; then
		check "$name: undelete --dfxml is valid DFXML" \
			'/usr/bin/python3 "$top/tests/cli/dfxml_check.py" --unalloc "$W/$name.xml" >"$W/$name.xcheck" 2>&1'
		check "$name: a fileobject per deleted entry" \
			'[ "$(grep -c "<fileobject>" "$W/$name.xml")" = "$(grep -c "\"type\": *\"deleted\".*\"status\": *\"[^s]" "$W/$name.json")" ]'
	fi
	rss=$(tail -1 "$W/$name.rss")
	# ASan's shadow memory and quarantine multiply the peak: the bound
	# is checked in the plain build
	if ! sanitized "$E4DUMP"; then
		check "$name: peak RSS ${rss} KB under 200 MB" '[ "${rss:-999999}" -lt 204800 ]'
	fi
	check "$name: the image is unchanged" '[ "$(sha256sum <"$W/$name.img")" = "$sha" ]'
}
run_case deep undelete
run_case quad undelete JMB=4
run_case bigdir undelete LARGEDIR=1 NLEAF=40 NCOPY=200
run_case sus undelete NLEAF=40
run_case revoke journal JMB=8
run_case revdup journal
# revdup: one record per (block, transaction), whatever the repeats
check "revdup: the transaction revokes its 8 distinct blocks, once each" \
	'/usr/bin/python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; t=[x for x in r if x[\"type\"]==\"transaction\"]; sys.exit(len(t)!=1 or t[0][\"revoked\"]!=list(range(1000,1008)))" "$W/revdup.json"'
rss=$(tail -1 "$W/revdup.rss")
sanitized "$E4DUMP" || check "revdup: peak RSS ${rss} KB under 64 MB (the log is 32 MB)" '[ "${rss:-999999}" -lt 65536 ]'
run_case revdistinct journal JMB=8
rss=$(tail -1 "$W/revdistinct.rss")
sanitized "$E4DUMP" || check "revdistinct: peak RSS ${rss} KB under 128 MB (the log is 8 MB, 2 million records)" '[ "${rss:-999999}" -lt 131072 ]'
check "revdistinct: every distinct block listed once" \
	'/usr/bin/python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; t=[x for x in r if x[\"type\"]==\"transaction\"]; v=t[0][\"revoked\"]; sys.exit(len(t)!=1 or v!=list(range(100000,100000+len(v))) or len(v)!=2047*1020)" "$W/revdistinct.json"'
# jalias: refused, naming two journal blocks that share a block
/usr/bin/python3 "$GEN" jalias "$W/jalias.img" >"$W/jalias.gen" 2>&1 ||
	bad "jalias: the image could not be made: $(tail -2 "$W/jalias.gen")"
"$E4DUMP" journal "$W/jalias.img" >"$W/jalias.out" 2>"$W/jalias.err"
check "jalias: the aliasing journal is refused" \
	'grep -q "journal block 1024 maps the same filesystem block as journal block 0" "$W/jalias.err"'
check "jalias: no transaction listed" '! grep -q "^transaction" "$W/jalias.out"'
for m in dircycle samename reserved badlink aclhigh revoked; do
	run_case $m undelete
	check "$m: what the copies say, as the live walker would" \
		'/usr/bin/python3 "$top/tests/cli/undelete_hostile_check.py" $m "$W/$m.json" "$W/$m.err" "$W/out-$m"'
done
# slash: names holding '/' and a nameless freed inode, one path in every
# writer (undelete --json and --manifest, timeline --json and the body file)
run_case slash undelete
"$E4DUMP" undelete --manifest "$W/slash.tsv" "$W/slash.img" -o "$W/out-slash2" >/dev/null 2>&1
"$E4DUMP" timeline --json "$W/slash.img" >"$W/slash.tl" 2>/dev/null
"$E4DUMP" timeline "$W/slash.img" >"$W/slash.body" 2>/dev/null
check "slash: escaped names and the orphan's path, the same everywhere" \
	'/usr/bin/python3 "$top/tests/cli/undelete_hostile_check.py" slash "$W/slash.json" "$W/slash.err" "$W/out-slash"'
# deep: the 255-byte name at depth 63 is reported, not written past its row
check "deep: entries reported" 'grep -q "\"type\": *\"deleted\"" "$W/deep.json"'
finish
