#!/bin/bash
# Every --json output of every command validates against the shipped
# schema (schema/e4dump-records.schema.json, draft 2020-12; python3's
# jsonschema, Draft202012Validator with format checking,
# tests/cli/schema_check.py), ends with the summary, and the summary's exit
# is the exit status: info, ls -R (with and without keys), stat of every
# entry, cat -o FILE of every file and symlink, extract (with keys, and
# --keep-locked without), unlock-kept of that export (with the keys and
# with a wrong one), verify, journal, volumes, keyid (alone and with
# the image), undelete (with and without keys, and --keep-locked without),
# timeline (with and without --journal-events), info and keyid of the
# fscrypt tool's metadata, keyid of an HKDF states key file, verify --evidence, mount -f (when /dev/fuse can be used), and fatal errors; on the
# bundled sample and on kernel-written images: v2 policies, casefold, and
# deletions still in the journal (undelete-a).  The scenario images are
# those the vm tests wrote (VMWORK/v2/image.img, ...), copied, or written
# here by the kernel in QEMU when they are not there.  The files the
# --keep-locked runs (extract, undelete, unlock-kept with a wrong key) write
# beside what they kept validate too (schema_check.py --documents): every
# NAME.e4dump.json ("locked"), %e4dump-dir.json ("kept_directory") and
# %e4dump-export.json ("export"), and each sidecar of extract and undelete
# is the record that run printed of the entry (the same vocabulary fields).
# usage: schema.sh E4DUMP WORKDIR VMWORK
set -u
E4DUMP=$1
VMWORK=$3
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
SCHEMA=$top/schema/e4dump-records.schema.json
mkdir -p "$W/j"
outs=()
docs=() # DIR=OUT: what the --keep-locked runs wrote, and their --json output
n=0

# run NAME CMD...: stdout into $W/j/NAME, the exit status into NAME.rc
run() {
	local name=$1
	shift
	n=$((n + 1))
	name="$n.$name"
	"$@" >"$W/j/$name" 2>"$W/j/$name.err"
	echo $? >"$W/j/$name.rc"
	outs+=("$W/j/$name")
}

# image NAME SCENARIO CACHED: IMG and KEYS (--key-file ...) of a
# kernel-written image
image() {
	local name=$1 scn=$2 cached=$VMWORK/$3
	mkdir -p "$W/$name"
	if [ -s "$cached" ] && [ -d "$(dirname "$cached")/keys" ]; then
		cp --sparse=always "$cached" "$W/$name/image.img" &&
			cp -r "$(dirname "$cached")/keys" "$W/$name/" || give_up "cannot copy $cached"
	else
		make_image "$top/vm/scenarios/$scn.scn" "$W/$name/image.img" "$W/$name/make.log"
	fi
	IMG=$W/$name/image.img
	KEYS=()
	for k in "$W/$name"/keys/*.key; do KEYS+=(--key-file "$k"); done
}

# the paths of an ls -R --json (those without escapes), of file_type $2
# (any when empty), at most $3
paths() {
	/usr/bin/python3 - "$1" "${2:-}" "${3:-40}" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "entry" and "\\" not in o["path"] and \
            (not sys.argv[2] or o.get("file_type") == sys.argv[2]) and n < int(sys.argv[3]):
        print(o["path"])
        n += 1
PY
}

exercise() {
	local name=$1 p i=0
	run "$name.info" "$E4DUMP" info --json "${KEYS[@]}" "$IMG"
	run "$name.ls" "$E4DUMP" ls -R --json "${KEYS[@]}" "$IMG"
	local ls=${outs[-1]}
	run "$name.ls-nokey" "$E4DUMP" ls -R --json "$IMG"
	run "$name.stat-root" "$E4DUMP" stat --json "${KEYS[@]}" "$IMG" /
	p=$(paths "$ls" regular 1)
	[ -z "$p" ] || run "$name.ls-file" "$E4DUMP" ls --json "${KEYS[@]}" "$IMG" "$p"
	while read -r p; do
		i=$((i + 1))
		run "$name.stat$i" "$E4DUMP" stat --json "${KEYS[@]}" "$IMG" "$p"
	done < <(paths "$ls")
	for t in regular symlink; do
		while read -r p; do
			i=$((i + 1))
			run "$name.cat$i" "$E4DUMP" cat --json "${KEYS[@]}" "$IMG" "$p" -o "$W/$name/cat$i"
		done < <(paths "$ls" $t 15)
	done
	run "$name.extract" "$E4DUMP" extract --json -q "${KEYS[@]}" "$IMG" -o "$W/$name/x"
	run "$name.extract-locked" "$E4DUMP" extract --json -q --keep-locked "$IMG" -o "$W/$name/xl"
	docs+=("$W/$name/xl=${outs[-1]}")
	run "$name.unlock-kept" "$E4DUMP" unlock-kept --json "${KEYS[@]}" "$W/$name/xl" -o "$W/$name/ul"
	docs+=("$W/$name/ul")
	run "$name.unlock-kept-wrongkey" "$E4DUMP" unlock-kept --json --key-file "$W/zero.key" "$W/$name/xl" -o "$W/$name/uln"
	docs+=("$W/$name/uln")
	run "$name.verify" "$E4DUMP" verify --json -q "${KEYS[@]}" "$IMG"
	run "$name.verify-evidence" "$E4DUMP" verify --json -q --evidence "${KEYS[@]}" "$IMG"
	run "$name.journal" "$E4DUMP" journal --json "$IMG"
	run "$name.volumes" "$E4DUMP" volumes --json "$IMG"
	run "$name.keyid" "$E4DUMP" keyid --json "${KEYS[@]}" "$IMG"
	run "$name.keyid-alone" "$E4DUMP" keyid --json "${KEYS[@]}"
	run "$name.undelete" "$E4DUMP" undelete --json "${KEYS[@]}" "$IMG" -o "$W/$name/u"
	run "$name.undelete-nokey" "$E4DUMP" undelete --json "$IMG" -o "$W/$name/un"
	run "$name.undelete-kept" "$E4DUMP" undelete --json --keep-locked "$IMG" -o "$W/$name/uk"
	docs+=("$W/$name/uk=${outs[-1]}")
	run "$name.timeline" "$E4DUMP" timeline --json "${KEYS[@]}" "$IMG"
	run "$name.timeline-events" "$E4DUMP" timeline --json --journal-events "${KEYS[@]}" "$IMG"
	run "$name.timeline-nokey" "$E4DUMP" timeline --json "$IMG"
}

head -c 64 /dev/zero >"$W/zero.key"
sample s.img
mkdir -p "$W/sample"
IMG=$W/s.img
KEYS=(--key-file "$K")
exercise sample
image v2 v2 v2/image.img
exercise v2
image casefold v2-casefold v2-casefold/image.img
exercise casefold
image undelete undelete-a undelete-a/undelete-a.img
exercise undelete

# the fscrypt tool's metadata (tests/cli/fscrypt_meta_craft.py) in a copy
# of the sample: info and keyid list protectors, the policy and links
/usr/bin/python3 "$top/tests/cli/fscrypt_meta_craft.py" set "$W/fsc" "$K" \
	"$(sed -n 's/^key fscrypt:\([0-9a-f]*\) .*/\1/p' "$S/sample.manifest")" &&
	cp "$W/s.img" "$W/fsc.img" && {
	echo "mkdir /.fscrypt"; echo "mkdir /.fscrypt/policies"; echo "mkdir /.fscrypt/protectors"
	for f in "$W"/fsc/good/protectors/* "$W"/fsc/linked/protectors/*.link; do
		echo "write $f /.fscrypt/protectors/$(basename "$f")"
	done
	for f in "$W"/fsc/good/policies/*; do echo "write $f /.fscrypt/policies/$(basename "$f")"; done
} | debugfs -w -f - "$W/fsc.img" >/dev/null 2>&1 || bad "fscrypt metadata image not made"
run fscrypt-info "$E4DUMP" info --json --passphrase-file "$W/fsc/pass" "$W/fsc.img"
run fscrypt-keyid "$E4DUMP" keyid --json --protector-key-file "$W/fsc/raw.key" "$W/fsc.img"
# a key file of the HKDF states form (tests/vm/states_keyfile.py), beside a raw key
/usr/bin/python3 "$top/tests/vm/states_keyfile.py" "$K" "$W/states.key" >/dev/null ||
	bad "states key file not made"
run states-keyid "$E4DUMP" keyid --json --key-file "$W/states.key" --key-file "$K" "$W/s.img"

# fatal errors: the diagnostic, then the summary
run fatal-ls "$E4DUMP" ls --json "$W/missing.img"
run fatal-cat "$E4DUMP" cat --json --key-file "$K" "$W/s.img" /plain/hello.txt
run fatal-keyid "$E4DUMP" keyid --json "$W/s.img"
run fatal-verify "$E4DUMP" verify --json "$W/missing.img"
run fatal-journal "$E4DUMP" journal --json "$W/missing.img"

# mount -f --json: the start record, and the summary on unmount
if [ -r /dev/fuse ] && [ -w /dev/fuse ] && command -v fusermount3 >/dev/null; then
	mkdir -p "$W/mnt"
	n=$((n + 1))
	mj="$W/j/$n.mount"
	"$E4DUMP" mount -f --json --key-file "$K" "$W/s.img" "$W/mnt" >"$mj" 2>"$mj.err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q '"type":"mount"' "$mj" && break
		sleep 0.1
	done
	ls -R "$W/mnt" >/dev/null 2>&1
	fusermount3 -u "$W/mnt" 2>/dev/null
	wait $pid
	echo $? >"$mj.rc"
	outs+=("$mj")
	check "mount -f --json: a start record ($(head -c 200 "$mj"))" 'grep -q "\"type\":\"mount\"" "$mj"'
fi

want=entry,event,stat,extracted,deleted,cat,key,policy,info,container,volume,journal,transaction,diagnostic,summary,fscrypt_protector,fscrypt_policy,fscrypt_link
/usr/bin/python3 "$top/tests/cli/schema_check.py" "$SCHEMA" "$want" "${outs[@]}" >"$W/check" 2>&1
rc=$?
check "every --json line of ${#outs[@]} runs validates against the schema ($(tail -1 "$W/check"))" '[ $rc = 0 ]'
grep FAIL "$W/check" | head -40

# the files --keep-locked writes beside what it kept (sidecars, directory
# files, the export header) are records too: each validates, and each
# sidecar is the record its run printed of that entry
/usr/bin/python3 "$top/tests/cli/schema_check.py" --documents "$SCHEMA" locked,kept_directory,export \
	"${docs[@]}" >"$W/docs" 2>&1
rc=$?
check "every sidecar, directory file and export header of the --keep-locked runs validates ($(tail -1 "$W/docs"))" '[ $rc = 0 ]'
grep FAIL "$W/docs" | head -40
finish
