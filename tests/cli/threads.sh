#!/bin/bash
# cat's reader threads and extract's writer threads (--threads).  Extract
# with none, one and several writes the tree mkfs.ext4 -d was given
# (names, sizes, modes, mtimes (mkfs.ext4 -d keeps seconds only), hard
# links, a hole at the end), also of thousands of small files; a write that fails in a writer thread is
# reported with the file's path, leaves nothing behind, and the rest is
# extracted.  Cat in parallel segments gives the same bytes.
# usage: threads.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"

src=$W/src
mkdir -p "$src/d1/d2" "$src/sticky" "$src/private"
python3 - "$src" <<'EOF'
import os, random, sys
src = sys.argv[1]
rnd = random.Random(11)
for i in range(400):
    d = ("", "d1", "d1/d2")[i % 3]
    # sizes across one block, the 64-block chunk and the 256 KiB window
    size = rnd.choice((0, 1, 4095, 4096, 4097, 70000, 262144, 300001,
                       rnd.randrange(1, 20000)))
    p = os.path.join(src, d, "f%03d" % i)
    with open(p, "wb") as f:
        f.write(rnd.randbytes(size))
    # distinct mtimes
    ns = 1_000_000_000 * (1_000_000_000 + i * 3607) + i * 1_000_003
    os.utime(p, ns=(ns, ns))
# a file whose data ends before its size (a hole at the end)
with open(os.path.join(src, "tailhole"), "wb") as f:
    f.write(b"head" * 1000)
    f.truncate(1 << 20)
EOF
cp "$src/f000" "$src/private/secret"
ln "$src/d1/f001" "$src/d1/d2/hardlink"
chmod 0000 "$src/d1/f004"
chmod 0640 "$src/d1/d2/f005"
chmod 4755 "$src/f006"
chmod 2711 "$src/f009"
chmod 1777 "$src/sticky"
chmod 0700 "$src/private"
touch -h -d '2001-02-03 04:05:06.123456789' "$src/tailhole"
mkfs.ext4 -q -F -b 4096 -I 256 -d "$src" "$W/img" 64M || give_up "mkfs.ext4 -d failed"

# type, size (not of directories), mode and mtime of every entry
# but lost+found, and a hash of each file's contents
listing() {
	(cd "$1" && find . -mindepth 1 ! -path './lost+found*' -printf '%P %y %s %m %Ts\n' |
		awk '$2 == "d" { $3 = "-" } { print }' | sort &&
		find . -type f ! -path './lost+found*' -print0 | sort -z | xargs -0 sha256sum)
}
want=$(listing "$src")

for t in 1 2 8; do
	rm -rf "$W/x$t"
	expect "extract --threads $t" 0 '' -- \
		"$E4DUMP" extract --keep-setid --threads "$t" "$W/img" -o "$W/x$t"
	got=$(listing "$W/x$t")
	if [ "$got" != "$want" ]; then
		bad "--threads $t: the tree differs from mkfs.ext4's source"
		diff <(echo "$want") <(echo "$got") | head -5
	else
		ok
	fi
	check "--threads $t: hard link kept" \
		'[ "$(stat -c %i "$W/x$t/d1/f001")" = "$(stat -c %i "$W/x$t/d1/d2/hardlink")" ]'
	check "--threads $t: tail hole kept sparse" \
		'[ "$(stat -c %s "$W/x$t/tailhole")" = 1048576 ] && [ "$(du -k "$W/x$t/tailhole" | cut -f1)" -lt 1024 ]'
done

# Thousands of small files in 30 directories with one writer thread:
# creating and closing files is most of the work, the writer falls
# behind, and the thread that walks the tree runs batches of the queue
# itself (filewriter.c run_here: when the queue is full, and at the end of
# each directory instead of waiting for the writer); every file is
# written once, whole, with its mtime.
mkdir -p "$W/manysrc"
python3 - "$W/manysrc" <<'PY'
import os, random, sys
rnd = random.Random(5)
for i in range(3000):
    d = os.path.join(sys.argv[1], "d%02d" % (i % 30))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "s%04d" % i)
    with open(p, "wb") as f:
        f.write(rnd.randbytes(rnd.randrange(0, 3000)))
    os.utime(p, (1_500_000_000 + i, 1_500_000_000 + i))
PY
mkfs.ext4 -q -F -b 1024 -d "$W/manysrc" "$W/manyimg" 32M || give_up "mkfs.ext4 -d (many) failed"
want_many=$(listing "$W/manysrc")
for rep in 1 2 3; do
	rm -rf "$W/m$rep"
	expect "extract --threads 2, 3000 small files ($rep)" 0 '' -- \
		"$E4DUMP" extract --threads 2 "$W/manyimg" -o "$W/m$rep"
	check "--threads 2, 3000 small files ($rep): the tree of the source" \
		'[ "$(listing "$W/m$rep")" = "$want_many" ]'
done

# Writes over 64 KiB fail (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG) in the
# writer thread: each such file is reported by path and removed, every
# other file is extracted, exit 1.
big=$(cd "$src" && find . -type f -size +64k | wc -l)
small=$(cd "$src" && find . -type f ! -size +64k | wc -l)
for t in 1 2; do
	rm -rf "$W/f$t"
	(trap '' XFSZ; ulimit -f 64; "$E4DUMP" extract --threads "$t" "$W/img" -o "$W/f$t") \
		>"$W/out" 2>"$W/err"
	rc=$?
	n=$(grep -c '^e4dump: error: /[^ ]* (inode [0-9]*): write failed: File too large$' "$W/err")
	check "--threads $t, EFBIG: exit 1 ($rc)" '[ $rc = 1 ]'
	check "--threads $t, EFBIG: one error per big file ($n of $big)" '[ "$n" = "$big" ]'
	left=$(cd "$W/f$t" && find . -type f ! -path './lost+found*' | wc -l)
	check "--threads $t, EFBIG: the $small others extracted, no partial file ($left)" \
		'[ "$left" = "$small" ] && ! find "$W/f$t" -type f -size +64k | grep -q .'
	check "--threads $t, EFBIG: summary counts them" \
		'grep -q " $big skipped\$" "$W/err"'
done

# cat of a large file in parallel segments (--threads 2 and 5) gives the
# bytes of --threads 1 and of mkfs.ext4's source: data, holes inside and
# at the end.
mkdir -p "$W/bigsrc"
python3 - "$W/bigsrc/big" <<'PY'
import random, sys
rnd = random.Random(5)
with open(sys.argv[1], "wb") as f:
    for i in range(9):                   # 9 x 2.5 MiB, every other a hole
        if i % 2 == 0:
            f.write(rnd.randbytes(5 << 19))
        else:
            f.seek(5 << 19, 1)
    f.truncate(f.tell() + 3333333)       # and a hole at the end
PY
mkfs.ext4 -q -F -b 4096 -d "$W/bigsrc" "$W/bigimg" 64M || give_up "mkfs.ext4 -d (big) failed"
want=$(sha256sum <"$W/bigsrc/big")
for t in 1 2 5; do
	"$E4DUMP" cat --threads "$t" "$W/bigimg" /big >"$W/cat$t" 2>"$W/err"
	rc=$?
	check "cat --threads $t: exit 0 ($rc), bytes of the source" \
		'[ $rc = 0 ] && [ "$(sha256sum <"$W/cat$t")" = "$want" ] && ! [ -s "$W/err" ]'
done

# A read that fails in a reader thread (the image ends inside the file's
# last extent, after its extent tree block) costs those blocks only: the
# whole file is written, the blocks that cannot be read as zeros; exit 1;
# errors that each name the file and the ranges of file blocks, together
# exactly the blocks past the cut.
blk=$(debugfs -R "bmap /big 5500" "$W/bigimg" 2>/dev/null)
head -c $(( (blk + 1) * 4096 )) "$W/bigimg" >"$W/cut.img"
size=$(stat -c %s "$W/bigsrc/big")
# the file's data blocks past the cut, from debugfs's extent list
lost=$(debugfs -R "ex /big" "$W/bigimg" 2>/dev/null | python3 -c '
import re, sys
cut = int(sys.argv[1])
n = 0
for m in re.finditer(r"(\d+) *- *(\d+) +(\d+) *- *(\d+) +\d+", sys.stdin.read()):
    p1, p2 = int(m.group(3)), int(m.group(4))
    n += max(0, p2 - max(p1, cut + 1) + 1)
print(n)' "$blk")
for t in 1 2 3; do
	"$E4DUMP" cat --threads "$t" "$W/cut.img" /big >"$W/cut$t" 2>"$W/err"
	rc=$?
	n=$(stat -c %s "$W/cut$t")
	sum=$(sed -n 's/^e4dump: error: \/big (inode [0-9]*): \([0-9]*\) blocks cannot be read (file blocks [0-9,-]*): written as zeros$/\1/p' "$W/err" |
		paste -sd+ | bc)
	check "cut image, cat --threads $t: exit 1 ($rc), errors naming /big and $lost blocks ($sum)" \
		'[ $rc = 1 ] && [ "$sum" = "$lost" ] && [ "$(grep -vc "warning: .*: the image ends at byte .* its superblock declares" "$W/err")" = "$(grep -c "blocks cannot be read" "$W/err")" ]'
	check "cut image, cat --threads $t: the whole file ($n bytes), zeros past the cut" \
		'[ "$n" = "$size" ] && cmp -s <(head -c $((5501 * 4096)) "$W/cut$t") <(head -c $((5501 * 4096)) "$W/bigsrc/big") &&
		 [ -z "$(tail -c +$((5501 * 4096 + 1)) "$W/cut$t" | tr -d "\0" | head -c 1)" ]'
done

expect threads-zero 2 'threads: "0" is not a positive number' -- \
	"$E4DUMP" extract --threads 0 "$W/img" -o "$W/z"
expect threads-ls 2 'bad option' -- "$E4DUMP" ls --threads 2 "$W/img"
finish
