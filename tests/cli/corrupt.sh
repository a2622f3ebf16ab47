#!/bin/bash
# Damaged encryption contexts in a kernel-written image (the bundled
# sample): one clear error naming the path and inode, exit 1, and the rest
# of the image is still listed and extracted.
# usage: corrupt.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
S=$top/testvectors/sample
workdir "$2"

xz -dc "$S/sample.img.xz" >"$W/sample.img"
/usr/bin/python3 "$top/tests/cli/corrupt_context.py" "$W/sample.img" /secret "$W/cx"

check_case() {
	local kind=$1 re=$2 img=$W/cx-$1.img
	"$E4DUMP" ls -R --key-file "$S/sample.key" "$img" >"$W/$kind.ls" 2>"$W/$kind.ls.err"
	rc=$?
	[ $rc = 1 ] && ok || bad "$kind: ls exit $rc, want 1"
	grep -Eq "$re" "$W/$kind.ls.err" && ok || bad "$kind: ls stderr: $(head -2 "$W/$kind.ls.err")"
	grep -q '^plain/sub/nested file.bin$' "$W/$kind.ls" && ok || bad "$kind: plain tree not listed"
	sanitizer_report "$W/$kind.ls.err" && bad "$kind: sanitizer report" || ok
	"$E4DUMP" extract --key-file "$S/sample.key" "$img" -o "$W/$kind.out" 2>"$W/$kind.x.err"
	rc=$?
	[ $rc = 1 ] && ok || bad "$kind: extract exit $rc, want 1"
	grep -Eq "$re" "$W/$kind.x.err" && ok || bad "$kind: extract stderr: $(head -2 "$W/$kind.x.err")"
	check_extract -q "$S/sample.manifest" "$W/$kind.out" \
		--tree plain --expect-missing secret >"$W/$kind.check" 2>&1 &&
		ok || bad "$kind: $(grep FAIL "$W/$kind.check" | head -3)"
	"$E4DUMP" info "$img" >"$W/$kind.info" 2>&1 || bad "$kind: info failed"
}

check_case version '^e4dump: error: /secret \(inode [0-9]+\): encryption context: unknown context version$'
check_case truncated '^e4dump: error: /secret \(inode [0-9]+\): encryption context: v1 context is not 28 bytes$'
# A changed nonce: the names key is wrong, so names do not decrypt.
check_case hash '^e4dump: error: /secret/[A-Za-z0-9_-]+ \(inode [0-9]+\): name does not decrypt'
grep -q "encrypted inodes without a valid context: 1" "$W/version.info" && ok || bad "info: $(cat "$W/version.info")"
grep -q "encrypted inodes without a valid context: 1" "$W/truncated.info" && ok || bad "info: $(cat "$W/truncated.info")"
finish
