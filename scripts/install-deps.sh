#!/bin/bash
# Install the Debian 12 packages e4dump needs to build and test (as root).
# Does nothing when they are all present.
set -eu
pkgs=(
	build-essential cmake pkg-config
	libext2fs-dev comerr-dev e2fsprogs libssl-dev check libjson-c-dev
	qemu-system-x86 linux-source-6.1 flex bison bc libelf-dev cpio xz-utils patch
	python3 python3-pycryptodome clang strace valgrind gdb
	sleuthkit time
	libewf-dev libqcow-dev libvhdi-dev libvmdk-dev ewf-tools qemu-utils
	android-sdk-libsparse-utils
	libsmraw-dev libblkid-dev android-libsparse-dev gdisk fdisk
)
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
