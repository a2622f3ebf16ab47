#!/bin/bash
# e4dump stat on the kernel-written sample, checked against debugfs
# (stat_check.py: inode fields, the four times decoded from the raw
# seconds:extra, extents, the raw context xattr); the no-key name is the
# one ls shows without the key; the key file that opens it is named;
# symlink targets are the guest's (with the key) or the no-key form whose
# length is the size the kernel reports (without).
# usage: stat.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
command -v debugfs >/dev/null || give_up "debugfs not installed"
python3 "$top/tests/cli/stat_check.py" "$E4DUMP" "$W/s.img" "$K" / /secret /secret/hello.txt \
	"/secret/sub/nested file.bin" /secret/link /secret/sub/up /secret/empty /plain/link \
	"/plain/日本.txt" "<11>" >"$W/check" 2>&1
rc=$?
check "stat agrees with debugfs: $(head -3 "$W/check")" '[ $rc = 0 ]'
must_run "stat with the key" "$W/st" -- "$E4DUMP" stat --key-file "$K" "$W/s.img" "/secret/sub/nested file.bin" &&
	check "the key file that opens it is named" 'grep -q "^  key: .*sample\.key (" "$W/st"'
nk=$(sed -n 's/^no-key name: //p' "$W/st")
"$E4DUMP" ls -R "$W/s.img" /secret 2>/dev/null >"$W/ls"
nkpath=$(grep -F "/$nk" "$W/ls" | head -1)
check "no-key name ($nk): one ls shows without the key ($nkpath)" '[ -n "$nk" ] && [ -n "$nkpath" ]'
must_run "stat without a key, by no-key names" "$W/st" -- "$E4DUMP" stat "$W/s.img" "/secret/$nkpath" &&
	check "no key given, said; the same inode and no-key name" \
		'grep -q "^  key: none opens it (no key given)" "$W/st" && grep -qx "no-key name: $nk" "$W/st"'
# ls --full-time: the four times stat gives (checked against debugfs above)
must_run "ls -R --full-time" "$W/full" -- "$E4DUMP" ls -R --full-time --key-file "$K" "$W/s.img" /secret
n=0
while read -r ino _ _ _ a m c cr _; do
	"$E4DUMP" stat --key-file "$K" "$W/s.img" "<$ino>" >"$W/st.$ino" 2>/dev/null
	[ "$(sed -n 's/^\(a\|m\|c\|cr\)time: //p' "$W/st.$ino" | tr '\n' ' ')" = "$a $m $c $cr " ] || bad "ls --full-time, inode $ino: $a $m $c $cr"
	n=$((n + 1))
done <"$W/full"
check "ls --full-time: the times of $n entries are stat's" '[ "$n" -ge 7 ]'
# stat --json: the same facts as the text (checked against debugfs above)
for p in /secret/link "/secret/sub/nested file.bin" /plain; do
	"$E4DUMP" stat --key-file "$K" "$W/s.img" "$p" >"$W/t" 2>/dev/null
	"$E4DUMP" stat --json --key-file "$K" "$W/s.img" "$p" >"$W/j" 2>/dev/null
	python3 - "$W/t" "$W/j" >"$W/cmp" 2>&1 <<'PY'
import json, re, sys
t = dict(re.findall(r"^ *([a-z -]+): (.*)$", open(sys.argv[1]).read(), re.M))
recs = [json.loads(l) for l in open(sys.argv[2])]
j, summary = recs[0], recs[-1]
assert j["type"] == "stat" and summary["type"] == "summary" and summary["exit"] == 0
for k in ("inode", "mode", "uid", "gid", "size", "links", "generation", "atime", "mtime", "ctime", "crtime"):
    assert str(j[k]) == t[k], (k, j[k], t[k])
assert t["flags"] == j["inode_flags"] + " (" + "|".join(j["flags"]) + ")"
e = j["encryption"]
if e:
    assert e["nonce"] == t["nonce"] and (e.get("descriptor") or e.get("identifier")) in (t.get("descriptor"), t.get("identifier"))
    assert t["key"].startswith(e["key"])
runs = re.findall(r"^  (\d+)-\d+ -> (\d+)-\d+ \((\d+) block", open(sys.argv[1]).read(), re.M)
assert [(r["logical"], r["physical"], r["blocks"]) for r in j["blocks"]] == [tuple(map(int, x)) for x in runs]
PY
	rc=$?
	check "stat --json $p: what the text says ($(tail -1 "$W/cmp"))" '[ $rc = 0 ]'
done
# symlink targets: decrypted with the key, plain for /plain, as the guest
# made them (the manifest's l records: PATHHEX ... TARGETHEX)
while read -r _ _ path _ _ _ target; do
	p=/$(/usr/bin/python3 -c "import sys; sys.stdout.write(bytes.fromhex('$path').decode())")
	t=$(/usr/bin/python3 -c "import sys; sys.stdout.write(bytes.fromhex('$target').decode())")
	state=decrypted
	case "$p" in /plain/*) state=plain ;; esac
	must_run "stat $p" "$W/lnk" -- "$E4DUMP" stat --key-file "$K" "$W/s.img" "$p" &&
		check "stat $p: $(grep '^target:' "$W/lnk"), want '$t ($state)'" \
			'grep -qxF "target: $t ($state)" "$W/lnk"'
done < <(grep '^l ' "$S/sample.manifest")
# without the key the target is the no-key form, as long as the size says
ino=$("$E4DUMP" stat --key-file "$K" "$W/s.img" /secret/link 2>/dev/null | sed -n 's/^inode: //p')
must_run "stat <$ino> (/secret/link) without the key" "$W/lnk0" -- "$E4DUMP" stat "$W/s.img" "<$ino>" &&
	check "no-key target: $(grep -E '^(size|target):' "$W/lnk0" | tr '\n' ' ')" \
		'[ "$(sed -n "s/^target: \(.*\) (nokey)$/\1/p" "$W/lnk0" | tr -d "\n" | wc -c)" = "$(sed -n "s/^size: //p" "$W/lnk0")" ]'
expect "stat of a missing path" 1 'no such entry' -- "$E4DUMP" stat "$W/s.img" /nothing
finish
