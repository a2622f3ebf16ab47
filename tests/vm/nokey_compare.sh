# Sourced by the vm tests: compare e4dump ls without a key with every
# `readdir TAG DIR` record of a manifest (what the kernel's readdir returned
# after forget-keys), byte for byte.  A manifest without readdir records
# fails: every scenario that calls this has some.
# Needs E4DUMP, W and tests/lib/common.sh.
# usage: nokey_compare IMAGE [ENTRY_UNLINKED_AFTER_THE_READDIR]
nokey_compare() {
	local img=$1 unlinked=${2:-} man=$1.manifest tag dir count gone n
	records "$man" readdir || return
	while IFS=$'\t' read -r tag dir count; do
		check_extract "$man" --readdir "$tag" --strip-tree >"$W/kernel.$tag" || bad "readdir $tag records"
		# An entry the scenario unlinked after its readdir is not in the image.
		gone=${unlinked#"$dir/"}
		if [ -n "$unlinked" ] && [ "$gone" != "$unlinked" ]; then
			grep -vxF -- "$gone" "$W/kernel.$tag" >"$W/kernel.$tag.now"
		else
			cp "$W/kernel.$tag" "$W/kernel.$tag.now"
		fi
		# ls into a file first: piped into sort its exit status was lost.
		must_run "readdir $tag (/$dir): e4dump ls -R" "$W/ls.$tag" -- "$E4DUMP" ls -R "$img" "/$dir" ||
			continue
		LC_ALL=C sort "$W/ls.$tag" >"$W/e4dump.$tag"
		n=$(wc -l <"$W/e4dump.$tag")
		if cmp -s "$W/kernel.$tag.now" "$W/e4dump.$tag" && [ "$n" -gt 0 ]; then
			ok
			echo "readdir $tag (/$dir, $count entries): e4dump ls prints the same $n no-key names"
		else
			bad "readdir $tag (/$dir): e4dump ls differs from the kernel: $(diff "$W/kernel.$tag.now" "$W/e4dump.$tag" | head -4)"
		fi
	done <"$W/records.readdir"
}
