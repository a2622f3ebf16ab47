#!/usr/bin/env python3
"""Partition tables whose entries are odd, written from scratch (16 MiB
disks of 512-byte sectors), for tests/cli/volumes_hostile.sh.

usage: hostile_tables.py KIND OUT [FS]
  gpt-unusable  GPT (FirstUsableLBA 2048): entries 1, 2 fine; 3 at LBA
                100-1099 (before the usable area); 4 at 32700-32766 (past
                LastUsableLBA 32734)
  gpt-overlap   GPT: 1 at 2048-6143; 2 at 10240-18431 holding FS; 3 at
                16384-20479, overlapping 2
  gpt-backwards GPT: 1, 2 fine; 3 first LBA 20000, last LBA 10000; 4 at
                40000-41000, past the end of the disk (32768 sectors)
  mbr-pastend   MBR: 1 at 2048 (2048 sectors); 2 at 4096 (4096); 3 at
                30000 (4096: runs 1328 sectors past the end); 4 at 40000
                (2048: starts past the end)
  mbr-overlap   MBR: 1 at 2048 (8192); 2 at 8192 (4096), overlapping 1;
                3 at 20480 (2048) holding FS
  gpt-4k        GPT of 4096-byte sectors (4096 of them): 1 at LBA 256-511;
                2 at 1280-2303 holding FS; 3 at 2000-2100, overlapping 2
  mbr-loop      MBR: 1 at 2048 (2048); 2 extended at 4096 (24576).  EBRs
                at 4096, 8192, 12288, each with a logical partition 2048
                sectors after it (2048 sectors); the third links back to
                the second (start 4096 relative to the extended one)

FS, when given, is an image written where the kind says.  Layouts: UEFI
2.10 5.2 (MBR: entries at 446, 16 bytes: type at 4, start LBA at 8,
sectors at 12; 0x55aa at 510) and 5.3 (GPT header at LBA 1: MyLBA at 24,
AlternateLBA 32, FirstUsableLBA 40, LastUsableLBA 48, DiskGUID 56,
PartitionEntryLBA 72, NumberOfPartitionEntries 80, SizeOfPartitionEntry
84, PartitionEntryArrayCRC32 88, HeaderCRC32 of the 92 bytes at 16;
entries: type GUID, unique GUID, first LBA 32, last LBA 40, name 56);
EBRs as Linux's block/partitions/msdos.c follows them (data entry
relative to its EBR, link relative to the extended partition).
"""
import struct
import sys
import zlib

SECTORS = 32768
LINUX = bytes.fromhex("af3dc60f838472478e793d69d8477de4")  # 0fc63daf-8483-...


def mbr_entry(b, at, i, ptype, start, count):
    struct.pack_into("<BBBBBBBBII", b, at + 446 + 16 * i,
                     0, 0, 0, 0, ptype, 0, 0, 0, start, count)
    b[at + 510:at + 512] = b"\x55\xaa"


def gpt(b, entries, first_usable=34, ss=512):
    sectors = len(b) // ss
    last_usable = sectors - 34 if ss == 512 else sectors - 6
    mbr_entry(b, 0, 0, 0xee, 1, min(len(b) // 512 - 1, 0xffffffff))
    array = bytearray(128 * 128)
    for i, (first, last) in enumerate(entries):
        e = 128 * i
        array[e:e + 16] = LINUX
        array[e + 16:e + 32] = struct.pack("<IHH8s", 0x1000 + i, 1, 2, b"e4dump t")
        struct.pack_into("<QQ", array, e + 32, first, last)
        name = ("part%d" % (i + 1)).encode("utf-16-le")
        array[e + 56:e + 56 + len(name)] = name
    crc = zlib.crc32(bytes(array))
    tail = len(array) // ss + 1
    for lba, alt, arr in ((1, sectors - 1, 2), (sectors - 1, 1, sectors - tail)):
        h = bytearray(92)
        h[0:8] = b"EFI PART"
        struct.pack_into("<IIII", h, 8, 0x10000, 92, 0, 0)
        struct.pack_into("<QQQQ", h, 24, lba, alt, first_usable, last_usable)
        h[56:72] = bytes(range(1, 17))
        struct.pack_into("<QIII", h, 72, arr, 128, 128, crc)
        struct.pack_into("<I", h, 16, zlib.crc32(bytes(h)))
        b[lba * ss:lba * ss + 92] = h
        b[arr * ss:arr * ss + len(array)] = array


def main(kind, out, fs=None):
    b = bytearray(SECTORS * 512)
    fs_at = None
    if kind == "gpt-unusable":
        gpt(b, [(2048, 4095), (4096, 8191), (100, 1099), (32700, 32766)], 2048)
    elif kind == "gpt-overlap":
        gpt(b, [(2048, 6143), (10240, 18431), (16384, 20479)])
        fs_at = 10240
    elif kind == "gpt-backwards":
        gpt(b, [(2048, 4095), (4096, 8191), (20000, 10000), (40000, 41000)])
    elif kind == "gpt-4k":
        gpt(b, [(256, 511), (1280, 2303), (2000, 2100)], 6, 4096)
        fs_at = 1280 * 8
    elif kind == "mbr-pastend":
        for i, (s, n) in enumerate([(2048, 2048), (4096, 4096), (30000, 4096), (40000, 2048)]):
            mbr_entry(b, 0, i, 0x83, s, n)
    elif kind == "mbr-overlap":
        for i, (s, n) in enumerate([(2048, 8192), (8192, 4096), (20480, 2048)]):
            mbr_entry(b, 0, i, 0x83, s, n)
        fs_at = 20480
    elif kind == "mbr-loop":
        ext = 4096
        mbr_entry(b, 0, 0, 0x83, 2048, 2048)
        mbr_entry(b, 0, 1, 0x05, ext, 24576)
        for ebr, link in ((4096, 4096), (8192, 8192), (12288, 4096)):
            mbr_entry(b, ebr * 512, 0, 0x83, 2048, 2048)
            mbr_entry(b, ebr * 512, 1, 0x05, link, 4096)
    else:
        sys.exit(__doc__)
    if fs is not None and fs_at is not None:
        with open(fs, "rb") as f:
            data = f.read()
        b[fs_at * 512:fs_at * 512 + len(data)] = data
    with open(out, "wb") as f:
        f.write(b)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
