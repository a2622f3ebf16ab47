#!/bin/bash
# --salt in every form e4crypt's -S takes, and a passphrase file read as
# e4crypt reads a passphrase: each descriptor e4dump derives is the one
# e2fsprogs' own e4crypt prints for the same passphrase and salt.  e4crypt
# adds the key to its own process keyring (-k @p), which ends with it.
# usage: salt.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
command -v e4crypt >/dev/null || give_up "e4crypt (e2fsprogs) is missing"

# the descriptor e4crypt prints for passphrase file $1 and salt $2
e4crypt_desc() {
	e4crypt add_key -k @p -S "$2" <"$1" 2>&1 | sed -n 's/^Added key with descriptor \[\([0-9a-f]*\)\]$/\1/p'
}
e4dump_desc() {
	"$E4DUMP" keyid --passphrase-file "$1" --salt "$2" 2>/dev/null |
		sed -n 's/.*v1 descriptor \([0-9a-f]*\),.*/\1/p'
}
printf 'e4dump salt test\n' >"$W/pass"
if [ -z "$(e4crypt_desc "$W/pass" s:probe)" ]; then
	echo "SKIP: e4crypt cannot add a key to a process keyring here: $(e4crypt add_key -k @p -S s:probe <"$W/pass" 2>&1 | tail -1)"
	exit 77
fi
long=$(head -c 255 /dev/zero | tr '\0' 'x')
for form in s:abc "s:$long" 0x616263 0x00112233445566778899aabbccddeeff 0x \
	00112233-4455-6677-8899-aabbccddeeff 00112233-4455-6677-8899-AABBCCDDEEFF; do
	want=$(e4crypt_desc "$W/pass" "$form")
	got=$(e4dump_desc "$W/pass" "$form")
	check "--salt ${form:0:40}: e4crypt's descriptor ($want), e4dump's ($got)" '[ -n "$want" ] && [ "$want" = "$got" ]'
done
# e4dump's own form, bare hex, is the 0x form
check "--salt HEX is 0xHEX" '[ "$(e4dump_desc "$W/pass" 616263)" = "$(e4dump_desc "$W/pass" 0x616263)" ]'
# what e4crypt refuses, e4dump refuses
for form in "s:${long}x" 0x6 0xzz; do
	want=$(e4crypt_desc "$W/pass" "$form")
	"$E4DUMP" keyid --passphrase-file "$W/pass" --salt "$form" >/dev/null 2>"$W/err"
	rc=$?
	check "--salt ${form:0:12}...: refused by both (e4crypt: \"$want\", e4dump exit $rc)" '[ -z "$want" ] && [ $rc = 2 ] && grep -q -- "--salt" "$W/err"'
done
expect "--salt f:PATH" 2 'asks a mounted filesystem' -- "$E4DUMP" keyid --passphrase-file "$W/pass" --salt f:/mnt
expect "--salt /PATH" 2 'asks a mounted filesystem' -- "$E4DUMP" keyid --passphrase-file "$W/pass" --salt /mnt

# the passphrase: the first line, at most 1023 bytes (e4crypt's fgets)
printf 'first line\nsecond line\n' >"$W/two"
printf 'first line\n' >"$W/one"
check "two lines: e4crypt reads the first" '[ "$(e4crypt_desc "$W/two" s:x)" = "$(e4crypt_desc "$W/one" s:x)" ]'
check "two lines: e4dump too" '[ "$(e4dump_desc "$W/two" s:x)" = "$(e4crypt_desc "$W/one" s:x)" ]'
"$E4DUMP" keyid --passphrase-file "$W/two" --salt s:x >/dev/null 2>"$W/err"
check "two lines: said" 'grep -q "only its first line is the passphrase" "$W/err"'
head -c 1100 /dev/zero | tr '\0' 'p' >"$W/long"
check "1100 bytes: e4crypt's descriptor, of the first 1023" \
	'[ "$(e4dump_desc "$W/long" s:x)" = "$(e4crypt_desc "$W/long" s:x)" ] && [ -n "$(e4dump_desc "$W/long" s:x)" ]'
printf 'no newline' >"$W/nonl"
check "no newline at the end: the same" '[ "$(e4dump_desc "$W/nonl" s:x)" = "$(e4crypt_desc "$W/nonl" s:x)" ]'
# every other detail of e4crypt's reading (fgets, the newline cut, strlen):
# a NUL byte ends the passphrase, a CR before the newline is kept, and an
# empty line is a passphrase; each is said
printf 'ab\0cd\n' >"$W/nul"
printf '\0abc\n' >"$W/nul0"
printf 'ab\r\n' >"$W/cr"
printf '\n' >"$W/empty"
for f in nul nul0 cr empty; do
	want=$(e4crypt_desc "$W/$f" s:x)
	got=$(e4dump_desc "$W/$f" s:x)
	check "$f: e4crypt's descriptor ($want), e4dump's ($got)" '[ -n "$want" ] && [ "$want" = "$got" ]'
done
printf 'ab\n' >"$W/ab"
check "a NUL byte: e4crypt reads what comes before it" '[ "$(e4crypt_desc "$W/nul" s:x)" = "$(e4crypt_desc "$W/ab" s:x)" ]'
"$E4DUMP" keyid --passphrase-file "$W/nul" --salt s:x >/dev/null 2>"$W/err"
check "a NUL byte: said, with its offset" 'grep -q "a NUL byte at offset 2 ends the passphrase" "$W/err"'
"$E4DUMP" keyid --passphrase-file "$W/cr" --salt s:x >/dev/null 2>"$W/err"
check "a CR: said" 'grep -q "ends with a carriage return, kept" "$W/err"'
"$E4DUMP" keyid --passphrase-file "$W/empty" --salt s:x >/dev/null 2>"$W/err"
check "an empty passphrase: said" 'grep -q "the passphrase is empty" "$W/err"'
: >"$W/nothing"
expect "an empty file: e4crypt aborts, e4dump refuses" 2 'empty file' -- "$E4DUMP" keyid --passphrase-file "$W/nothing" --salt s:x
finish
