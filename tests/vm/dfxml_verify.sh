# dfxml_verify NAME XML TSV OUT IMAGE MANIFEST: the DFXML (and manifest)
# extract --dfxml XML --manifest TSV -o OUT wrote for a kernel-written
# IMAGE, checked by tests/cli/dfxml_check.py: the DFXML schema's rules
# (1.1.1 and 2.0.0-beta.0), sha256sum of every file in OUT, the TSV's
# rows, byte runs and encryption contexts against debugfs on IMAGE, and
# against the guest's MANIFEST (less what the scenario removed): every
# entry with its path in the image, type, mode, mtime, size, target,
# content hash and policy.  Counted with ok/bad (tests/lib/common.sh).
dfxml_verify() {
	local name=$1 xml=$2 tsv=$3 out=$4 image=$5 man=$6
	/usr/bin/python3 "$top/tests/cli/dfxml_check.py" "$xml" --tsv "$tsv" --out "$out" --all \
		--image "$image" --guest "$man" --apply-removed >"$xml.check" 2>&1 && ok ||
		bad "$name: $(grep -m8 FAIL "$xml.check"; tail -1 "$xml.check")"
	echo "$name: $(tail -1 "$xml.check")"
}
