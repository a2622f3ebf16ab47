#!/usr/bin/python3
"""The superblocks of an ext4 image, primary and backups, read and changed
by hand for tests/kernel/backups.sh and marker.sh (an independent reader:
tests/lib/ext4img.py's crc32c, the layout from Documentation/filesystems/
ext4/super.rst; sparse_super places backups in groups 1 and the powers of
3, 5 and 7).

usage: superblocks.py list IMG
           one line per superblock: GROUP OFFSET INCOMPAT(hex) csum-ok|csum-bad
       superblocks.py incompat IMG primary|backups|all set|clear MASK
           set or clear bits of s_feature_incompat, checksum recomputed
       superblocks.py break-csum IMG
           make the primary superblock's checksum wrong (one bit flipped)
       superblocks.py mount-opts IMG STRING
           s_mount_opts of the primary superblock (64 bytes, NUL-padded)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ext4img import crc32c  # noqa: E402

SB_SIZE = 1024
INCOMPAT = 0x60
MOUNT_OPTS, MOUNT_OPTS_LEN = 0x200, 64
CSUM = 0x3FC
RO_COMPAT_SPARSE_SUPER, RO_COMPAT_METADATA_CSUM = 0x1, 0x400


def is_power(n, base):
    while n > 1 and n % base == 0:
        n //= base
    return n == 1


def superblocks(f):
    """(group, byte offset) of every superblock, the primary first."""
    f.seek(1024)
    sb = f.read(SB_SIZE)
    blocks, first = struct.unpack_from("<I", sb, 0x4)[0], struct.unpack_from("<I", sb, 0x14)[0]
    log_bs, bpg = struct.unpack_from("<I", sb, 0x18)[0], struct.unpack_from("<I", sb, 0x20)[0]
    ro_compat = struct.unpack_from("<I", sb, 0x64)[0]
    bs = 1024 << log_bs
    groups = -(-(blocks - first) // bpg)
    out = [(0, 1024)]
    for g in range(1, groups):
        if (ro_compat & RO_COMPAT_SPARSE_SUPER and
                not (g == 1 or is_power(g, 3) or is_power(g, 5) or is_power(g, 7))):
            continue
        out.append((g, (first + g * bpg) * bs))
    return out, bool(ro_compat & RO_COMPAT_METADATA_CSUM)


def csum(buf):
    return crc32c(0xFFFFFFFF, bytes(buf[:CSUM]))


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, path = argv[1], argv[2]
    with open(path, "rb" if cmd == "list" else "r+b") as f:
        sbs, has_csum = superblocks(f)
        if cmd == "list":
            for g, off in sbs:
                f.seek(off)
                buf = f.read(SB_SIZE)
                ok = not has_csum or struct.unpack_from("<I", buf, CSUM)[0] == csum(buf)
                print(g, off, "%08x" % struct.unpack_from("<I", buf, INCOMPAT)[0],
                      "csum-ok" if ok else "csum-bad")
            return
        if cmd == "incompat":
            which, op, mask = argv[3], argv[4], int(argv[5], 0)
            sel = {"primary": sbs[:1], "backups": sbs[1:], "all": sbs}[which]
        elif cmd in ("break-csum", "mount-opts"):
            sel = sbs[:1]
        else:
            sys.exit(__doc__)
        for g, off in sel:
            f.seek(off)
            buf = bytearray(f.read(SB_SIZE))
            if cmd == "break-csum":
                buf[CSUM] ^= 1
            else:
                if cmd == "incompat":
                    v = struct.unpack_from("<I", buf, INCOMPAT)[0]
                    v = v | mask if op == "set" else v & ~mask
                    struct.pack_into("<I", buf, INCOMPAT, v)
                else:
                    opts = argv[3].encode()
                    if len(opts) >= MOUNT_OPTS_LEN:
                        sys.exit("mount options too long")
                    buf[MOUNT_OPTS:MOUNT_OPTS + MOUNT_OPTS_LEN] = opts.ljust(MOUNT_OPTS_LEN, b"\0")
                if has_csum:
                    struct.pack_into("<I", buf, CSUM, csum(buf))
            f.seek(off)
            f.write(buf)


if __name__ == "__main__":
    main(sys.argv)
