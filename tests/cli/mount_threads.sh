#!/bin/bash
# e4dump mount serves requests in libfuse's multi-threaded loop (issue 33
# item 5): several readers at once through one mount get the bytes of the
# tree mkfs.ext4 -d was given and of e4dump cat: two large files read
# whole at the same time, a third file read from its middle while another
# reader reads it from its start (two reads of one file meet: its second
# handle), and a find of the whole tree beside them; then the daemon has
# more than one worker thread and exits 0 when unmounted.
# usage: mount_threads.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
mount_setup mkfs.ext4 cmp
src=$W/src
mkdir -p "$MNT" "$src/many"
python3 - "$src" <<'EOF'
import os, random, sys
src = sys.argv[1]
rnd = random.Random(33)
# sizes not multiples of the block or of the kernel's 128 KiB requests
for name, size in (("big1", 24 << 20), ("big2", (16 << 20) + 4097), ("big3", (12 << 20) + 1234)):
    with open(os.path.join(src, name), "wb") as f:
        f.write(rnd.randbytes(size))
for i in range(300):
    with open(os.path.join(src, "many", "f%03d" % i), "wb") as f:
        f.write(rnd.randbytes(rnd.randrange(1, 9000)))
EOF
trap 'fusermount3 -u "$MNT" 2>/dev/null' EXIT
mkfs.ext4 -q -F -b 4096 -N 512 -d "$src" "$W/img" 96M >/dev/null || give_up "mkfs.ext4 -d failed"
for f in big1 big2 big3; do
	"$E4DUMP" cat "$W/img" "/$f" >"$W/$f.cat" 2>"$W/$f.cat.err"
	check "e4dump cat /$f is the file given to mkfs" 'cmp -s "$W/$f.cat" "$src/$f"'
done

"$E4DUMP" mount -f -v "$W/img" "$MNT" 2>"$W/daemon.err" >/dev/null &
pid=$!
for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.1; done
check "daemon mounted" 'mountpoint -q "$MNT"'
half=$(( ($(stat -c %s "$src/big3") / 2 + 4095) / 4096 ))   # in 4 KiB blocks
cat "$MNT/big1" >"$W/big1.mnt" &
r1=$!
cat "$MNT/big2" >"$W/big2.mnt" &
r2=$!
dd if="$MNT/big3" of="$W/big3.tail.mnt" bs=4096 skip=$half 2>/dev/null &
r3=$!
cat "$MNT/big3" >"$W/big3.mnt" &
r4=$!
find "$MNT" -mindepth 1 -printf '%P %s\n' 2>"$W/find.err" | sort >"$W/find.mnt" &
r5=$!
wait $r1 $r2 $r3 $r4 $r5
nthreads=$(ls /proc/$pid/task 2>/dev/null | wc -l)
for f in big1 big2 big3; do
	check "$f through the mount, read at once with others, is e4dump cat's" \
		'cmp -s "$W/$f.mnt" "$W/$f.cat"'
	check "$f through the mount is the file given to mkfs" 'cmp -s "$W/$f.mnt" "$src/$f"'
done
tail -c +$((half * 4096 + 1)) "$src/big3" >"$W/big3.tail.src"
check "big3 from its middle, read while another reader read it from its start" \
	'[ -s "$W/big3.tail.src" ] && cmp -s "$W/big3.tail.mnt" "$W/big3.tail.src"'
(cd "$src" && find . -mindepth 1 -printf '%P %s\n' | sort) >"$W/find.src"
# the image has lost+found besides the tree (a directory of 16 KiB)
echo "lost+found 16384" >>"$W/find.src"
sort -o "$W/find.src" "$W/find.src"
check "find through the mount lists the tree's $(wc -l <"$W/find.src") entries and sizes" \
	'[ ! -s "$W/find.err" ] && cmp -s "$W/find.mnt" "$W/find.src"'
# the many small files: two readers at once, each half of them
ls "$src/many" | head -150 >"$W/part1"
ls "$src/many" | tail -n +151 >"$W/part2"
(while read -r n; do cmp -s "$MNT/many/$n" "$src/many/$n" || echo "$n"; done <"$W/part1") >"$W/diff1" &
r1=$!
(while read -r n; do cmp -s "$MNT/many/$n" "$src/many/$n" || echo "$n"; done <"$W/part2") >"$W/diff2"
wait $r1
check "300 small files read by two readers at once are the tree's ($(cat "$W/diff1" "$W/diff2" | head -3))" \
	'[ "$(wc -l <"$W/part1")" = 150 ] && [ "$(wc -l <"$W/part2")" = 150 ] && [ ! -s "$W/diff1" ] && [ ! -s "$W/diff2" ]'
check "the daemon serves with more than one worker thread ($nthreads threads)" '[ "$nthreads" -ge 3 ]'
fusermount3 -u "$MNT"
wait $pid
rc=$?
check "the daemon exits 0 on unmount ($rc)" '[ "$rc" = 0 ]'
check "nothing mounted after the unmount" '! mountpoint -q "$MNT"'
check "no sanitizer report" '! sanitizer_report "$W/daemon.err"'
finish
