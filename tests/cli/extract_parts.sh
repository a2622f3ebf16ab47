#!/bin/bash
# A large file is extracted in parts, by several writer threads at once
# (issue 33, "Both cores busy"), and cat reads it in parallel segments:
# the bytes, the holes and the report are what one thread gives and what
# the filesystem holds:
#  - an ext4 image (mke2fs -d) with a 20 MiB file, a sparse 24 MiB one and
#    300 small files: cat and extract with 1, 2 and 3 threads against the
#    source files (cmp) and debugfs's dump; extract keeps the holes
#    (SEEK_DATA) with any number of threads;
#  - the kernel-written sample: the encrypted tree extracted with the key,
#    checked against its manifest (check_extract.py);
#  - the image cut inside the large file, at a block boundary and inside a
#    block: cat and extract never crash, name the missing blocks debugfs
#    says are past the cut, and extract by 3 threads writes and says what
#    it does by one (the unreadable ranges of its parts merged).
# usage: extract_parts.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
for t in mkfs.ext4 debugfs; do
	command -v "$t" >/dev/null || give_up "$t is needed"
done

src=$W/src
mkdir -p "$src/d"
python3 - "$src" <<'EOF'
import os, random, sys
src = sys.argv[1]
rnd = random.Random(33)
with open(os.path.join(src, "large.bin"), "wb") as f:
    f.write(rnd.randbytes(20 << 20))
# holes inside segments, across them, and at the end
with open(os.path.join(src, "sparse.bin"), "wb") as f:
    f.write(rnd.randbytes(5000))
    f.seek(3 << 20)
    f.write(rnd.randbytes(70000))
    f.seek(9 << 20)
    f.write(rnd.randbytes(3 << 20))
    f.truncate(24 << 20)
for i in range(300):
    with open(os.path.join(src, "d", "f%03d" % i), "wb") as f:
        f.write(rnd.randbytes(rnd.choice((1, 4095, 4096, 4097, rnd.randrange(1, 70000)))))
EOF
mkfs.ext4 -q -F -b 4096 -d "$src" "$W/img" 64M || give_up "mkfs.ext4 -d failed"

# where a file has data (SEEK_DATA, SEEK_HOLE): "start-end" per line
datamap() {
	python3 - "$1" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end, off = os.fstat(fd).st_size, 0
while off < end:
    try:
        d = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    h = os.lseek(fd, d, os.SEEK_HOLE)
    print("%d-%d" % (d, h))
    off = h
EOF
}

# each file against the source and debugfs's dump
m=one
for f in large.bin sparse.bin d/f007 d/f123; do
	debugfs -R "dump /$f $W/dbg" "$W/img" 2>/dev/null
	check "debugfs dump /$f is the source" 'cmp -s "$W/dbg" "$src/$f"'
	for t in 1 2 3; do
		expect "cat --threads $t /$f" 0 '' -- "$E4DUMP" cat --threads $t "$W/img" "/$f"
		check "cat --threads $t /$f gives the source's bytes" 'cmp -s "$W/out" "$src/$f"'
	done
done
{
	for t in 1 2 3; do
		rm -rf "$W/x"
		expect "extract --threads $t" 0 '' -- "$E4DUMP" extract --threads "$t" "$W/img" -o "$W/x"
		check "extract --threads $t gives the source tree" \
			'diff -r "$src" "$W/x" -x lost+found >/dev/null'
		# a large file written in parts keeps its holes
		datamap "$W/x/sparse.bin" >"$W/data.$m.$t"
	done
	check "extract's sparse.bin has its data where it is with 1 thread, 2 and 3" \
		'cmp -s "$W/data.$m.1" "$W/data.$m.2" && cmp -s "$W/data.$m.1" "$W/data.$m.3"'
	check "sparse.bin's data where the source file has it" '[ "$(datamap "$W/x/sparse.bin")" = "$(datamap "$src/sparse.bin")" ]'
}
# one large file alone: besides the 2 writer threads of --threads 3, its
# parts get 2 threads of their own (counted as clone calls: which thread
# writes which part depends on the scheduler, and under load one thread
# may take them all)
if command -v strace >/dev/null && strace -f -qq -e trace=none true 2>/dev/null; then
	rm -rf "$W/x"
	# (LeakSanitizer cannot run under ptrace: it aborts, after a thread
	# of its own)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=clone,clone3 -o "$W/strace" \
		"$E4DUMP" extract --threads 3 "$W/img" /large.bin -o "$W/x" >/dev/null 2>&1
	clones=$(grep -c "clone" "$W/strace")
	check "extract --threads 3 of large.bin alone: $clones threads started, want 4" \
		'[ "$clones" = 4 ] && cmp -s "$W/x/large.bin" "$src/large.bin"'
fi
check "extract's sparse.bin has holes (data at $(echo $(cat "$W/data.one.1")))" \
	'[ "$(wc -l <"$W/data.one.1")" -ge 3 ]'

# the kernel-written sample's encrypted tree, with 1 and 2 threads
sample sample.img
for t in 1 2; do
	rm -rf "$W/s"
	expect "extract --threads $t of the sample" 0 '' -- "$E4DUMP" extract --threads $t --key-file "$K" "$W/sample.img" -o "$W/s"
	check "extract --threads $t: the sample's trees are the manifest's" \
		'check_extract -q "$S/sample.manifest" "$W/s" >"$W/check" 2>&1 || { head -3 "$W/check"; false; }'
done

# cut inside large.bin: at a block boundary, and 1000 bytes into a block
first=$(debugfs -R "blocks /large.bin" "$W/img" 2>/dev/null | tr ' ' '\n' | grep . | sort -n | head -1)
last=$(debugfs -R "blocks /large.bin" "$W/img" 2>/dev/null | tr ' ' '\n' | grep . | sort -n | tail -1)
check "debugfs: large.bin's blocks ($first..$last)" '[ -n "$first" ] && [ "$last" -gt $((first + 4000)) ]'
cut=$((first + 3000))
for c in $((cut * 4096)) $((cut * 4096 + 1000)); do
	head -c "$c" "$W/img" >"$W/cut"
	# the file blocks past the cut: those that are not wholly in the image
	missing=$(debugfs -R "blocks /large.bin" "$W/img" 2>/dev/null | tr ' ' '\n' | grep . |
		awk -v cut="$cut" '$1 >= cut' | wc -l)
	{
		for t in 1 2; do
			"$E4DUMP" cat --threads $t "$W/cut" /large.bin >"$W/cat.$m.$t" 2>"$W/cat.$m.$t.err"
			echo $? >"$W/cat.$m.$t.rc"
			check "cut at $c, cat --threads $t: no crash (exit $(cat "$W/cat.$m.$t.rc"))" \
				'[ "$(cat "$W/cat.$m.$t.rc")" -lt 128 ]'
			# (each reader thread says what it could not read)
			check "cut at $c, cat --threads $t: $missing blocks cannot be read" \
				'[ "$(grep -o "[0-9]* blocks cannot be read" "$W/cat.$m.$t.err" |
				     awk "{ n += \$1 } END { print n }")" = "$missing" ]'
			check "cut at $c, cat --threads $t: the blocks before the cut are the source's" \
				'cmp -s -n $(((cut - first) * 4096)) "$W/cat.$m.$t" "$src/large.bin"'
		done
		rm -rf "$W/x.$m" "$W/x1.$m"
		"$E4DUMP" extract --threads 3 "$W/cut" -o "$W/x.$m" >"$W/x.$m.out" 2>"$W/x.$m.err"
		echo $? >"$W/x.$m.rc"
		check "cut at $c, extract: no crash" '[ "$(cat "$W/x.$m.rc")" -lt 128 ]'
		check "cut at $c, extract: $missing blocks of large.bin cannot be read" \
			'grep -q "large.bin.*$missing blocks cannot be read" "$W/x.$m.err"'
		# written in parts by 3 threads, or by one: the same file, the
		# same report (the parts' unreadable ranges merged)
		"$E4DUMP" extract --threads 1 "$W/cut" -o "$W/x1.$m" >"$W/x1.$m.out" 2>"$W/x1.$m.err"
		check "cut at $c, extract: 3 threads write what 1 does, and say the same" \
			'diff -r "$W/x.$m" "$W/x1.$m" >/dev/null && cmp -s "$W/x.$m.err" "$W/x1.$m.err"'
		check "cut at $c, extract: large.bin's holes where blocks are missing, as with 1 thread" \
			'[ "$(datamap "$W/x.$m/large.bin")" = "$(datamap "$W/x1.$m/large.bin")" ] &&
			 [ "$(datamap "$W/x.$m/large.bin")" = "0-$(((cut - first) * 4096))" ]'
	}
	check "cut at $c: cat by 1 and 2 threads says the same" \
		'cmp -s "$W/cat.one.1" "$W/cat.one.2" && cmp -s "$W/cat.one.1.rc" "$W/cat.one.2.rc"'
done

finish
