#!/bin/bash
# Keys as the users of Google's `fscrypt` tool keep them (issue 29).  In
# QEMU, Debian's `fscrypt` 0.3.3 sets up the image (vm/scenarios/
# fscrypt-tool.scn: custom-passphrase, raw-key, two-protector, login
# protectors linked to a second disk, v2 and v1 policies) and the kernel
# writes the trees; the image is cached (make-image.sh --cache).  Then:
#  - tests/vm/fscrypt_unwrap.py, an independent implementation of the tool's
#    metadata and key wrapping, unwraps every policy key from the user's
#    secrets alone, each secret opening exactly the trees the manifest says;
#  - e4dump extract --key-file with those keys reproduces every tree byte for
#    byte, and with the keys of one secret exactly that secret's trees;
#  - without keys, e4dump ls prints the kernel's no-key names;
#  - once e4dump extract has --protector-key-file (issue 29's interface):
#    each secret by itself through --passphrase-file / --protector-key-file
#    (and --fscrypt-root for the login protector) opens exactly its trees,
#    and a wrong passphrase or raw key opens nothing and writes no
#    plaintext.  Before that, these checks print "SKIP: ...".
# usage: fscrypt_tool.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
img=$W/fscrypt-tool.img
root=$img.disk2.img
man=$img.manifest
sec=$W/secrets
if ! bash "$top/vm/make-image.sh" --cache "$top/vm/scenarios/fscrypt-tool.scn" "$img" \
	>"$W/make.log" 2>&1; then
	tail -20 "$W/make.log"
	give_up "make-image.sh fscrypt-tool.scn failed"
fi
grep -o 'OK.*' "$W/make.log" | head -1

# The trees and which secrets open each (the manifest's fscrypt-tree records).
records "$man" fscrypt-tree || finish
enc_trees=$(cut -f1 "$W/records.fscrypt-tree")
# trees SECRET: the trees the secret opens by itself
trees_of() { awk -F'\t' -v s="$1" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == s) print $1 }' \
	"$W/records.fscrypt-tree"; }
# the check_extract options for an extraction with SECRET: its trees and
# the plain one exactly, the others absent
tree_opts() {
	local t mine
	mine=$(trees_of "$1")
	opts=(--tree plain)
	for t in $enc_trees; do
		if grep -qxF "$t" <<<"$mine"; then opts+=(--tree "$t"); else opts+=(--expect-missing "$t"); fi
	done
}

# ---- the independent unwrapping --------------------------------------------------
checker unwrap /usr/bin/python3 "$top/tests/vm/fscrypt_unwrap.py" "$img" "$sec" "$W/unwrap" \
	--root-image "$root" --manifest "$man"

# ---- e4dump with the unwrapped keys ----------------------------------------------------
keys=()
for k in "$W"/unwrap/all/*.key; do [ -f "$k" ] && keys+=(--key-file "$k"); done
check "unwrapped $((${#keys[@]} / 2)) keys, one per tree ($(wc -w <<<"$enc_trees"))" \
	'[ $((${#keys[@]} / 2)) = $(wc -w <<<"$enc_trees") ]'
"$E4DUMP" extract "${keys[@]}" "$img" -o "$W/all" 2>"$W/all.err"
rc=$?
check "extract with every unwrapped key: exit $rc: $(head -2 "$W/all.err")" \
	'[ $rc = 0 ] && ! sanitizer_report "$W/all.err"'
checker all check_extract -q "$man" "$W/all"
for s in "$sec"/*; do
	s=$(basename "$s")
	ks=()
	for k in "$W/unwrap/by-secret/$s"/*.key; do [ -f "$k" ] && ks+=(--key-file "$k"); done
	tree_opts "$s"
	"$E4DUMP" extract "${ks[@]}" "$img" -o "$W/keys-$s" 2>"$W/keys-$s.err"
	rc=$?
	check "the keys of $s only ($(trees_of "$s" | tr '\n' ' ')): exit $rc, want 1" \
		'[ $rc = 1 ] && ! sanitizer_report "$W/keys-$s.err"'
	checker "keys-$s" check_extract -q "$man" "$W/keys-$s" "${opts[@]}"
done

# ---- without keys: the kernel's no-key names ------------------------------------------
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img"

# ---- info: the directories each policy covers ------------------------------------------
# The guest's manifest says which directory it set up with which policy
# (`tree DIR enc|enc2 KEYID ...`); info must list exactly that directory
# for that policy, in the kernel's policy records and in the fscrypt
# tool's, and for no other policy.
"$E4DUMP" info --json "$img" >"$W/info.json" 2>"$W/info.err"
echo $? >"$W/info.json.rc"
checker info-dirs /usr/bin/python3 - "$man" "$W/info.json" <<'EOF'
import json, sys
want = {}
for line in open(sys.argv[1], encoding="ascii"):
    w = line.split()
    if w[:1] == ["tree"] and w[2] in ("enc", "enc2"):
        want[w[3]] = ["/" + w[1]]
got = {"policy": {}, "fscrypt_policy": {}}
for line in open(sys.argv[2], encoding="utf-8"):
    r = json.loads(line)
    if r["type"] in got:
        key = r.get("descriptor") or r.get("identifier")
        got[r["type"]][key] = ([d["path"] for d in r["directories"]],
                               r["directories_not_listed"],
                               [d["inside_policy"] for d in r["directories"]])
bad = 0
for kind, pols in got.items():
    if sorted(pols) != sorted(want):
        print(f"{kind}: policies {sorted(pols)}, manifest {sorted(want)}")
        bad += 1
    for key, dirs in sorted(want.items()):
        g = pols.get(key)
        if g != (dirs, 0, [None] * len(dirs)):
            print(f"{kind} {key}: directories {g}, manifest {dirs}")
            bad += 1
        else:
            print(f"ok {kind} {key}: {dirs[0]}")
sys.exit(1 if bad or not want else 0)
EOF
checker info-schema /usr/bin/python3 "$top/tests/cli/schema_check.py" \
	"$top/schema/e4dump-records.schema.json" policy,fscrypt_policy "$W/info.json"

# ---- the user's secrets given to e4dump (issue 29's interface) -------------------------
# no file under DIR holds the plaintext of a file of an encrypted tree
no_plaintext() {
	/usr/bin/python3 - "$man" "$1" <<'EOF'
import hashlib, os, sys
sys.path.insert(0, os.path.join(os.environ["top"], "tests", "vm"))
import check_extract
trees, entries = check_extract.parse_manifest(sys.argv[1])
secret = {hashlib.sha256(check_extract.generate(e.seed, e.size)).digest(): e.path
          for e in entries if e.type == "f" and e.size and trees[e.tree][0] != "plain"}
found = 0
for d, _, files in os.walk(sys.argv[2]):
    for n in files:
        p = os.path.join(d, n)
        if os.path.isfile(p) and not os.path.islink(p):
            h = hashlib.sha256(open(p, "rb").read()).digest()
            if h in secret:
                print(f"{p}: the plaintext of {secret[h].decode(errors='replace')}")
                found += 1
sys.exit(1 if found else 0)
EOF
}
export top
if ! "$E4DUMP" extract --help 2>&1 | grep -q -- --protector-key-file; then
	echo "SKIP: e4dump extract has no --protector-key-file yet: the user's secrets are not given to e4dump"
	finish
fi
for f in "$sec"/*; do
	s=$(basename "$f")
	# passphrase files end with a newline (as fscrypt read them), the raw
	# key files are 32 bytes
	if [ "$(tail -c1 "$f" | od -An -tx1 | tr -d ' ')" = 0a ]; then
		opt=--passphrase-file
	else
		opt=--protector-key-file
	fi
	tree_opts "$s"
	"$E4DUMP" extract "$opt" "$f" --fscrypt-root "$root" "$img" -o "$W/secret-$s" 2>"$W/secret-$s.err"
	rc=$?
	check "extract $opt $s --fscrypt-root: exit $rc, want 1: $(head -2 "$W/secret-$s.err")" \
		'[ $rc = 1 ] && ! sanitizer_report "$W/secret-$s.err"'
	checker "secret-$s" check_extract -q "$man" "$W/secret-$s" "${opts[@]}"
done
# The login protector lives on the root filesystem: without --fscrypt-root
# its link leads nowhere and the login tree stays locked.
"$E4DUMP" extract --passphrase-file "$sec/login" "$img" -o "$W/noroot" 2>"$W/noroot.err"
rc=$?
check "login passphrase without --fscrypt-root: exit $rc, want 1, nothing of /login" \
	'[ $rc = 1 ] && check_extract -q "$man" "$W/noroot" --tree plain --expect-missing login >/dev/null 2>&1'
# Wrong secrets open nothing: non-zero exit, no plaintext anywhere.
printf 'not the passphrase\n' >"$W/wrong-pass"
head -c 32 /dev/zero >"$W/wrong-key"
for w in "--passphrase-file $W/wrong-pass" "--protector-key-file $W/wrong-key"; do
	rm -rf "$W/wrong"
	# shellcheck disable=SC2086
	"$E4DUMP" extract $w --fscrypt-root "$root" "$img" -o "$W/wrong" 2>"$W/wrong.err"
	rc=$?
	check "extract ${w%% *} (wrong): exit $rc, want 1 or 2; no plaintext written" \
		'{ [ $rc = 1 ] || [ $rc = 2 ]; } && ! sanitizer_report "$W/wrong.err" && no_plaintext "$W/wrong"'
done
finish
