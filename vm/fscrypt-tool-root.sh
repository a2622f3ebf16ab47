#!/bin/bash
# The files a scenario with `@fscrypt-tool` adds to the guest's initramfs
# (vm/make-image.sh; vm/README.md, "Running a program"): Debian's `fscrypt`
# binary (package fscrypt 0.3.3), the dynamic loader and every library `ldd`
# lists for it and for pam_unix.so, pam_unix.so itself, and the few /etc
# files they read.  The guest has no shell: /init runs the tool (scenario
# command `run`).
#
# Usage: vm/fscrypt-tool-root.sh ROOTDIR
#   ROOTDIR: the initramfs tree (made if missing); files are added to it.
set -euo pipefail

die() { echo "fscrypt-tool-root: error: $*" >&2; exit 1; }
[ $# = 1 ] || die "usage: $0 ROOTDIR"
root=$1
tool=${E4DUMP_FSCRYPT_BIN:-/usr/bin/fscrypt}
pam_unix=/lib/x86_64-linux-gnu/security/pam_unix.so
[ -x "$tool" ] || die "$tool not found (apt-get install fscrypt)"
[ -r "$pam_unix" ] || die "$pam_unix not found (apt-get install libpam-modules)"

# copy FILE to ROOT/DEST (DEST: the path the program asks for; the file
# itself when it is a symlink, e.g. /lib64/ld-linux-x86-64.so.2)
put() {
	local src=$1 dest=$2
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest" || die "copy $src"
}

mkdir -p "$root"/{etc/pam.d,tmp,sys,usr/bin}
chmod 1777 "$root/tmp"
put "$tool" /usr/bin/fscrypt
put "$pam_unix" "$pam_unix"
# "libx.so.N => /path (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
for bin in "$tool" "$pam_unix"; do
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	put "$lib" "$lib"
done
[ -f "$root/lib64/ld-linux-x86-64.so.2" ] || die "ldd named no dynamic loader"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
EOF
cat >"$root/etc/shadow" <<'EOF'
root:*:19000:0:99999:7:::
EOF
chmod 0600 "$root/etc/shadow"
cat >"$root/etc/nsswitch.conf" <<'EOF'
passwd: files
group: files
shadow: files
EOF
# `fscrypt` checks a login passphrase with PAM service "fscrypt"
# (pam.IsUserLoginToken); pam_unix, running as root, reads /etc/shadow.
cat >"$root/etc/pam.d/fscrypt" <<EOF
auth required $pam_unix
account required $pam_unix
EOF
