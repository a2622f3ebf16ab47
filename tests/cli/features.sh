#!/bin/bash
# Unknown incompat features: libext2fs refuses them, and so does e4dump,
# except encrypt_2015 (0x80000000), the marker of the 2015 format
# (kernel-patches/, spec section 12.1): with it alone, info reports the
# 2015 format and why, text and JSON; with any other unknown bit, or with it
# and another, the image is refused with one clear error.  The image itself
# stays unchanged.  (The kernel-written marker is tested by kernel.marker.)
# usage: features.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$2"
sample img

# set_incompat IMAGE BITS: OR BITS into s_feature_incompat
set_incompat() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1024 + 0x60)
    v = struct.unpack("<I", f.read(4))[0] | int(sys.argv[2], 0)
    f.seek(1024 + 0x60)
    f.write(struct.pack("<I", v))
PY
}

must_run "info (plain)" "$W/info0" -- "$E4DUMP" info "$W/img" &&
	check "plain: $(grep -E 'encrypt_2015|name format' "$W/info0")" \
		'grep -qx "encrypt_2015 feature: no" "$W/info0" &&
		 grep -qx "name format: Linux 6.1 (no evidence of the 2015 format)" "$W/info0"'

cp "$W/img" "$W/m.img"
set_incompat "$W/m.img" 0x80000000
sum=$(sha256sum <"$W/m.img")
must_run "info (marked)" "$W/info1" -- "$E4DUMP" info "$W/m.img" &&
	check "marked: $(grep -E 'encrypt_2015|name format' "$W/info1")" \
		'grep -qx "encrypt_2015 feature: yes" "$W/info1" &&
		 grep -qx "name format: 2015 (encrypt_2015 feature)" "$W/info1"'
must_run "info --json (marked)" "$W/json1" -- "$E4DUMP" info --json "$W/m.img" &&
	check "marked JSON: $(head -1 "$W/json1" | cut -c1-200)" \
		'head -1 "$W/json1" | /usr/bin/python3 -c "import json, sys
r = json.load(sys.stdin)
sys.exit(not (r[\"encrypt_2015_feature\"] is True and r[\"name_format\"] == \"2015\"
              and r[\"name_format_why\"] == \"encrypt_2015 feature\"))"'
# --format overrides the feature
must_run "info --format 6.1 (marked)" "$W/info2" -- "$E4DUMP" info --format 6.1 "$W/m.img" &&
	check "--format 6.1: $(grep 'name format' "$W/info2")" \
		'grep -qx "name format: Linux 6.1 (--format option)" "$W/info2"'
check "e4dump left the marked image unchanged" '[ "$(sha256sum <"$W/m.img")" = "$sum" ]'

# 0x80000008: encrypt_2015 with journal_dev, which the forced open would let through
for bits in 0x40000000 0xc0000000 0x00040000 0x80000008; do
	cp "$W/img" "$W/u.img"
	set_incompat "$W/u.img" $bits
	expect "unknown incompat $bits" 2 "cannot open as ext4: Filesystem has unsupported feature" -- \
		"$E4DUMP" info "$W/u.img"
	check "one error line for $bits: $(cat "$W/err")" '[ "$(grep -c . "$W/err")" = 1 ]'
done
finish
