#!/bin/bash
# Key material never outlives its use: a core image of each command, taken
# by gdb at _exit after a finished run, holds neither the master key (raw
# or as hex), nor a key derived from it for an inode of the image, nor a
# passphrase or the key derived from it; nor does any output.
# usage: keys.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
command -v gdb >/dev/null || give_up "gdb not installed (scripts/install-deps.sh)"
S=$top/testvectors/sample
xz -dc "$S/sample.img.xz" >"$W/sample.img"
od -An -v -tx1 "$S/sample.key" | tr -d ' \n' >"$W/key.hex"    # the key as hex text
printf 'correct horse battery staple\n' >"$W/pass"
# The needles, computed independently (tests/vectors/verify_vectors.py):
# the master key, per-inode v1 keys of every context of the image, the
# passphrase and its e4crypt key.
/usr/bin/python3 -c '
import sys
sys.path[:0] = [sys.argv[1] + "/tests/lib", sys.argv[1] + "/tests/vectors"]
import ext4img, verify_vectors as vv
key = open(sys.argv[2], "rb").read()
im = ext4img.Image(sys.argv[3])
needles = {"master key": key, "master key (first half)": key[:32],
           "master key as hex": key.hex().encode(),
           "passphrase": b"correct horse battery staple",
           "passphrase key": vv.e4crypt_passphrase_key(b"correct horse battery staple", bytes(range(16)))}
for ino in range(1, im.superblock()["inodes_count"] + 1):
    c = im.context(ino) if im.inode(ino).links_count else None
    if c:
        dk = vv.kdf_v1(key, c[12:28], 64)
        needles[f"key of inode {ino}"] = dk[:32]
        needles[f"tweak key of inode {ino}"] = dk[32:]
with open(sys.argv[4], "w") as f:
    for k, v in needles.items():
        f.write(f"{k}\t{v.hex()}\n")
' "$top" "$S/sample.key" "$W/sample.img" "$W/needles" || give_up "needles"
check "needles: $(wc -l <"$W/needles")" '[ "$(wc -l <"$W/needles")" -ge 10 ]'

# core NAME ARGS...: run e4dump under gdb, dump its memory at _exit (every
# mapping a core dump holds: memdump.py)
core() {
	local name=$1
	shift
	ASAN_OPTIONS=detect_leaks=0 gdb -q -batch -nx -ex "set pagination off" \
		-ex "set breakpoint pending on" \
		-ex "break _exit" \
		-ex "run $(printf '%q ' "$@")>$W/$name.out 2>$W/$name.err" \
		-ex "set \$memdump_out = \"$W/$name.core\"" \
		-ex "source $top/tests/safety/memdump.py" -ex kill "$E4DUMP" >"$W/$name.gdb" 2>&1
	check "$name: core dumped: $(tail -2 "$W/$name.gdb")" '[ -s "$W/$name.core" ]'
}
search() { # NAME: no needle in the core or the outputs
	local name=$1 found
	found=$(/usr/bin/python3 -c '
import sys
hay = b"".join(open(p, "rb").read() for p in sys.argv[2:])
for line in open(sys.argv[1]):
    what, hexv = line.rstrip("\n").split("\t")
    if bytes.fromhex(hexv) in hay:
        print(what)
' "$W/needles" "$W/$name.core" "$W/$name.out" "$W/$name.err" | head -3 | tr '\n' ';')
	check "$name: key material left: $found" '[ -z "$found" ]'
	rm -f "$W/$name.core"
}
for args in "ls:ls -R -l --key-file $S/sample.key $W/sample.img" \
	"ls-hex:ls -R --key-file - $W/sample.img" \
	"cat:cat --key-file $S/sample.key $W/sample.img /secret/sub/nested file.bin" \
	"extract:extract --key-file $S/sample.key $W/sample.img -o $W/x" \
	"verify:verify --json --key-file $S/sample.key $W/sample.img" \
	"info:info --key-file $S/sample.key --passphrase-file $W/pass --salt 000102030405060708090a0b0c0d0e0f $W/sample.img"; do
	name=${args%%:*}
	IFS=' ' read -r -a argv <<<"${args#*:}"
	if [ "$name" = cat ]; then argv=(cat --key-file "$S/sample.key" "$W/sample.img" "/secret/sub/nested file.bin"); fi
	if [ "$name" = ls-hex ]; then
		core "$name" "${argv[@]}" <"$W/key.hex"
	else
		core "$name" "${argv[@]}"
	fi
	check "$name: it ran: $(head -2 "$W/$name.err")" '[ -s "$W/$name.out" ] || [ "$name" = extract ]'
	search "$name"
done
check "extract: it ran" '[ -f "$W/x/secret/hello.txt" ]'
finish
