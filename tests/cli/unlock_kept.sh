#!/bin/bash
# Decrypt later on the kernel-written sample: extract --keep-locked without
# the key hashes each kept file's ciphertext (manifest hashes_of
# "ciphertext", JSON hashes.of: hashlib's of the kept files) and saves what
# decrypting needs (tests/lib/ext4img.py finds it in the image); unlock-kept
# with the key, from the export alone, writes what a direct extract with
# the key writes and what the guest's manifest holds, and its records of
# the symlinks it decrypted give the size the kernel's lstat gave with the
# key (the manifest's: the target's length, not the stored i_size) and the
# target, as a direct extract's records do.  Hostile exports
# (tests/cli/unlock_kept_craft.py): a ciphertext changed after export, data
# units past i_size or given twice, a garbled context, a stored name that
# does not decrypt (with a forged plaintext beside it), entries that are
# not objects (json-c aborted on them), an export name holding a C1
# control (CSI: shown escaped, never as the byte), a symlink planted in OUT:
# each is an error naming the entry, the entry stays kept (or is not
# made), the rest is written, exit 1, and nothing lands outside OUT.  Not
# an export: exit 2.  Paths in the image: on the hostile names of
# tests/cli/hostile_names.py, moved by debugfs under a plain directory
# "50%off" as "%41" (names with '%', control bytes, escape look-alikes),
# unlock-kept's records give ls's paths (with the key), never ones made
# from the escaped names of the export.
# usage: unlock_kept.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
CHECK=$top/tests/vm/unlock_kept_check.py
expect "extract --keep-locked without the key" 1 'locked kept' -- \
	"$E4DUMP" extract --keep-locked --manifest "$W/kl.tsv" --json "$W/s.img" -o "$W/kl"
cp "$W/out" "$W/kl.json"
n=$(/usr/bin/python3 "$CHECK" hashes "$W/kl" "$W/kl.tsv" "$W/kl.json" 2>&1)
check "the ciphertext hashes of every kept file ($n)" '[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ]'
r=$(/usr/bin/python3 "$CHECK" export "$W/kl" "$W/s.img" 2>&1)
st=$?
check "what the export saved is the image's (ext4img.py): $r" '[ $st = 0 ]'
expect "direct extract with the key" 0 '' -- "$E4DUMP" extract --json --key-file "$K" "$W/s.img" -o "$W/direct"
cp "$W/out" "$W/direct.json"
mv "$W/s.img" "$W/s.img.away"
expect "unlock-kept with the key" 0 'unlock-kept: .* 0 kept locked, 0 skipped' -- \
	"$E4DUMP" unlock-kept --key-file "$K" --json --manifest "$W/u.tsv" "$W/kl" -o "$W/u"
cp "$W/out" "$W/u.json"
# a symlink's size is what lstat with the key gives (the guest's manifest)
r=$(/usr/bin/python3 "$CHECK" links "$S/sample.manifest" "$W/u.json" "$W/direct.json" 2>&1)
st=$?
check "unlock-kept's symlink records: the kernel's size and target, as extract's ($(echo $r | tail -c 300))" '[ $st = 0 ]'
r=$(/usr/bin/python3 "$CHECK" same "$W/direct" "$W/u" 2>&1)
check "unlock-kept = direct extract ($r)" '/usr/bin/python3 "$CHECK" same "$W/direct" "$W/u" >/dev/null'
check "unlock-kept = the guest's manifest" 'check_extract -q "$S/sample.manifest" "$W/u" >/dev/null 2>&1'
check "its manifest: a plaintext row per file decrypted" \
	'[ "$(awk -F "\t" "NR > 1 && \$14 == \"plaintext\" && \$1 ~ /^\\//" "$W/u.tsv" | wc -l)" = "$n" ]'
expect "not an export" 2 'not an export' -- "$E4DUMP" unlock-kept --key-file "$K" "$W/direct" -o "$W/x"
check "nothing made for it" '[ ! -e "$W/x" ]'
mkdir "$W/outside"
for edit in tamper units context name overlap nonobject c1name; do
	rm -rf "$W/e"
	cp -a "$W/kl" "$W/e"
	p=$(/usr/bin/python3 "$top/tests/cli/unlock_kept_craft.py" "$W/e" $edit)
	case $edit in
	tamper) re='SHA-256 differs' ;;
	units) re='data units run past' ;;
	context) re='context is missing or bad' ;;
	name) re="name does not decrypt" ;;
	overlap) re='data units overlap or are out of order' ;;
	nonobject) re='has no name_hex: ignored' ;;
	c1name) re='kept as .*\\xc2\\x9b\[31m' ;;
	esac
	expect "$edit: exit 1, named" 1 "$re" -- "$E4DUMP" unlock-kept --key-file "$K" "$W/e" -o "$W/o.$edit"
	if [ $edit = name ]; then
		# its stored name stays: the entry under the no-key name it had
		k=$(/usr/bin/python3 "$top/tests/cli/unlock_kept_craft.py" "$W/e" kept "$p" 2>&1)
		check "name: inode $p made under its no-key name ($k)" '[ -d "$W/o.$edit/$k" ]'
	elif [ $edit = c1name ]; then
		check "c1name: no C1 control reaches the terminal" '! grep -q "$(printf "\302\233")" "$W/err"'
	elif [ $edit = nonobject ]; then
		check "nonobject: the directory's names decrypted all the same" \
			'[ "$(grep -c "has no name_hex" "$W/err")" = 3 ] && ! grep -q "Assertion" "$W/err"'
	else
		k=$(/usr/bin/python3 "$top/tests/cli/unlock_kept_craft.py" "$W/o.$edit" kept "$p" 2>&1)
		st=$?
		check "$edit: inode $p stays kept in OUT ($k)" '[ $st = 0 ] && [ -f "$W/o.$edit/%e4dump-export.json" ]'
	fi
	check "$edit: the rest decrypted (plain/hello.txt, secret/...)" \
		'cmp -s "$W/direct/plain/hello.txt" "$W/o.$edit/plain/hello.txt" && [ "$(find "$W/o.$edit/secret" -type f ! -name "*.json" | wc -l)" -ge 2 ]'
	check "$edit: nothing outside OUT" '[ ! -e "$W/escape" ] && [ -z "$(ls -A "$W/outside")" ]'
done
# only locked directories left (no key opens them): OUT is an export
# again all the same, which the key then finishes
rm -rf "$W/do" && cp -a "$W/kl" "$W/do"
/usr/bin/python3 "$top/tests/cli/unlock_kept_craft.py" "$W/do" dirsonly >/dev/null
head -c 64 /dev/urandom >"$W/wrong.key"
expect "dirsonly, a wrong key: exit 1, names kept" 1 'names do not decrypt|kept' -- \
	"$E4DUMP" unlock-kept --key-file "$W/wrong.key" "$W/do" -o "$W/do.o"
check "dirsonly: OUT has the export header" '[ -f "$W/do.o/%e4dump-export.json" ]'
expect "dirsonly: unlock-kept of that OUT with the key" 0 'unlock-kept: ' -- \
	"$E4DUMP" unlock-kept --key-file "$K" "$W/do.o" -o "$W/do.k"
check "dirsonly: the directories decrypted ($(ls "$W/do.k/secret" 2>&1 | head -3 | tr '\n' ' '))" \
	'[ -d "$W/do.k/secret" ] && [ -z "$(find "$W/do.k" -name "%e4dump-dir.json")" ]'
# a symlink planted in OUT where a directory is made: not followed
mkdir "$W/o.planted"
ln -s "$W/outside" "$W/o.planted/secret"
expect "planted symlink: exit 1" 1 'secret' -- "$E4DUMP" unlock-kept --key-file "$K" "$W/kl" -o "$W/o.planted"
check "planted symlink: nothing written through it" '[ -z "$(ls -A "$W/outside")" ] && [ -L "$W/o.planted/secret" ]'
# set-user-ID and set-group-ID bits in an export are not made, as extract
# drops them, unless --keep-setid
rm -rf "$W/ks" && cp -a "$W/kl" "$W/ks" && chmod 6755 "$W/ks/plain/hello.txt"
expect "unlock-kept of an export holding a setuid file" 0 'unlock-kept: .* 0 skipped' -- \
	"$E4DUMP" unlock-kept --key-file "$K" "$W/ks" -o "$W/us"
check "the setuid and setgid bits dropped: $(stat -c %a "$W/us/plain/hello.txt")" \
	'[ "$(stat -c %a "$W/us/plain/hello.txt")" = 755 ]'
expect "unlock-kept --keep-setid" 0 'unlock-kept: .* 0 skipped' -- \
	"$E4DUMP" unlock-kept --keep-setid --key-file "$K" "$W/ks" -o "$W/us2"
check "--keep-setid keeps them: $(stat -c %a "$W/us2/plain/hello.txt")" \
	'[ "$(stat -c %a "$W/us2/plain/hello.txt")" = 6755 ]'
mv "$W/s.img.away" "$W/s.img"
# paths in the image come from what the export saved, not from its names
/usr/bin/python3 "$top/tests/cli/hostile_names.py" "$W/s.img" "$K" "$W/h" /nonexistent ||
	give_up "hostile_names.py"
debugfs -n -w -f - "$W/h-hostile.img" >/dev/null 2>&1 <<'EOC'
link /plain "/50%off"
unlink /plain
link /secret "/50%off/%41"
unlink /secret
EOC
"$E4DUMP" ls -R --json --key-file "$K" "$W/h-hostile.img" >"$W/pl.json" 2>/dev/null
check "ls of the moved tree lists /50%off/%41/%legit" 'grep -q "\"/50%off/%41/%legit\"" "$W/pl.json"'
"$E4DUMP" extract --keep-locked "$W/h-hostile.img" -o "$W/pk" >/dev/null 2>&1
expect "unlock-kept of the hostile names" 1 'unlock-kept: ' -- \
	"$E4DUMP" unlock-kept --json --key-file "$K" "$W/pk" -o "$W/pu"
r=$(/usr/bin/python3 "$top/tests/cli/unlock_kept_paths.py" "$W/pl.json" "$W/out" "/50%off/%41" 2>&1)
st=$?
check "unlock-kept's paths are ls's ($(echo "$r" | tail -c 400))" '[ $st = 0 ] && [ "$(echo "$r" | tail -1)" -ge 15 ]'
finish
