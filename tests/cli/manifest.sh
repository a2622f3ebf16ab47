#!/bin/bash
# extract --manifest on the kernel-written sample: one row per regular
# file of the kernel's manifest, named by its path in the image, its path
# in DIR a column of its own; the plaintext hashes are md5sum's,
# sha1sum's and sha256sum's of the extracted files (which check_extract
# compares with the kernel's manifest), the ciphertext hash is
# sha256sum's of debugfs's raw dump of the inode, and inode, size and
# times are stat's (stat.sh checks stat against debugfs).
# usage: manifest.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
for t in 1 3; do
	rm -rf "$W/x$t"
	expect "extract --manifest --threads $t" 0 '' -- \
		"$E4DUMP" extract --threads $t --manifest "$W/m$t.tsv" --dfxml "$W/m$t.xml" --key-file "$K" "$W/s.img" -o "$W/x$t"
done
check "the extracted tree: the kernel's manifest" 'check_extract -q "$S/sample.manifest" "$W/x1" >/dev/null 2>&1'
check "the header" '[ "$(head -1 "$W/m1.tsv")" = "$(printf "path\tinode\tsize\tmd5\tsha1\tsha256\tciphertext_sha256\tatime\tmtime\tctime\tcrtime\tunreadable\toutput_path")" ]'
nf=$(grep -c '^f ' "$S/sample.manifest")
check "one row per regular file ($(($(wc -l <"$W/m1.tsv") - 1)) rows, $nf files)" '[ $(($(wc -l <"$W/m1.tsv") - 1)) = "$nf" ]'
check "the same rows with three threads" '[ "$(sort "$W/m1.tsv")" = "$(sort "$W/m3.tsv")" ]'
n=0
while IFS=$'\t' read -r path ino size md5 sha1 sha256 ct a m c cr un out; do
	[ "$un" = - ] || bad "$path: unreadable blocks \"$un\" in an intact image"
	[ "$path" = "/$out" ] || bad "$path: not the path in the image of $out"
	# a plaintext name: debugfs ncheck's path of the inode (it shows
	# encrypted names as stored)
	[ "${out%%/*}" = secret ] ||
		[ "$(debugfs -R "ncheck $ino" "$W/s.img" 2>/dev/null | awk -v i="$ino" '$1 == i' | cut -f2-)" = "$path" ] ||
		bad "$path: debugfs ncheck names inode $ino otherwise"
	f=$W/x1/$out
	want="$(md5sum <"$f" | cut -c1-32) $(sha1sum <"$f" | cut -c1-40) $(sha256sum <"$f" | cut -c1-64)"
	[ "$md5 $sha1 $sha256" = "$want" ] || bad "$path: hashes $md5 $sha1 $sha256, coreutils $want"
	rm -f "$W/dump"
	debugfs -R "dump <$ino> $W/dump" "$W/s.img" >/dev/null 2>&1
	if [ "${out%%/*}" = secret ]; then
		[ "$ct" = "$(sha256sum <"$W/dump" | cut -c1-64)" ] || bad "$path: ciphertext_sha256 $ct is not debugfs's dump's"
	else
		[ "$ct" = - ] || bad "$path: ciphertext_sha256 $ct for a plaintext file"
	fi
	"$E4DUMP" stat --key-file "$K" "$W/s.img" "<$ino>" >"$W/st" 2>/dev/null
	[ "$size $a $m $c $cr" = "$(sed -n 's/^\(size\|atime\|mtime\|ctime\|crtime\): //p' "$W/st" | tr '\n' ' ' | sed 's/ $//')" ] ||
		bad "$path: size and times differ from stat"
	n=$((n + 1))
done < <(tail -n +2 "$W/m1.tsv")
check "every row checked ($n)" '[ $n = "$nf" ]'
# --dfxml: the same rows, as fiwalk's fileobjects (tests/cli/dfxml_check.py),
# for one and for three threads
for t in 1 3; do
	check "--threads $t: the DFXML holds the manifest's rows" \
		'python3 "$top/tests/cli/dfxml_check.py" "$W/m$t.xml" --tsv "$W/m$t.tsv" --out "$W/x$t" --all >"$W/check$t" || { cat "$W/check$t"; false; }'
done
expect "extract --manifest of one file" 0 '' -- \
	"$E4DUMP" extract --manifest "$W/one.tsv" --key-file "$K" "$W/s.img" /secret/hello.txt -o "$W/one"
check "its row names the file in the image and in DIR" \
	'[ "$(tail -1 "$W/one.tsv" | cut -f1,13)" = "$(printf "/secret/hello.txt\thello.txt")" ] && [ -f "$W/one/hello.txt" ]'
# a sparse file claiming a terabyte: not read back (no DoS), said so
mkdir -p "$W/sparse" && truncate -s 1T "$W/sparse/big" && echo x >"$W/sparse/small"
mkfs.ext4 -q -F -d "$W/sparse" "$W/sparse.img" 8M >/dev/null 2>&1 || give_up "mkfs.ext4 -d (sparse)"
expect "a 1 TiB sparse file: extract --manifest ends" 0 '' -- \
	timeout 60 "$E4DUMP" extract --manifest "$W/sp.tsv" "$W/sparse.img" -o "$W/sp"
check "its row has no hashes, the small file's has" \
	'grep -q "^/big	[0-9]*	1099511627776	-	-	-	-	" "$W/sp.tsv" && grep -q "^/small	[0-9]*	2	[0-9a-f]\{32\}	" "$W/sp.tsv"'
echo keep >"$W/exists.tsv"
expect "--dfxml onto an existing file: refused" 2 'exists' -- \
	"$E4DUMP" extract --dfxml "$W/exists.tsv" --key-file "$K" "$W/s.img" -o "$W/x8"
expect "--manifest onto an existing file: refused" 2 'exists' -- \
	"$E4DUMP" extract --manifest "$W/exists.tsv" --key-file "$K" "$W/s.img" -o "$W/x9"
check "... and left as it was" '[ "$(cat "$W/exists.tsv")" = keep ]'
finish
