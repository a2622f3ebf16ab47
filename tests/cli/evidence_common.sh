# What the evidence_*.sh tests share; source it after common.sh, with
# E4DUMP and WORKDIR as their arguments:
#   evidence_setup E4DUMP WORKDIR TOOLS...  W, E4DUMP; give_up unless each
#                            of TOOLS (and mke2fs) is installed; $W/vol.raw:
#                            an 8 MiB ext4 volume (4 KiB blocks) by
#                            mke2fs -d from $W/src: /h, text whose every
#                            byte is known, and /big, 3000000 random bytes
#   fs_declared IMAGE        s_blocks_count x block size, from dumpe2fs -h
evidence_setup() {
	E4DUMP=$1
	workdir "$2"
	shift 2
	for t in mke2fs "$@"; do
		command -v "$t" >/dev/null || give_up "$t not installed (scripts/install-deps.sh)"
	done
	mkdir -p "$W/src"
	python3 -c 'import sys; sys.stdout.buffer.write(b"".join(b"evidence line %06d\n" % i for i in range(2000)))' >"$W/src/h"
	head -c 3000000 /dev/urandom >"$W/src/big"
	mke2fs -q -F -b 4096 -t ext4 -d "$W/src" "$W/vol.raw" 8M >"$W/mke2fs.log" 2>&1 ||
		give_up "mke2fs: $(tail -3 "$W/mke2fs.log")"
}

fs_declared() {
	local bs bc
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	bc=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block count: *//p')
	echo $((bc * bs))
}
