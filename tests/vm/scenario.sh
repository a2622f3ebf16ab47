#!/bin/bash
# The kernel writes a scenario; its encrypted inodes have distinct nonces;
# e4dump extract, given every key the scenario
# added, reproduces every tree of the manifest byte for byte and exits 0,
# its DFXML valid under the DFXML schema's rules and true to the manifest
# (tests/vm/dfxml_verify.sh);
# e4dump verify finds nothing to report, and without a key e4dump ls prints
# byte for byte what the kernel's readdir returned without the key (the
# scenario's `readdir` records; a scenario without any fails).
# usage: scenario.sh E4DUMP WORKDIR SCENARIO
set -u
E4DUMP=$1
SCN=$3
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
keep_work  # its image.img and keys/ are the mount, casefold, states and schema tests' fixtures
img=$W/image.img
make_image "$SCN" "$img" "$W/make.log"
# every encrypted inode the kernel wrote has its own nonce, and the nonces
# do not compress (generic/613)
/usr/bin/python3 "$top/tests/kernel/nonces.py" "$img" >"$W/nonces" 2>&1 && ok ||
	bad "nonces: $(tail -3 "$W/nonces")"
tail -1 "$W/nonces"
keys=()
for k in "$W"/keys/*.key; do keys+=(--key-file "$k"); done
"$E4DUMP" extract "${keys[@]}" --dfxml "$W/out.xml" --manifest "$W/out.tsv" "$img" -o "$W/out" \
	2>"$W/extract.err" && ok || bad "extract exited $?: $(head -3 "$W/extract.err")"
check_extract -q --apply-removed "$img.manifest" "$W/out" && ok ||
	bad "extracted trees differ from the manifest"
# its DFXML: valid under the DFXML schema's rules, what the kernel wrote
. "$top/tests/vm/dfxml_verify.sh"
dfxml_verify "extract --dfxml" "$W/out.xml" "$W/out.tsv" "$W/out" "$img" "$img.manifest"
# The kernel's image conforms: no verify finding, with and without keys.
for k in with without; do
	if [ $k = with ]; then set -- "${keys[@]}"; else set --; fi
	"$E4DUMP" verify "$@" "$img" >"$W/verify.$k" 2>&1 && ok ||
		bad "verify $k keys: $(head -3 "$W/verify.$k")"
done
# info names each policy the kernel set (the manifest's tree lines carry
# what FS_IOC_GET_ENCRYPTION_POLICY read back) with its flags by their
# linux/fscrypt.h names
flag_names() {
	local f=$1 n="PAD_$((4 << ($1 & 3)))"
	(( f & 4 )) && n+="|DIRECT_KEY"
	(( f & 8 )) && n+="|IV_INO_LBLK_64"
	(( f & 16 )) && n+="|IV_INO_LBLK_32"
	echo "$n"
}
"$E4DUMP" info "${keys[@]}" "$img" >"$W/info" 2>&1
while read -r _ tree kind id cmode fmode flags _; do
	[ "$kind" = enc ] || [ "$kind" = enc2 ] || continue
	want=$(printf 'flags 0x%02x (%s), %s %s,' "$flags" "$(flag_names "$flags")" \
		"$([ $kind = enc ] && echo descriptor || echo identifier)" "$id")
	check "info: tree $tree: $want" 'grep -qF -- "$want" "$W/info"'
done < <(grep '^tree ' "$img.manifest")
# info --json: a policy record for each tree's policy, with the modes,
# flags and key id the guest set
"$E4DUMP" info --json "${keys[@]}" "$img" >"$W/info.json" 2>/dev/null
python3 - "$W/info.json" "$img.manifest" >"$W/info.json.check" 2>&1 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
pols = {(p.get("descriptor") or p.get("identifier"), p["contents_mode"], p["filenames_mode"],
         int(p["policy_flags"], 16)) for p in recs if p["type"] == "policy"}
assert recs[0]["type"] == "info" and recs[-1]["type"] == "summary", "record types"
for line in open(sys.argv[2], "rb").read().decode().splitlines():
    w = line.split()
    if w[:1] == ["tree"] and w[2] in ("enc", "enc2"):
        want = (w[3], int(w[4]), int(w[5]), int(w[6]))
        assert want in pols, f"tree {w[1]}: no policy record {want}"
        assert all(p["key"] for p in recs if p["type"] == "policy"), "a policy without its key"
PY
rc=$?
check "info --json: every tree's policy, opened ($(tail -1 "$W/info.json.check"))" '[ $rc = 0 ]'
# keyid names each key as the kernel did (v2: the identifier
# FS_IOC_ADD_ENCRYPTION_KEY returned), and with the image says which
# policy each opens: every v1 descriptor and v2 identifier the guest set
"$E4DUMP" keyid "${keys[@]}" >"$W/keyid" 2>&1
"$E4DUMP" keyid "${keys[@]}" "$img" >"$W/keyid.img" 2>&1
while read -r kind id _; do
	check "keyid: the kernel's identifier $id" 'grep -q "v2 identifier $id\$" "$W/keyid"'
done < <(grep '^key2 ' "$img.manifest")
while read -r _ tree kind id _ _ flags _; do
	[ "$kind" = enc ] || [ "$kind" = enc2 ] || continue
	check "keyid IMAGE: a key opens tree $tree's policy ($id, flags $(flag_names "$flags"))" \
		'grep -q "^  opens policy v[12] [a-z]* $id: .*flags $(flag_names "$flags");" "$W/keyid.img"'
done < <(grep '^tree ' "$img.manifest")
# ls -l shows a symlink's size as the kernel's lstat gave it with the key
# (the manifest's l records: TREE PATH MODE SIZE MTIME TARGET)
"$E4DUMP" ls -lR "${keys[@]}" "$img" >"$W/ls-l" 2>/dev/null
while read -r _ tree path _ size _; do
	p=$(printf '%s' "$path" | xxd -r -p)
	check "ls -l: symlink $p: size $size" \
		'awk -v p="$p" -v s="$size" '"'"'$2 == "l" && $4 == s && index($0, " " p " -> ") {f = 1} END {exit !f}'"'"' "$W/ls-l"'
done < <(grep '^l ' "$img.manifest")
# Two keys, one given (extract --keep-locked): the trees that key opens
# come out exactly; every file and symlink of the others is kept as the
# kernel shows it without the key, as many as the accounting line says,
# each ciphertext as debugfs dumps it and, from its sidecar alone,
# decrypted independently to what the kernel wrote (v1 AES-256-XTS
# policies; tests/cli/locked_check.py).
if [ ${#keys[@]} -ge 4 ]; then
	first=${keys[1]}
	id=$(basename "$first" .key)
	"$E4DUMP" extract --keep-locked --key-file "$first" "$img" -o "$W/kl" 2>"$W/kl.err"
	rc=$?
	opened=()
	while read -r _ tree kind kid _; do
		if [ "$kind" = plain ] || [ "$kid" = "$id" ]; then opened+=(--tree "$tree"); fi
	done < <(grep '^tree ' "$img.manifest")
	n=$(sed -n 's/^e4dump: extract: .* \([0-9]*\) locked kept, .*/\1/p' "$W/kl.err")
	r=$(/usr/bin/python3 "$top/tests/cli/locked_check.py" "$img.manifest" "$W/kl" "$img" \
		"$W"/keys/*.key 2>&1)
	nf=x nd=x nl=x
	[[ $r =~ ^([0-9]+)\ ([0-9]+)\ ([0-9]+)$ ]] &&
		nf=${BASH_REMATCH[1]} nd=${BASH_REMATCH[2]} nl=${BASH_REMATCH[3]}
	check "keep-locked with key $id only: exit 1 ($rc), ${#opened[@]} tree options opened exactly" \
		'[ $rc = 1 ] && check_extract -q --apply-removed --allow-extra "${opened[@]}" "$img.manifest" "$W/kl" >/dev/null 2>&1'
	check "keep-locked with key $id only: $n kept = $nf files ($nd decrypted from their sidecars) + $nl symlinks ($r)" \
		'[ "$nf" != x ] && [ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" = $((nf + nl)) ] && grep -q " 0 skipped$" "$W/kl.err"'
fi
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img"
finish
