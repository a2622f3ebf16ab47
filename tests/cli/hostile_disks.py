#!/usr/bin/env python3
"""Hostile variants of the disks tests/cli/volumes.sh builds, each a
regression test of a finding (tests/cli/volumes.sh says what each must do).

usage: hostile_disks.py KIND IN OUT
  ebr-slot3      MBR: the link to the next EBR in entry 3 instead of 2
  past-end       MBR: logical partition 6 claims 8 MiB; the image ends 4 MiB in
  gpt-alt-bad    GPT: primary header's AlternateLBA wrong (so its CRC fails)
  gpt-name-magic GPT: partition 1's name puts ext4's magic at byte 1080
  gpt-huge-array GPT: both headers claim 16M entries (valid CRCs), 8 GiB disk
  sparse-bs0     Android sparse: block size 0
  sparse-chunks  Android sparse: 2^20 chunks claimed

Layouts: MBR and GPT as UEFI 2.10 5.2-5.3 define them (MBR entries at
446, 16 bytes: type at 4, start LBA at 8, sectors at 12; GPT header at
LBA 1: AlternateLBA at 32, PartitionEntryLBA at 72, entries at 80, entry
size at 84, CRC32 of the 92-byte header at 16); Android sparse as AOSP
libsparse/sparse_format.h (block size at 12, chunk count at 20).
"""
import shutil
import struct
import sys
import zlib


def gpt_crc(b, at):
    h = bytearray(b[at:at + 92])
    h[16:20] = b"\0\0\0\0"
    struct.pack_into("<I", b, at + 16, zlib.crc32(bytes(h)))


def main(kind, src, dst):
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        b = bytearray(f.read())
        if kind in ("ebr-slot3", "past-end"):
            ext = next(struct.unpack_from("<I", b, 446 + 16 * i + 8)[0]
                       for i in range(4) if b[446 + 16 * i + 4] in (5, 0xf, 0x85))
            ebr, chain = ext, []
            while True:
                chain.append(ebr)
                link = struct.unpack_from("<I", b, ebr * 512 + 446 + 16 + 8)[0]
                if not link:
                    break
                ebr = ext + link
            if kind == "ebr-slot3":
                first = chain[0] * 512
                b[first + 446 + 32:first + 446 + 48] = b[first + 446 + 16:first + 446 + 32]
                b[first + 446 + 16:first + 446 + 32] = bytes(16)
            else:
                last = chain[-1] * 512
                start = chain[-1] + struct.unpack_from("<I", b, last + 446 + 8)[0]
                struct.pack_into("<I", b, last + 446 + 12, 16384)
                del b[(start + 8192) * 512:]
        elif kind == "gpt-alt-bad":
            struct.pack_into("<Q", b, 512 + 32, 77)
        elif kind == "gpt-name-magic":
            b[1080:1082] = b"\x53\xef"
        elif kind == "gpt-huge-array":
            size = 8 << 30
            last = len(b) // 512 - 1
            backup = bytearray(b[last * 512:last * 512 + 92])
            b[last * 512:last * 512 + 512] = bytes(512)
            struct.pack_into("<Q", b, 512 + 32, size // 512 - 1)
            struct.pack_into("<I", b, 512 + 80, 1 << 24)
            gpt_crc(b, 512)
            struct.pack_into("<Q", backup, 24, size // 512 - 1)
            struct.pack_into("<I", backup, 80, 1 << 24)
            gpt_crc(backup, 0)
            f.seek(0)
            f.write(b)
            f.truncate(size)
            f.seek(size - 512)
            f.write(backup)
            return
        elif kind == "sparse-bs0":
            struct.pack_into("<I", b, 12, 0)
        elif kind == "sparse-chunks":
            struct.pack_into("<I", b, 20, 1 << 20)
        else:
            sys.exit(__doc__)
        f.seek(0)
        f.truncate(0)
        f.write(b)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
