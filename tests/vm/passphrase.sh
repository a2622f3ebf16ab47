#!/bin/bash
# A tree written by the kernel under a key derived from a passphrase as
# e4crypt does (vm/scenarios/passphrase.scn) is extracted by e4dump from the
# passphrase alone: with --salt, and with the salt in s_encrypt_pw_salt.
# usage: passphrase.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
img=$W/pw.img
make_image "$top/vm/scenarios/passphrase.scn" "$img" "$W/make.log"
printf 'e4dump test passphrase\n' >"$W/pass"
printf 'wrong passphrase\n' >"$W/wrong"
"$E4DUMP" extract --passphrase-file "$W/pass" --salt 00112233445566778899aabbccddeeff "$img" -o "$W/a" 2>"$W/a.err"
[ $? = 0 ] && ok || bad "extract with --salt: $(head -2 "$W/a.err")"
check_extract -q "$img.manifest" "$W/a" >"$W/a.check" 2>&1 && ok || bad "$(grep FAIL "$W/a.check" | head -3)"
"$E4DUMP" info --passphrase-file "$W/wrong" --salt 00112233445566778899aabbccddeeff "$img" >"$W/wrong.out" 2>&1
grep -q "no key opens it" "$W/wrong.out" && ok || bad "a wrong passphrase opened something"
# The passphrase is read as e4crypt reads it (e4dump.1, tests/cli/salt.sh
# compares with e4crypt): the first line without its newline, ending at a
# NUL byte; no newline at all is the same passphrase; a second line is not
# part of it (and is warned about); a CR before the newline is part of it,
# as for e4crypt, so that file's passphrase opens nothing (and is said).
S16=00112233445566778899aabbccddeeff
for form in 'none:e4dump test passphrase' 'nul:e4dump test passphrase\0more\n' \
	'twolf:e4dump test passphrase\n\n' 'twolines:e4dump test passphrase\nsomething else\n'; do
	printf "${form#*:}" >"$W/pass.${form%%:*}"
	"$E4DUMP" info --passphrase-file "$W/pass.${form%%:*}" --salt $S16 "$img" >"$W/${form%%:*}.out" 2>&1
	check "passphrase, ${form%%:*}: $(grep policy "$W/${form%%:*}.out" | head -1)" \
		'grep -q "opened by passphrase" "$W/${form%%:*}.out" && ! grep -q "no key opens it" "$W/${form%%:*}.out"'
done
printf 'e4dump test passphrase\r\n' >"$W/pass.crlf"
"$E4DUMP" info --passphrase-file "$W/pass.crlf" --salt $S16 "$img" >"$W/crlf.out" 2>&1
check "passphrase, crlf: the CR is kept, as e4crypt keeps it, and said" \
	'grep -q "no key opens it" "$W/crlf.out" && grep -q "carriage return, kept" "$W/crlf.out"'
check "passphrase, two lines: the second is said to be ignored" 'grep -q "only its first line" "$W/twolines.out"'
"$E4DUMP" ls --passphrase-file "$W/pass" "$img" >/dev/null 2>"$W/nosalt.err"
[ $? = 2 ] && grep -q "s_encrypt_pw_salt is zero" "$W/nosalt.err" && ok || bad "no salt: $(cat "$W/nosalt.err")"
# The salt where e4crypt keeps it (set on our copy of the image).
debugfs -w -R "ssv encrypt_pw_salt 00112233-4455-6677-8899-aabbccddeeff" "$img" >/dev/null 2>&1
"$E4DUMP" extract --passphrase-file "$W/pass" "$img" -o "$W/b" 2>"$W/b.err"
[ $? = 0 ] && ok || bad "extract with the superblock salt: $(head -2 "$W/b.err")"
check_extract -q "$img.manifest" "$W/b" >"$W/b.check" 2>&1 && ok || bad "$(grep FAIL "$W/b.check" | head -3)"
must_run "info" "$W/info" -- "$E4DUMP" info "$img" &&
	grep -q "s_encrypt_pw_salt: 00112233445566778899aabbccddeeff" "$W/info" && ok || bad "info salt"
# The image conforms (verify with the passphrase key); without the key,
# e4dump ls prints what the kernel's readdir printed.
"$E4DUMP" verify --passphrase-file "$W/pass" "$img" >"$W/verify" 2>&1 && ok ||
	bad "verify: $(head -3 "$W/verify")"
. "$top/tests/vm/nokey_compare.sh"
nokey_compare "$img"
finish
