#!/bin/bash
# e4dump keyscan (issue 30) against RAM captures of a real Linux 6.1 guest
# (vm/scenarios/capture-keys.scn: v1 logon, v1 ioctl, three v2 keys, two v1
# logon keys unlinked/revoked after their files were read; capture-nokey.scn:
# a guest that added no key), in each of the capture's forms (ELF core, raw,
# LiME).  The truth is IMAGE.capture.keys and the keys the guest added
# (tests/vm/keyscan_check.py recomputes each structure at the offset keyscan
# gives):
# * keyed capture with --image: every recoverable key found with its kind,
#   its records confirmed and at the right offsets, exit 0; the keys of
#   --write-keys extract the image byte for byte like the guest's manifest;
#   --threads 2 gives the same records as --threads 1
# * extract --memory CAPTURE (ELF, LiME) matches the manifest byte for
#   byte; with the no-key capture nothing of an encrypted tree is written
# * no-key capture, without --image and with the keyed image: no memory_key
#   record at all (with the image: every policy not found, exit 1)
# * keyed capture against images with other policies (the no-key guest's,
#   the bundled sample): no confirmed record (the sample's policy not found,
#   exit 1)
# The captures are cached (make-image.sh --cache): a second run costs
# seconds plus keyscan's time.
# usage: keyscan.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
kimg=$W/keyed/keyed.img
nimg=$W/nokey/nokey.img
for s in keys:$kimg nokey:$nimg; do
	bash "$top/vm/make-image.sh" --cache "$top/vm/scenarios/capture-${s%%:*}.scn" "${s#*:}" \
		>"$W/make-${s%%:*}.log" 2>&1 || {
		tail -20 "$W/make-${s%%:*}.log"
		give_up "make-image.sh capture-${s%%:*}.scn failed"
	}
done
sample sample.img
kchk() { /usr/bin/python3 "$top/tests/vm/keyscan_check.py" "$@"; }
npol=$(grep -c '^tree [^ ]* enc2\? ' "$kimg.manifest")

for form in elf raw lime; do
	cap=$kimg.capture.$form
	wk=$W/wk-$form
	"$E4DUMP" keyscan --image "$kimg" --json --write-keys "$wk" "$cap" \
		>"$W/ks-$form.json" 2>"$W/ks-$form.err"
	rc=$?
	check "keyscan $form: exit $rc, want 0: $(head -3 "$W/ks-$form.err")" '[ $rc = 0 ]'
	sanitizer_report "$W/ks-$form.err" && bad "keyscan $form: sanitizer report"
	checker "keyscan-$form" kchk keyed "$W/ks-$form.json" "$kimg" "$form" "$wk"
	# the keys it wrote open every tree of the image
	keys=()
	for k in "$wk"/*.key; do [ -f "$k" ] && keys+=(--key-file "$k"); done
	if [ ${#keys[@]} -gt 0 ]; then
		"$E4DUMP" extract "${keys[@]}" "$kimg" -o "$W/out-$form" 2>"$W/extract-$form.err" &&
			ok || bad "extract with the keys of keyscan $form exited $?: $(head -3 "$W/extract-$form.err")"
		check_extract -q "$kimg.manifest" "$W/out-$form" >"$W/check-$form" 2>&1 && ok ||
			bad "extract with the keys of keyscan $form: $(grep -m5 FAIL "$W/check-$form"; tail -1 "$W/check-$form")"
	else
		bad "keyscan $form --write-keys wrote no key file"
	fi
done

# --memory: any command takes the keys a capture holds (the same rule
# confirms them): extract the keyed image from the ELF core and from LiME
for form in elf lime; do
	"$E4DUMP" extract --memory "$kimg.capture.$form" "$kimg" -o "$W/mem-$form" 2>"$W/mem-$form.err" &&
		ok || bad "extract --memory $form exited $?: $(head -3 "$W/mem-$form.err")"
	check_extract -q "$kimg.manifest" "$W/mem-$form" >"$W/memcheck-$form" 2>&1 && ok ||
		bad "extract --memory $form: $(grep -m5 FAIL "$W/memcheck-$form"; tail -1 "$W/memcheck-$form")"
done
# and with the no-key capture, nothing opens: every tree stays locked
"$E4DUMP" extract --memory "$nimg.capture.raw" "$kimg" -o "$W/mem-none" >/dev/null 2>"$W/mem-none.err"
check "extract --memory of the no-key capture: exit 1, no file of an encrypted tree written" \
	'[ $? = 1 ] && [ -z "$(find "$W/mem-none" -type f -path "*/v[12]*" 2>/dev/null)" ]'

# threads: the same records whatever their number
for t in 1 2; do
	"$E4DUMP" keyscan --image "$kimg" --json --threads $t "$kimg.capture.raw" 2>"$W/ks-t$t.err" |
		grep -v '"type":"summary"' | LC_ALL=C sort >"$W/ks-t$t.sorted"
done
check "keyscan --threads 2 differs from --threads 1" \
	'[ -s "$W/ks-t1.sorted" ] && cmp -s "$W/ks-t1.sorted" "$W/ks-t2.sorted"'

# a capture without keys: nothing, with or without an image
for form in elf raw lime; do
	"$E4DUMP" keyscan --json "$nimg.capture.$form" >"$W/nk-$form.json" 2>"$W/nk-$form.err"
	rc=$?
	check "keyscan of the no-key capture ($form): exit $rc, want 0" '[ $rc = 0 ]'
	checker "nokey-$form" kchk none "$W/nk-$form.json"
	"$E4DUMP" keyscan --json --image "$kimg" "$nimg.capture.$form" >"$W/nki-$form.json" \
		2>"$W/nki-$form.err"
	rc=$?
	check "keyscan --image keyed of the no-key capture ($form): exit $rc, want 1" '[ $rc = 1 ]'
	checker "nokey-image-$form" kchk none "$W/nki-$form.json" "$npol"
done

# the keyed capture against images whose policies it holds no key of
"$E4DUMP" keyscan --json --image "$W/sample.img" "$kimg.capture.raw" >"$W/fs.json" 2>"$W/fs.err"
rc=$?
check "keyscan --image sample of the keyed capture: exit $rc, want 1" '[ $rc = 1 ]'
checker foreign-sample kchk foreign "$W/fs.json" 1
# the no-key guest's image has no policy: every policy (none) is found
"$E4DUMP" keyscan --json --image "$nimg" "$kimg.capture.lime" >"$W/fn.json" 2>"$W/fn.err"
rc=$?
check "keyscan --image nokey of the keyed capture: exit $rc, want 0" '[ $rc = 0 ]'
checker foreign-nokey kchk foreign "$W/fn.json" 0
finish
