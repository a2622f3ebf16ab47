#!/usr/bin/env python3
"""Hostile containers for tests/cli/containers_hostile.sh, made from
files qemu-img and ewfacquire wrote.

  qcow-tail IN OUT WHAT GUEST_OFFSET
      a copy of the qcow2 (version 2 or 3) or qcow (version 1) file IN
      padded with zeros to a multiple of its cluster size, in which the
      table entry WHAT names the file's final 512 bytes: WHAT "l2" is the
      L1 entry of the L2 table that maps GUEST_OFFSET, "data" the L2
      entry of the data cluster that holds it.  Host offsets are only
      512-aligned in an entry (qcow2.txt), so the table or cluster starts
      inside the file and runs past its end.  libqcow rounds a version 1
      offset down to a cluster boundary: that file is padded to a multiple
      of the cluster size and 512 bytes more, its final 512 bytes a
      cluster of their own.
  ewf-guid SEGMENT... HEX
      set the segment file set identifier GUID (EWF.asciidoc: bytes 64-79
      of the volume, disk and data sections' data) of each segment to the
      16 bytes HEX, with the sections' Adler-32 (bytes 1048-1051) redone,
      as EnCase writes a random one for each acquisition.
"""
import struct
import sys
import zlib


def be64(b, o):
    return struct.unpack_from(">Q", b, o)[0]


def qcow_tail(src, dst, what, guest):
    d = bytearray(open(src, "rb").read())
    if d[:4] != b"QFI\xfb":
        sys.exit("not a qcow file")
    version = struct.unpack_from(">I", d, 4)[0]
    if version == 1:
        # QCowHeader: cluster_bits at 32, l2_bits at 33, l1 offset at 40
        cbits, l2bits, l1_off = d[32], d[33], be64(d, 40)
        mask, flags = (1 << 63) - 1, 0
    else:
        cbits, l1_off = struct.unpack_from(">I", d, 20)[0], be64(d, 40)
        l2bits = cbits - 3
        mask, flags = 0x00FFFFFFFFFFFE00, 1 << 63  # COPIED: refcount 1
    cs = 1 << cbits
    d += bytes(-len(d) % cs)
    if version == 1:
        d += bytes(512)
    final = len(d) - 512
    l1i, l2i = guest >> (cbits + l2bits), (guest >> cbits) & ((1 << l2bits) - 1)
    if what == "l2":
        struct.pack_into(">Q", d, l1_off + 8 * l1i, final | flags)
    else:
        l2 = be64(d, l1_off + 8 * l1i) & mask
        if not l2 or not be64(d, l2 + 8 * l2i):
            sys.exit("guest offset %d is not allocated" % guest)
        struct.pack_into(">Q", d, l2 + 8 * l2i, final | flags)
    open(dst, "wb").write(d)


def ewf_guid(paths, guid):
    for p in paths:
        d = bytearray(open(p, "rb").read())
        off, seen = 13, set()
        while off + 76 <= len(d) and off not in seen:
            seen.add(off)
            kind = bytes(d[off:off + 16]).rstrip(b"\0")
            nxt, size = struct.unpack_from("<QQ", d, off + 16)
            if kind in (b"volume", b"disk", b"data") and size >= 76 + 1052:
                v = off + 76
                d[v + 64:v + 80] = guid
                struct.pack_into("<I", d, v + 1048, zlib.adler32(bytes(d[v:v + 1048])))
            if kind in (b"done", b"next") or nxt <= off:
                break
            off = nxt
        open(p, "wb").write(d)


def main():
    if sys.argv[1] == "qcow-tail":
        qcow_tail(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "ewf-guid":
        ewf_guid(sys.argv[2:-1], bytes.fromhex(sys.argv[-1]))
    else:
        sys.exit(__doc__)


main()
