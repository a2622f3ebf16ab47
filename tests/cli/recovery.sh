#!/bin/bash
# extract on the kernel-written sample: the accounting line, entries below
# a directory no key opens counted as skipped, --keep-locked (ciphertext
# under no-key names with sidecars that decrypt), partial recovery of an
# image cut short (each unreadable block costs that block only, reported
# in stderr, the manifest, the DFXML and JSON), and --json records.
# Expected counts come from the kernel's manifest, blocks from debugfs.
# usage: recovery.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
sample s.img
M=$S/sample.manifest
py() { /usr/bin/python3 "$@"; }
count() { grep -c "^$1 $2 " "$M"; }
size_of() { awk -v t="$1" '$1 == "f" && $2 == t {s += $5} END {print s + 0}' "$M"; }
acct() { echo "e4dump: extract: $1 directories, $2 files, $3 symlinks, $4 bytes; 0 renamed, $5 partial, $6 locked kept, $7 skipped"; }

# with the key: everything (lost+found is a directory the manifest leaves out)
nd=$(($(count d secret) + $(count d plain) + 1))
nf=$(($(count f secret) + $(count f plain)))
nl=$(($(count l secret) + $(count l plain)))
nb=$(($(size_of secret) + $(size_of plain)))
"$E4DUMP" extract -k "$K" "$W/s.img" -o "$W/all" 2>"$W/err"
rc=$?
check "with the key: exit 0 ($rc), one line: $(cat "$W/err")" \
	'[ $rc = 0 ] && [ "$(cat "$W/err")" = "$(acct $nd $nf $nl $nb 0 0 0)" ]'
check "with the key: the kernel's tree" 'check_extract -q "$M" "$W/all" >/dev/null 2>&1'
# --json: one "extracted" record per entry of the manifest, each with the
# kernel's type and the size its lstat gave (symlinks: the target's length),
# its output path, and for a file the hashes of what was written
"$E4DUMP" extract --json -k "$K" "$W/s.img" -o "$W/allj" >"$W/all.json" 2>/dev/null
check "--json: a record per entry, with the manifest's type and size, files with the hashes of what was written" 'py - "$M" "$W/all.json" "$W/allj" <<'"'"'PY'"'"'
import hashlib, json, os, sys
hashed = 0
want = {}
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] in ("d", "f", "l"):
        want["/" + bytes.fromhex(w[2]).decode()] = (w[0], None if w[4] == "-" else int(w[4]))
kinds = {"directory": "d", "regular": "f", "symlink": "l"}
got = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["type"] == "extracted" and r["path"] != "/lost+found":
        assert r["status"] == "complete" and r["output_path"] == r["path"][1:], r
        got[r["path"]] = (kinds[r["file_type"]], r["size"] if r["file_type"] != "directory" else None)
        if r["file_type"] == "regular":
            # the hashes of what was written, as hashlib reads the output back
            data = open(os.path.join(sys.argv[3], r["output_path"]), "rb").read()
            h = r["hashes"]
            assert h["of"] == "plaintext" and h["md5"] == hashlib.md5(data).hexdigest() and \
                h["sha1"] == hashlib.sha1(data).hexdigest() and \
                h["sha256"] == hashlib.sha256(data).hexdigest(), r
            hashed += 1
assert got == want, (sorted(set(got.items()) ^ set(want.items())))
assert hashed == sum(1 for k, _ in want.values() if k == "f"), hashed
PY'


# without it: /secret is made, every entry below it is skipped and counted
below=$(($(grep -c '^[dfl] secret ' "$M") - 1))
pd=$(($(count d plain) + 2))
"$E4DUMP" extract "$W/s.img" -o "$W/nokey" 2>"$W/err"
rc=$?
check "no key: exit 1 ($rc), $below entries below /secret skipped: $(tail -1 "$W/err")" \
	'[ $rc = 1 ] && [ "$(tail -1 "$W/err")" = "$(acct $pd $(count f plain) $(count l plain) $(size_of plain) 0 0 $below)" ]'
check "no key: one error names /secret and the count" \
	'grep -qx "e4dump: error: /secret (inode [0-9]*): skipped $below entries below it: no key opens its names" "$W/err"'
check "no key: nothing written below /secret" '[ -z "$(ls -A "$W/nokey/secret")" ]'

# --keep-locked: the locked files as ciphertext under their no-key names,
# each sidecar enough to decrypt it (decrypted by locked_check.py alone)
sf=$(count f secret)
sl=$(count l secret)
"$E4DUMP" extract --keep-locked "$W/s.img" -o "$W/kl" 2>"$W/err"
rc=$?
check "--keep-locked: exit 1 ($rc), $((sf + sl)) locked kept: $(tail -1 "$W/err")" \
	'[ $rc = 1 ] && [ "$(tail -1 "$W/err")" = "$(acct $nd $(count f plain) $(count l plain) $(size_of plain) 0 $((sf + sl)) 0)" ]'
r=$(py "$top/tests/cli/locked_check.py" "$M" "$W/kl/secret" "$W/s.img" "$K" 2>&1)
check "--keep-locked: $sf ciphertexts as debugfs dumps them, all decrypt from their sidecars; $sl symlinks ($r)" \
	'[ "$r" = "$sf $sf $sl" ]'
check "--keep-locked: the no-key names ls shows" \
	'[ "$(cd "$W/kl/secret" && ls -A | grep -v "\.e4dump\.json$\|^%e4dump-dir\.json$" | sort)" = "$("$E4DUMP" ls "$W/s.img" /secret 2>/dev/null | sort)" ]'

# an image cut short inside a file: the file block past the cut is lost,
# nothing else of the file
ino=$("$E4DUMP" stat --json -k "$K" "$W/s.img" "/secret/sub/nested file.bin" | py -c 'import json,sys; print(json.loads(sys.stdin.readline())["inode"])')
cut=$(debugfs -R "bmap <$ino> 1" "$W/s.img" 2>/dev/null)
head -c $((cut * 4096)) "$W/s.img" >"$W/cut.img"
"$E4DUMP" extract --json --manifest "$W/cut.tsv" --dfxml "$W/cut.xml" -k "$K" "$W/cut.img" -o "$W/cut" \
	>"$W/cut.json" 2>"$W/err"
rc=$?
# what should be missing: each file's blocks at or past the cut (debugfs)
tail -n +2 "$W/cut.tsv" | cut -f2 | sort -u | while read -r i; do
	echo "$i $(debugfs -R "blocks <$i>" "$W/s.img" 2>/dev/null)"
done >"$W/blocks"
r=$(py - "$W/cut.tsv" "$W/blocks" "$cut" "$W/cut" "$W/all" "$W/cut.json" "$W/err" <<'PY' 2>&1
import json, sys
tsv, blocks, cut, out, good, js, err = sys.argv[1:]
cut = int(cut)
want = {}
for line in open(blocks):
    ino, *phys = line.split()
    lost = [i for i, p in enumerate(map(int, phys)) if p >= cut]
    ranges, i = [], 0
    while i < len(lost):
        j = i
        while j + 1 < len(lost) and lost[j + 1] == lost[j] + 1:
            j += 1
        ranges.append(str(lost[i]) if i == j else "%d-%d" % (lost[i], lost[j]))
        i = j + 1
    want[ino] = ",".join(ranges) or "-"
partial = 0
for row in open(tsv).read().splitlines()[1:]:
    f = row.split("\t")
    ino, un, path = f[1], f[11], f[12]  # path: in DIR
    assert f[0] == "/" + path, (f[0], path)
    assert un == want[ino], (path, un, want[ino])
    got = open(out + "/" + path, "rb").read()
    exp = open(good + "/" + path, "rb").read()
    assert len(got) == len(exp), path
    bad = set()
    for r in ([] if un == "-" else un.split(",")):
        a, _, b = r.partition("-")
        bad.update(range(int(a), int(b or a) + 1))
    partial += bool(bad)
    for k in range(0, len(exp), 4096):
        blk = got[k:k + 4096]
        assert blk == (bytes(len(blk)) if k // 4096 in bad else exp[k:k + 4096]), (path, k)
recs = [json.loads(l) for l in open(js)]
assert recs[-1]["type"] == "summary" and recs[-1]["partial"] == partial, recs[-1]
parts = {r["path"]: r["unreadable"] for r in recs
         if r["type"] == "extracted" and r.get("status") == "partial"}
rows = {l.split("\t")[0]: l.split("\t")[11] for l in open(tsv).read().splitlines()[1:]}
assert parts == {p: u for p, u in rows.items() if u != "-"}, (parts, rows)
s = recs[-1]
line = ("e4dump: extract: %d directories, %d files, %d symlinks, %d bytes; %d renamed, "
        "%d partial, %d locked kept, %d skipped" % (s["directories"], s["files"], s["symlinks"],
        s["bytes"], s["renamed"], s["partial"], s["locked_kept"], s["skipped"]))
# the image is cut short: the accounting says where it ends
assert open(err).read().splitlines()[-1].startswith(line + "; the image ends at byte %d of the filesystem, " % (cut * 4096))
print(partial)
PY
)
check "cut image: exit 1 ($rc); every file written, the blocks past the cut as holes, the rest exact; manifest, JSON and stderr agree ($r partial)" \
	'[ $rc = 1 ] && [ "$r" -ge 1 ] 2>/dev/null'
check "cut image: the file cut inside lost its block 1 only, its hashes marked partial" \
	'grep -q "^/secret/sub/nested file.bin	$ino	.*	1	secret/sub/nested file.bin	plaintext-partial\$" "$W/cut.tsv" &&
	 grep -qx "e4dump: error: /secret/sub/nested file.bin (inode $ino): 1 blocks cannot be read (file blocks 1): written as holes, the rest of the file is extracted" "$W/err"'
check "cut image: the DFXML says the same" 'py "$top/tests/cli/dfxml_check.py" "$W/cut.xml" --tsv "$W/cut.tsv" --out "$W/cut"'
check "cut image: every JSON line is an object with a type" \
	'py -c "import json,sys; [json.loads(l)[\"type\"] for l in open(sys.argv[1])]" "$W/cut.json"'

# --json: a fatal error is a diagnostic record, then the summary (exit 2);
# standard output that cannot be written is exit 2
"$E4DUMP" extract --json -k "$K" "$W/nonexistent.img" -o "$W/nx" >"$W/fatal.json" 2>/dev/null
rc=$?
check "--json, no image: exit 2 ($rc), a diagnostic record then the summary" \
	'[ $rc = 2 ] && py -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [x[\"type\"] for x in r] == [\"diagnostic\", \"summary\"] and r[1][\"exit\"] == 2, r
" "$W/fatal.json"'
"$E4DUMP" extract --json -k "$K" "$W/s.img" -o "$W/full" >/dev/full 2>"$W/err"
rc=$?
check "--json >/dev/full: exit 2 ($rc), said" '[ $rc = 2 ] && grep -q "standard output" "$W/err"'

# an I/O error inside the image: a qcow2 (4 KiB clusters) whose L2 entry
# for the block holding that file's block 1 points past the container's
# end (libqcow fails that read).  That block only is lost; every other
# file comes out exact.
qemu-img convert -f raw -O qcow2 -o cluster_size=4096 "$W/s.img" "$W/io.qcow2" ||
	give_up "qemu-img convert"
py - "$W/io.qcow2" "$cut" <<'PY' || give_up "cannot corrupt the qcow2"
import struct, sys
# QEMU's qcow2 format (docs/interop/qcow2.txt): cluster_bits at 20, the L1
# table's offset at 40; L1 and L2 entries are big-endian, offset bits 9-55
with open(sys.argv[1], "r+b") as f:
    h = f.read(48)
    cbits = struct.unpack(">I", h[20:24])[0]
    l1 = struct.unpack(">Q", h[40:48])[0]
    per = (1 << cbits) // 8
    cluster = int(sys.argv[2]) * 4096 >> cbits
    f.seek(l1 + 8 * (cluster // per))
    l2 = struct.unpack(">Q", f.read(8))[0] & 0x00fffffffffffe00
    f.seek(l2 + 8 * (cluster % per))
    f.write(struct.pack(">Q", (1 << 63) | (1 << 40)))
PY
"$E4DUMP" extract --manifest "$W/io.tsv" -k "$K" "$W/io.qcow2" -o "$W/io" 2>"$W/err"
rc=$?
check "I/O error: exit 1 ($rc), the file cut inside lost block 1 only: $(grep -c "cannot be read (file blocks" "$W/err") errors" \
	'[ $rc = 1 ] && [ "$(grep -c "cannot be read (file blocks" "$W/err")" = 1 ] &&
	 grep -qx "e4dump: error: /secret/sub/nested file.bin (inode $ino): 1 blocks cannot be read (file blocks 1): written as holes, the rest of the file is extracted" "$W/err" &&
	 [ "$(awk -F "\t" "\$12 != \"-\"" "$W/io.tsv" | cut -f1 | tail -n +2)" = "/secret/sub/nested file.bin" ]'
check "I/O error: its block 0 exact, block 1 zeros" \
	'cmp -s <(head -c 4096 "$W/io/secret/sub/nested file.bin") <(head -c 4096 "$W/all/secret/sub/nested file.bin") &&
	 [ -z "$(tail -c +4097 "$W/io/secret/sub/nested file.bin" | tr -d "\0")" ] &&
	 [ "$(stat -c %s "$W/io/secret/sub/nested file.bin")" = 5000 ]'
check "I/O error: every other file exact" \
	'diff -r -q -x "nested file.bin" "$W/io" "$W/all" >/dev/null'
check "I/O error: the accounting line says 1 partial" 'tail -1 "$W/err" | grep -q " 1 partial, 0 locked kept, 0 skipped$"'

# a hard-linked file cut short: both links say what it lacks (manifest,
# JSON, accounting), and they are one file in DIR
mkdir -p "$W/hl"
head -c 40960 /dev/urandom >"$W/hl/a" && ln "$W/hl/a" "$W/hl/b"
mkfs.ext4 -q -F -b 4096 -d "$W/hl" "$W/hl.img" 8M || give_up "mkfs.ext4 -d (hard links)"
blk=$(debugfs -R "bmap /a 5" "$W/hl.img" 2>/dev/null)
head -c $((blk * 4096)) "$W/hl.img" >"$W/hlcut.img"
"$E4DUMP" extract --json --manifest "$W/hl.tsv" "$W/hlcut.img" -o "$W/hlout" >"$W/hl.json" 2>"$W/err"
rc=$?
check "hard links cut short: exit 1 ($rc); both rows lack blocks 5-9: $(cut -f1,12 "$W/hl.tsv" | tr '\n\t' ' :')" \
	'[ $rc = 1 ] && [ "$(awk -F "\t" "NR > 1 && \$12 == \"5-9\"" "$W/hl.tsv" | cut -f1 | sort | tr "\n" " ")" = "/a /b " ]'
check "hard links cut short: one file in DIR, the first 5 blocks exact" \
	'[ "$(stat -c %i "$W/hlout/a")" = "$(stat -c %i "$W/hlout/b")" ] &&
	 cmp -s <(head -c 20480 "$W/hlout/a") <(head -c 20480 "$W/hl/a")'
check "hard links cut short: 2 partial in JSON and the accounting line" \
	'[ "$(grep -c "\"status\":\"partial\"" "$W/hl.json")" = 2 ] && tail -1 "$W/err" | grep -q " 2 partial, "'
finish
