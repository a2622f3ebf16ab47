#!/bin/bash
# Install the Debian 12 packages e4dump needs (as root).  Does nothing when
# they are all present, so it also runs as any user then.
#   install-deps.sh          to build and test (the test command)
#   install-deps.sh --tool   to build and run the tool only (scripts/demo.sh)
set -eu
tool=(
	build-essential cmake pkg-config xz-utils libxml2-dev uuid-dev
	libext2fs-dev comerr-dev e2fsprogs libssl-dev libjson-c-dev
	libewf-dev libqcow-dev libvhdi-dev libvmdk-dev libsmraw-dev libbfio-dev libblkid-dev
	android-libsparse-dev libfuse3-dev fuse3
	libprotobuf-c-dev protobuf-c-compiler libargon2-dev
	python3-dev
)
tests=(
	check qemu-system-x86 linux-source-6.1 flex bison bc libelf-dev cpio patch
	python3 python3-pycryptodome python3-markdown clang strace valgrind gdb
	sleuthkit ext4magic extundelete aeskeyfind time attr acl libxml2-utils python3-jsonschema
	ewf-tools qemu-utils android-sdk-libsparse-utils gdisk fdisk
	argon2 python3-argon2 python3-protobuf python3-cryptography fscrypt libpam-modules openssl
	python3-libewf
)
if [ "${1:-}" = --tool ]; then
	pkgs=("${tool[@]}")
else
	pkgs=("${tool[@]}" "${tests[@]}")
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
