# Sourced by the vm tests: compare e4dump ls without a key with every
# `readdir TAG DIR` record of a manifest (what the kernel's readdir returned
# after forget-keys), byte for byte.  Needs E4DUMP, W and tests/lib/common.sh.
# usage: nokey_compare IMAGE [ENTRY_UNLINKED_AFTER_THE_READDIR]
nokey_compare() {
	local img=$1 unlinked=${2:-} man=$1.manifest tag dir count gone n
	local check="python3 $top/tests/vm/check_extract.py"
	while IFS=$'\t' read -r tag dir count; do
		$check "$man" --readdir "$tag" --strip-tree >"$W/kernel.$tag" || bad "readdir $tag records"
		# An entry the scenario unlinked after its readdir is not in the image.
		gone=${unlinked#"$dir/"}
		if [ -n "$unlinked" ] && [ "$gone" != "$unlinked" ]; then
			grep -vxF -- "$gone" "$W/kernel.$tag" >"$W/kernel.$tag.now"
		else
			cp "$W/kernel.$tag" "$W/kernel.$tag.now"
		fi
		"$E4DUMP" ls -R "$img" "/$dir" 2>"$W/ls.$tag.err" | LC_ALL=C sort >"$W/e4dump.$tag"
		n=$(wc -l <"$W/e4dump.$tag")
		if cmp -s "$W/kernel.$tag.now" "$W/e4dump.$tag" && [ "$n" -gt 0 ]; then
			ok
			echo "readdir $tag (/$dir, $count entries): e4dump ls prints the same $n no-key names"
		else
			bad "readdir $tag (/$dir): e4dump ls differs from the kernel: $(diff "$W/kernel.$tag.now" "$W/e4dump.$tag" | head -4)"
		fi
	done < <($check "$man" --records readdir)
}
