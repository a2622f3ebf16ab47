"""ext4img: read and edit ext4 images, for the tests.

An independent reader of the on-disk format (struct and a Python crc32c;
no e4dump code, no libext2fs bindings; debugfs() runs debugfs for what is
easier there, such as creating inodes).  It is meant for crafting hostile
images as much as for reading kernel-written ones, so readers bound what
they follow (ExtError on a malformed structure) and every structure can
also be built from scratch.

    im = Image(path)                    # read-only; Image(path, write=True)
    im.bs, im.inode_size, im.groups, im.has(INCOMPAT_64BIT)
    ino = im.lookup(b"/plain/sub")      # raw names, no decryption
    i = im.inode(ino)                   # i.mode, i.size, i.flags, i.block ...
    im.block_map(ino)                   # [Extent(lblk, pblk, len, unwritten)]
    im.dir_entries(ino)                 # [Dirent(off, ino, rec_len, ...)]
    im.xattrs(ino), im.context(ino)     # the encryption context: index 9, "c"
    im.write_inode(ino, {"size": 5, "links_count": 2})
    new = im.alloc_blocks(3)            # marked in use in the block bitmap
    im.write_block(new[0], data)
    build_dir_blocks(entries, bs), build_extent_tree(runs, tree_blocks, bs)

Checksums (metadata_csum): write_inode, write_dir_block, set_xattr_value,
write_extent_tree and alloc_blocks recompute what they change (inode,
directory block tail, xattr block, extent tree blocks, bitmaps, group
descriptor, superblock) unless called with csum=False; write() and
write_block() write bytes as given.  check_csums() lists what is stale.
Not handled: meta_bg and sparse_super2 layouts, bigalloc, uninit_bg
(crc16) group checksums, htree node checksums (dx_tail), the journal.

Only the geometry (block size, group layout, features) is cached; inodes,
group descriptors and blocks are read from the file each time, so debugfs
-w edits between calls are seen (reopen after changing features).
"""
import collections
import os
import struct
import subprocess

# Features: (superblock word, bit), for Image.has().
COMPAT_RESIZE_INODE, COMPAT_SPARSE_SUPER2 = ("compat", 0x10), ("compat", 0x200)
INCOMPAT_FILETYPE, INCOMPAT_META_BG = ("incompat", 0x2), ("incompat", 0x10)
INCOMPAT_EXTENTS, INCOMPAT_64BIT = ("incompat", 0x40), ("incompat", 0x80)
INCOMPAT_CSUM_SEED, INCOMPAT_INLINE_DATA = ("incompat", 0x2000), ("incompat", 0x8000)
INCOMPAT_ENCRYPT, INCOMPAT_CASEFOLD = ("incompat", 0x10000), ("incompat", 0x20000)
RO_COMPAT_SPARSE_SUPER, RO_COMPAT_GDT_CSUM = ("ro_compat", 0x1), ("ro_compat", 0x10)
RO_COMPAT_BIGALLOC, RO_COMPAT_METADATA_CSUM = ("ro_compat", 0x200), ("ro_compat", 0x400)
# Inode flags, group descriptor flags, modes, file types, magic numbers.
ENCRYPT_FL, INDEX_FL, EXTENTS_FL = 0x800, 0x1000, 0x80000
INLINE_DATA_FL, CASEFOLD_FL = 0x10000000, 0x40000000
BG_BLOCK_UNINIT = 0x2
S_IFMT, S_IFDIR, S_IFREG, S_IFLNK = 0o170000, 0o040000, 0o100000, 0o120000
FT_REG, FT_DIR, FT_LNK = 1, 2, 7
XATTR_MAGIC, EXTENT_MAGIC = 0xEA020000, 0xF30A
XATTR_INDEX_ENCRYPTION = 9
MAX_EXTENT_DEPTH = 5            # what the kernel accepts (EXT4_MAX_EXTENT_DEPTH)


class ExtError(Exception):
    """A structure of the image is malformed (or not supported here)."""


# ------------------------------------------------------------------ crc32c
def _crc_table():
    t = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        t.append(c)
    return t


_CRC = _crc_table()


def crc32c(crc, data):
    """The raw Castagnoli CRC update of the kernel and libext2fs (no
    inversion before or after): crc32c(~0, b) ^ ~0 is the usual CRC32C."""
    for b in data:
        crc = _CRC[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def le32(n):
    return struct.pack("<I", n & 0xFFFFFFFF)


# ------------------------------------------------------------------ layouts
# (name, offset, struct format): the fields a test may read or change.
SB_FIELDS = [
    ("inodes_count", 0x0, "I"), ("blocks_count_lo", 0x4, "I"),
    ("free_blocks_count_lo", 0xC, "I"), ("free_inodes_count", 0x10, "I"),
    ("first_data_block", 0x14, "I"), ("log_block_size", 0x18, "I"),
    ("blocks_per_group", 0x20, "I"), ("clusters_per_group", 0x24, "I"),
    ("inodes_per_group", 0x28, "I"), ("magic", 0x38, "H"), ("state", 0x3A, "H"),
    ("rev_level", 0x4C, "I"), ("first_ino", 0x54, "I"), ("inode_size", 0x58, "H"),
    ("feature_compat", 0x5C, "I"), ("feature_incompat", 0x60, "I"),
    ("feature_ro_compat", 0x64, "I"), ("uuid", 0x68, "16s"),
    ("volume_name", 0x78, "16s"), ("reserved_gdt_blocks", 0xCE, "H"),
    ("last_orphan", 0xE8, "I"),
    ("hash_seed", 0xEC, "16s"), ("def_hash_version", 0xFC, "B"),
    ("desc_size", 0xFE, "H"), ("blocks_count_hi", 0x150, "I"),
    ("free_blocks_count_hi", 0x158, "I"), ("min_extra_isize", 0x15C, "H"),
    ("flags", 0x160, "I"), ("checksum_type", 0x175, "B"),
    ("encryption_level", 0x176, "B"), ("encrypt_pw_salt", 0x258, "16s"),
    ("checksum_seed", 0x270, "I"), ("encoding", 0x27C, "H"),
    ("encoding_flags", 0x27E, "H"), ("checksum", 0x3FC, "I"),
]
# Group descriptor: *_lo in the first 32 bytes, *_hi from 0x20 (64bit).
GD_FIELDS = [
    ("block_bitmap", 0x0, 0x20, "I"), ("inode_bitmap", 0x4, 0x24, "I"),
    ("inode_table", 0x8, 0x28, "I"), ("free_blocks_count", 0xC, 0x2C, "H"),
    ("free_inodes_count", 0xE, 0x2E, "H"), ("used_dirs_count", 0x10, 0x30, "H"),
    ("flags", 0x12, None, "H"), ("block_bitmap_csum", 0x18, 0x38, "H"),
    ("inode_bitmap_csum", 0x1A, 0x3A, "H"), ("itable_unused", 0x1C, 0x32, "H"),
    ("checksum", 0x1E, None, "H"),
]
INODE_FIELDS = [
    ("mode", 0x0, "H"), ("uid", 0x2, "H"), ("size_lo", 0x4, "I"),
    ("atime", 0x8, "I"), ("ctime", 0xC, "I"), ("mtime", 0x10, "I"),
    ("dtime", 0x14, "I"), ("gid", 0x18, "H"), ("links_count", 0x1A, "H"),
    ("blocks_lo", 0x1C, "I"), ("flags", 0x20, "I"), ("version", 0x24, "I"),
    ("block", 0x28, "60s"), ("generation", 0x64, "I"), ("file_acl_lo", 0x68, "I"),
    ("size_high", 0x6C, "I"), ("blocks_high", 0x74, "H"),
    ("file_acl_high", 0x76, "H"), ("uid_high", 0x78, "H"), ("gid_high", 0x7A, "H"),
    ("checksum_lo", 0x7C, "H"),
    # i_extra_isize says how many of these exist (from 0x80 on)
    ("extra_isize", 0x80, "H"), ("checksum_hi", 0x82, "H"),
    ("ctime_extra", 0x84, "I"), ("mtime_extra", 0x88, "I"),
    ("atime_extra", 0x8C, "I"), ("crtime", 0x90, "I"), ("crtime_extra", 0x94, "I"),
    ("version_hi", 0x98, "I"), ("projid", 0x9C, "I"),
]
# Fields kept in two halves, set and read as one number.
SPLIT = {"size": ("size_lo", "size_high", 32), "blocks": ("blocks_lo", "blocks_high", 32),
         "file_acl": ("file_acl_lo", "file_acl_high", 32)}


def unpack_fields(table, buf, limit=None):
    out = {}
    for name, off, fmt in table:
        n = struct.calcsize("<" + fmt)
        if off + n <= (len(buf) if limit is None else limit):
            out[name] = struct.unpack_from("<" + fmt, buf, off)[0]
    return out


def pack_fields(table, buf, fields, limit=None):
    """Write fields (names of table) into the bytearray buf."""
    where = {name: (off, fmt) for name, off, fmt in table}
    for name, value in fields.items():
        off, fmt = where[name]
        if off + struct.calcsize("<" + fmt) > (len(buf) if limit is None else limit):
            raise ExtError(f"field {name} is outside this structure")
        struct.pack_into("<" + fmt, buf, off, value)


class Inode:
    """One inode: every field of INODE_FIELDS as an attribute (an extra
    field that i_extra_isize does not cover is None), size, blocks and
    file_acl with both halves, and raw (the inode's inode_size bytes)."""

    def __init__(self, ino, raw):
        self.ino, self.raw = ino, bytes(raw)
        extra = struct.unpack_from("<H", raw, 0x80)[0] if len(raw) > 128 else 0
        vals = unpack_fields(INODE_FIELDS, raw, 128 + extra)
        if len(raw) > 128:
            vals["extra_isize"] = extra
        for name, _, _ in INODE_FIELDS:
            setattr(self, name, vals.get(name))
        for name, (lo, hi, shift) in SPLIT.items():
            setattr(self, name, vals[lo] | (vals[hi] << shift))

    def is_dir(self):
        return self.mode & S_IFMT == S_IFDIR

    def is_reg(self):
        return self.mode & S_IFMT == S_IFREG

    def is_symlink(self):
        return self.mode & S_IFMT == S_IFLNK

    def data_in_inode(self):
        """Inline data, or a fast symlink (ext2fs_is_fast_symlink): no map."""
        return bool(self.flags & INLINE_DATA_FL) or (
            self.is_symlink() and 0 < self.size < 60 and not self.flags & EXTENTS_FL)


Extent = collections.namedtuple("Extent", "lblk pblk len unwritten")
Dirent = collections.namedtuple("Dirent", "off ino rec_len name_len ftype name hash")
Xattr = collections.namedtuple(
    "Xattr", "index name value value_inum value_size hash entry_off value_off in_inode")
DxRoot = collections.namedtuple("DxRoot", "hash_version info_length levels limit count entries")


class Image:
    def __init__(self, path, write=False):
        self.path = path
        self.f = open(path, "r+b" if write else "rb", buffering=0)
        sb = self.superblock()
        if sb["magic"] != 0xEF53:
            raise ExtError(f"{path}: not ext2/3/4 (magic {sb['magic']:#x})")
        self.bs = 1024 << sb["log_block_size"]
        self.features = {w: sb["feature_" + w] for w in ("compat", "incompat", "ro_compat")}
        self.inode_size = sb["inode_size"] if sb["rev_level"] else 128
        self.ipg, self.bpg = sb["inodes_per_group"], sb["blocks_per_group"]
        self.first_data_block = sb["first_data_block"]
        self.blocks_count = sb["blocks_count_lo"] | (
            sb["blocks_count_hi"] << 32 if self.has(INCOMPAT_64BIT) else 0)
        self.groups = -(-(self.blocks_count - self.first_data_block) // self.bpg)
        self.desc_size = sb["desc_size"] if self.has(INCOMPAT_64BIT) else 32
        self.inodes_count = sb["inodes_count"]
        self.csum = self.has(RO_COMPAT_METADATA_CSUM)
        self.csum_seed = (sb["checksum_seed"] if self.has(INCOMPAT_CSUM_SEED)
                          else crc32c(0xFFFFFFFF, sb["uuid"]))
        if self.has(INCOMPAT_META_BG) or self.has(RO_COMPAT_BIGALLOC):
            raise ExtError(f"{path}: meta_bg and bigalloc are not supported")

    def close(self):
        self.f.close()

    def has(self, feature):
        """feature: one of the COMPAT_, INCOMPAT_, RO_COMPAT_ constants."""
        word, bit = feature
        return bool(self.features[word] & bit)

    # -- raw bytes -------------------------------------------------------
    def read(self, off, n):
        self.f.seek(off)
        data = self.f.read(n)
        if len(data) != n:
            raise ExtError(f"read of {n} bytes at {off} beyond the end of the image")
        return data

    def write(self, off, data):
        self.f.seek(off)
        self.f.write(data)

    def read_block(self, b):
        if not 0 <= b < self.blocks_count:
            raise ExtError(f"block {b} outside the filesystem")
        return self.read(b * self.bs, self.bs)

    def write_block(self, b, data):
        assert len(data) == self.bs, "write_block takes one whole block"
        self.write(b * self.bs, data)

    # -- superblock and group descriptors -----------------------------------
    def superblock(self):
        return unpack_fields(SB_FIELDS, self.read(1024, 1024))

    def write_superblock(self, fields, csum=True):
        buf = bytearray(self.read(1024, 1024))
        pack_fields(SB_FIELDS, buf, fields)
        if csum and self.csum:
            struct.pack_into("<I", buf, 0x3FC, crc32c(0xFFFFFFFF, buf[:0x3FC]))
        self.write(1024, buf)

    def _gd_offset(self, g):
        if not 0 <= g < self.groups:
            raise ExtError(f"group {g} out of range")
        return (self.first_data_block + 1) * self.bs + g * self.desc_size

    def group(self, g):
        raw = self.read(self._gd_offset(g), self.desc_size)
        out = {}
        for name, lo, hi, fmt in GD_FIELDS:
            out[name] = struct.unpack_from("<" + fmt, raw, lo)[0]
            if hi is not None and self.desc_size >= hi + struct.calcsize(fmt):
                out[name] |= struct.unpack_from("<" + fmt, raw, hi)[0] << (
                    8 * struct.calcsize(fmt))
        return out

    def write_group(self, g, fields, csum=True):
        off = self._gd_offset(g)
        buf = bytearray(self.read(off, self.desc_size))
        where = {name: (lo, hi, fmt) for name, lo, hi, fmt in GD_FIELDS}
        for name, value in fields.items():
            lo, hi, fmt = where[name]
            bits = 8 * struct.calcsize(fmt)
            struct.pack_into("<" + fmt, buf, lo, value & ((1 << bits) - 1))
            if hi is not None and self.desc_size >= hi + bits // 8:
                struct.pack_into("<" + fmt, buf, hi, value >> bits)
        if csum and self.csum:
            struct.pack_into("<H", buf, 0x1E, self._group_csum(g, buf))
        elif csum and self.has(RO_COMPAT_GDT_CSUM):
            raise ExtError("uninit_bg (crc16) group checksums are not supported")
        self.write(off, buf)

    def _group_csum(self, g, desc):
        """metadata_csum of a descriptor: crc32c of the group number and
        the descriptor with bg_checksum zeroed, low 16 bits."""
        buf = bytearray(desc)
        struct.pack_into("<H", buf, 0x1E, 0)
        return crc32c(crc32c(self.csum_seed, le32(g)), buf) & 0xFFFF

    # -- inodes ----------------------------------------------------------
    def inode_offset(self, ino):
        if not 1 <= ino <= self.inodes_count:
            raise ExtError(f"inode {ino} out of range")
        g, i = divmod(ino - 1, self.ipg)
        return self.group(g)["inode_table"] * self.bs + i * self.inode_size

    def inode(self, ino):
        return Inode(ino, self.read(self.inode_offset(ino), self.inode_size))

    def inode_seed(self, ino, generation=None):
        """The per-inode checksum seed (inode, extent and directory blocks)."""
        if generation is None:
            generation = self.inode(ino).generation
        return crc32c(crc32c(self.csum_seed, le32(ino)), le32(generation))

    def inode_csum(self, ino, raw):
        """The metadata_csum of the inode bytes raw (its checksum fields
        are left out), as (lo, hi or None)."""
        buf = bytearray(raw)
        has_hi = len(buf) > 128 and struct.unpack_from("<H", buf, 0x80)[0] >= 4
        struct.pack_into("<H", buf, 0x7C, 0)
        if has_hi:
            struct.pack_into("<H", buf, 0x82, 0)
        gen = struct.unpack_from("<I", buf, 0x64)[0]
        crc = crc32c(self.inode_seed(ino, gen), buf)
        return crc & 0xFFFF, (crc >> 16 if has_hi else None)

    def write_inode(self, ino, fields, csum=True):
        """Change named fields of INODE_FIELDS, or size, blocks, file_acl
        (both halves); "block" takes the 60 bytes of i_block."""
        off = self.inode_offset(ino)
        buf = bytearray(self.read(off, self.inode_size))
        plain = {}
        for name, value in fields.items():
            if name in SPLIT:
                lo, hi, shift = SPLIT[name]
                plain[lo], plain[hi] = value & ((1 << shift) - 1), value >> shift
            else:
                plain[name] = value
        if "extra_isize" in plain:
            pack_fields(INODE_FIELDS, buf, {"extra_isize": plain.pop("extra_isize")})
        extra = struct.unpack_from("<H", buf, 0x80)[0] if len(buf) > 128 else 0
        pack_fields(INODE_FIELDS, buf, plain, 128 + extra)
        self.write(off, buf)
        if csum and self.csum:
            self.fix_inode_csum(ino)

    def fix_inode_csum(self, ino):
        off = self.inode_offset(ino)
        raw = bytearray(self.read(off, self.inode_size))
        lo, hi = self.inode_csum(ino, raw)
        struct.pack_into("<H", raw, 0x7C, lo)
        if hi is not None:
            struct.pack_into("<H", raw, 0x82, hi)
        self.write(off, raw)

    # -- extended attributes --------------------------------------------
    def xattrs(self, ino):
        """The in-inode attributes, then those of the external block."""
        off = self.inode_offset(ino)
        i = self.inode(ino)
        out = []
        if self.inode_size > 128:
            start = 128 + i.extra_isize
            if start + 4 <= self.inode_size and \
                    struct.unpack_from("<I", i.raw, start)[0] == XATTR_MAGIC:
                out += _xattr_entries(i.raw, start + 4, start + 4, self.inode_size,
                                      off, True)
        if i.file_acl:
            blk = self.read_block(i.file_acl)
            if struct.unpack_from("<I", blk, 0)[0] != XATTR_MAGIC:
                raise ExtError(f"inode {ino}: xattr block {i.file_acl}: bad magic")
            out += _xattr_entries(blk, 32, 0, self.bs, i.file_acl * self.bs, False)
        return out

    def find_xattr(self, ino, index, name):
        for x in self.xattrs(ino):
            if x.index == index and x.name == name:
                return x
        return None

    def context(self, ino):
        """The fscrypt context (xattr index 9, name "c"), or None."""
        x = self.find_xattr(ino, XATTR_INDEX_ENCRYPTION, b"c")
        return x.value if x else None

    def set_xattr_value(self, ino, x, value, csum=True):
        """Replace the value of the attribute x (from xattrs()) by one of
        the same length; the entry hash (and the block's) follow."""
        if len(value) != x.value_size or x.value_inum:
            raise ExtError("only a value of the same length, stored in place")
        self.write(x.value_off, value)
        if not csum:
            return
        if x.in_inode:
            if x.hash:     # 0 means "not computed" in an inode
                self.write(x.entry_off + 12, le32(xattr_hash(x.name, value)))
            if self.csum:
                self.fix_inode_csum(ino)
            return
        b = self.inode(ino).file_acl
        blk = bytearray(self.read_block(b))
        struct.pack_into("<I", blk, x.entry_off - b * self.bs + 12, xattr_hash(x.name, value))
        if struct.unpack_from("<I", blk, 12)[0]:   # libext2fs leaves h_hash 0
            struct.pack_into("<I", blk, 12, xattr_block_hash(
                [e.hash for e in _xattr_entries(blk, 32, 0, self.bs, 0, False)]))
        if self.csum:
            struct.pack_into("<I", blk, 16, 0)
            crc = crc32c(crc32c(self.csum_seed, struct.pack("<Q", b)), blk)
            struct.pack_into("<I", blk, 16, crc)
        self.write_block(b, blk)

    def set_inode_xattr_area(self, ino, index, name, value):
        """Give an inode without in-inode attributes an in-inode area of
        one attribute (magic, one entry, the end marker, the value at the
        end of the inode), hash 0 ("not computed"); the inode's checksum
        follows on the next write_inode."""
        i = self.inode(ino)
        start = 128 + i.extra_isize
        if self.inode_size < 256 or struct.unpack_from("<I", i.raw, start)[0] == XATTR_MAGIC:
            raise ExtError("inode %d: no room or already has in-inode attributes" % ino)
        first = start + 4
        voff = self.inode_size - len(value)
        area = bytearray(self.inode_size - start)
        struct.pack_into("<I", area, 0, XATTR_MAGIC)
        struct.pack_into("<BBHIII", area, 4, len(name), index, voff - first, 0, len(value), 0)
        area[20:20 + len(name)] = name
        area[voff - start:] = value
        self.write(self.inode_offset(ino) + start, bytes(area))

    # -- block maps -------------------------------------------------------
    def block_map(self, ino, shared_ok=False, max_depth=MAX_EXTENT_DEPTH):
        """Extents of the file in logical order, from its extent tree or
        indirect map ([] for data in the inode).  An extent tree block
        reached twice (unless shared_ok) or a tree deeper than max_depth
        is an ExtError."""
        return self._map(ino, shared_ok, max_depth)[0]

    def tree_blocks(self, ino, shared_ok=False, max_depth=MAX_EXTENT_DEPTH):
        """The blocks of the map itself, top down: extent tree nodes below
        the inode [(pblk, depth)] or indirect blocks [(pblk, level)]."""
        return self._map(ino, shared_ok, max_depth)[1]

    def blocks(self, ino):
        """The physical data blocks of the file in logical order (holes
        left out); debugfs `blocks` lists the tree_blocks too."""
        return [e.pblk + k for e in self.block_map(ino) for k in range(e.len)]

    def read_file(self, ino):
        """The i_size bytes of a file: holes and unwritten extents read as
        zeros; inline data from i_block and the system.data attribute; a
        fast symlink's target from i_block."""
        i = self.inode(ino)
        if i.data_in_inode():
            x = self.find_xattr(ino, 7, b"data")
            return (i.block + (x.value if x else b""))[:i.size]
        out = bytearray(i.size)
        for e in self.block_map(ino):
            for k in range(e.len):
                pos = (e.lblk + k) * self.bs
                if pos < i.size and not e.unwritten:
                    out[pos:pos + self.bs] = self.read_block(e.pblk + k)[:i.size - pos]
        return bytes(out)

    def _map(self, ino, shared_ok, max_depth):
        i = self.inode(ino)
        extents, tree = [], []
        if i.data_in_inode():
            pass
        elif i.flags & EXTENTS_FL:
            self._walk_extents(i.block, None, extents, tree, set(), shared_ok, max_depth)
        else:
            extents = self._indirect_map(i.block, tree)
        return extents, tree

    def _walk_extents(self, node, want_depth, out, tree, seen, shared_ok, max_depth):
        magic, entries, emax, depth, _ = struct.unpack_from("<HHHHI", node, 0)
        if magic != EXTENT_MAGIC or entries > emax or 12 + 12 * emax > len(node) or \
                depth > max_depth or want_depth not in (None, depth):
            raise ExtError(f"bad extent node (magic {magic:#x}, {entries}/{emax}, "
                           f"depth {depth})")
        for k in range(entries):
            if depth == 0:       # leaf: ee_block, ee_len, ee_start_hi, ee_start_lo
                lblk, n, hi, lo = struct.unpack_from("<IHHI", node, 12 + 12 * k)
                unwritten = n > 32768
                out.append(Extent(lblk, lo | hi << 32, n - 32768 if unwritten else n, unwritten))
                continue
            # index: ei_block, ei_leaf_lo, ei_leaf_hi
            _, lo, hi = struct.unpack_from("<IIH", node, 12 + 12 * k)
            child = lo | hi << 32
            if child in seen and not shared_ok:
                raise ExtError(f"extent tree block {child} reached twice")
            seen.add(child)
            tree.append((child, depth - 1))
            self._walk_extents(self.read_block(child), depth - 1, out, tree, seen,
                               shared_ok, max_depth)

    def _indirect_map(self, iblock, meta):
        ptrs = struct.unpack("<15I", iblock)
        per = self.bs // 4
        runs = []

        def add(lblk, pblk):
            if runs and runs[-1][0] + runs[-1][2] == lblk and runs[-1][1] + runs[-1][2] == pblk:
                runs[-1][2] += 1
            else:
                runs.append([lblk, pblk, 1])

        def walk(pblk, level, lblk):
            if level == 0:
                add(lblk, pblk)
                return
            span = per ** (level - 1)
            meta.append((pblk, level))
            for k, p in enumerate(struct.unpack(f"<{per}I", self.read_block(pblk))):
                if p:
                    walk(p, level - 1, lblk + k * span)

        for k in range(12):
            if ptrs[k]:
                add(k, ptrs[k])
        base = 12
        for level in (1, 2, 3):
            if ptrs[11 + level]:
                walk(ptrs[11 + level], level, base)
            base += per ** level
        return [Extent(a, b, c, False) for a, b, c in runs]

    def write_extent_tree(self, ino, iblock, tree, csum=True):
        """Install a tree made by build_extent_tree: i_block and the
        tree blocks ({pblk: bytes}, their tails checksummed)."""
        for b, data in tree.items():
            if csum and self.csum:
                data = extent_block_csum(data, self.inode_seed(ino))
            self.write_block(b, data)
        i = self.inode(ino)
        self.write_inode(ino, {"block": iblock, "flags": i.flags | EXTENTS_FL}, csum)

    # -- directories ---------------------------------------------------
    def dir_blocks(self, ino):
        """[(lblk, pblk)] of a directory below i_size."""
        n = -(-self.inode(ino).size // self.bs)
        return [(e.lblk + k, e.pblk + k) for e in self.block_map(ino)
                for k in range(e.len) if e.lblk + k < n]

    def dir_entries(self, ino, empty=False):
        """The entries of every block of a directory, with their offset in
        the image file (ino 0 ones, such as the checksum tail, only when
        empty).  hash: the (hash, minor_hash) pair stored after the name
        in casefolded encrypted directories, else None."""
        out = []
        for _, pblk in self.dir_blocks(ino):
            for d in parse_dir_block(self.read_block(pblk), self.has(INCOMPAT_FILETYPE),
                                     self.hashed(ino)):
                if d.ino or empty:
                    out.append(d._replace(off=pblk * self.bs + d.off))
        return out

    def hashed(self, ino):
        """Whether the entries of this directory carry a hash pair."""
        flags = self.inode(ino).flags
        return bool(flags & CASEFOLD_FL and flags & ENCRYPT_FL)

    def write_dir_block(self, dir_ino, pblk, data, csum=True):
        """Write a directory block; its checksum tail (if it has one) is
        recomputed."""
        if csum and self.csum and has_dir_tail(data):
            data = dir_block_csum(data, self.inode_seed(dir_ino))
        self.write_block(pblk, data)

    def add_entries(self, dir_ino, entries, index=0, csum=True):
        """Add entries (ino, ftype, name[, hash pair]) into the slack after
        the last entry of the directory's index-th block."""
        pblk = self.dir_blocks(dir_ino)[index][1]
        blk = bytearray(self.read_block(pblk))
        end = len(blk) - (12 if has_dir_tail(blk) else 0)
        last = [d for d in parse_dir_block(blk, True, self.hashed(dir_ino)) if d.off < end][-1]
        pos = last.off + dirent_len(last.name_len, last.hash is not None)
        struct.pack_into("<H", blk, last.off + 4, pos - last.off)
        for k, e in enumerate(entries):
            size = dirent_len(len(e[2]), len(e) > 3)
            rec = end - pos if k == len(entries) - 1 else size
            if pos + size > end:
                raise ExtError(f"no room for {len(entries)} entries in block {pblk}")
            blk[pos:pos + rec] = dirent(*e, rec_len=rec)
            pos += rec
        self.write_dir_block(dir_ino, pblk, bytes(blk), csum)

    def dx_root(self, ino):
        """The htree root of an indexed directory (INDEX_FL), or None."""
        if not self.inode(ino).flags & INDEX_FL:
            return None
        blk = self.read_block(self.dir_blocks(ino)[0][1])
        _, hv, ilen, levels, _ = struct.unpack_from("<IBBBB", blk, 0x18)
        base = 0x18 + ilen
        limit, count, first = struct.unpack_from("<HHI", blk, base)
        ents = [(0, first)] + [struct.unpack_from("<II", blk, base + 8 * k)
                               for k in range(1, min(count, limit))]
        return DxRoot(hv, ilen, levels, limit, count, ents)

    def lookup(self, path):
        """The inode of a path of raw names (bytes or str), from the root."""
        ino = 2
        if isinstance(path, str):
            path = path.encode()
        for comp in [c for c in path.split(b"/") if c]:
            for d in self.dir_entries(ino):
                if d.name == comp:
                    ino = d.ino
                    break
            else:
                raise KeyError(f"{path!r}: no {comp!r}")
        return ino

    # -- allocation --------------------------------------------------------
    def _group_metadata(self, g):
        """The blocks of group g that hold metadata: the superblock and
        descriptor copies, and any group's bitmaps and inode table."""
        first = self.first_data_block + g * self.bpg
        used = set()
        if g <= 1 or not self.has(RO_COMPAT_SPARSE_SUPER) or _power_of(g, (3, 5, 7)):
            if self.has(COMPAT_SPARSE_SUPER2):
                raise ExtError("sparse_super2 is not supported")
            n = 1 + -(-self.groups * self.desc_size // self.bs)
            if self.has(COMPAT_RESIZE_INODE):
                n += self.superblock()["reserved_gdt_blocks"]
            used.update(range(first, first + n))
        itable = -(-self.ipg * self.inode_size // self.bs)
        for h in range(self.groups):
            d = self.group(h)
            used.update((d["block_bitmap"], d["inode_bitmap"]))
            used.update(range(d["inode_table"], d["inode_table"] + itable))
        return {b - first for b in used if first <= b < first + self.bpg}

    def alloc_blocks(self, count, goal=0, csum=True):
        """Find count free blocks, first fit from block goal on (then the
        groups after it, wrapping), mark them in use and return them in
        order.  The
        group's BLOCK_UNINIT bitmap is initialised first, as the kernel
        does; free counts and checksums follow."""
        got = []
        start = max(goal - self.first_data_block, 0) // self.bpg
        for g in [(start + k) % self.groups for k in range(self.groups)]:
            if len(got) == count:
                break
            d = self.group(g)
            first = self.first_data_block + g * self.bpg
            n = min(self.bpg, self.blocks_count - first)
            if d["flags"] & BG_BLOCK_UNINIT:
                bitmap = bytearray(self.bs)
                for b in list(self._group_metadata(g)) + list(range(n, self.bs * 8)):
                    bitmap[b >> 3] |= 1 << (b & 7)
            else:
                bitmap = bytearray(self.read_block(d["block_bitmap"]))
            new = []
            for b in range(max(goal - first, 0) if g == start else 0, n):
                if len(got) + len(new) == count:
                    break
                if not bitmap[b >> 3] & (1 << (b & 7)):
                    bitmap[b >> 3] |= 1 << (b & 7)
                    new.append(first + b)
            if not new:
                continue
            self.write_block(d["block_bitmap"], bytes(bitmap))
            fields = {"free_blocks_count": d["free_blocks_count"] - len(new),
                      "flags": d["flags"] & ~BG_BLOCK_UNINIT}
            if self.csum:
                crc = crc32c(self.csum_seed, bitmap[:self.bpg // 8])
                fields["block_bitmap_csum"] = crc    # write_group keeps what fits
            self.write_group(g, fields, csum)
            got += new
        if len(got) < count:
            raise ExtError(f"only {len(got)} of {count} blocks free")
        sb = self.superblock()
        free = (sb["free_blocks_count_lo"] | sb["free_blocks_count_hi"] << 32) - len(got)
        self.write_superblock({"free_blocks_count_lo": free & 0xFFFFFFFF,
                               "free_blocks_count_hi": free >> 32}, csum)
        return sorted(got)

    # -- checks ------------------------------------------------------------
    def check_csums(self, inodes):
        """metadata_csum mismatches of the given inodes, their extent
        tree blocks and directory blocks, the group descriptors and the
        superblock: a list of strings (empty when all agree)."""
        bad = []
        sb = self.read(1024, 1024)
        if struct.unpack_from("<I", sb, 0x3FC)[0] != crc32c(0xFFFFFFFF, sb[:0x3FC]):
            bad.append("superblock")
        for g in range(self.groups):
            raw = self.read(self._gd_offset(g), self.desc_size)
            if self._group_csum(g, raw) != struct.unpack_from("<H", raw, 0x1E)[0]:
                bad.append(f"group {g}")
        for ino in inodes:
            i = self.inode(ino)
            lo, hi = self.inode_csum(ino, i.raw)
            if lo != i.checksum_lo or hi not in (None, i.checksum_hi):
                bad.append(f"inode {ino}")
            seed = self.inode_seed(ino)
            for b, _ in self.tree_blocks(ino) if i.flags & EXTENTS_FL else []:
                blk = self.read_block(b)
                if extent_block_csum(blk, seed) != blk:
                    bad.append(f"inode {ino}: extent block {b}")
            if i.is_dir() and not i.data_in_inode():
                for _, b in self.dir_blocks(ino):
                    blk = self.read_block(b)
                    if has_dir_tail(blk) and dir_block_csum(blk, seed) != blk:
                        bad.append(f"inode {ino}: directory block {b}")
        return bad


def _power_of(g, bases):
    for b in bases:
        n = b
        while n < g:
            n *= b
        if n == g:
            return True
    return False


def _xattr_entries(buf, first, value_base, end, file_off, in_inode):
    """Parse xattr entries from buf[first:] (values at value_base + offs)."""
    out = []
    pos = first
    while pos + 4 <= end and struct.unpack_from("<I", buf, pos)[0]:
        if pos + 16 > end:
            raise ExtError(f"xattr entry at {pos} runs past the end")
        nlen, index, voff, vinum, vsize, h = struct.unpack_from("<BBHIII", buf, pos)
        name = bytes(buf[pos + 16:pos + 16 + nlen])
        vpos = value_base + voff
        if not vinum and (vpos + vsize > end or pos + 16 + nlen > end):
            raise ExtError(f"xattr {name!r}: value outside its area")
        value = b"" if vinum else bytes(buf[vpos:vpos + vsize])
        out.append(Xattr(index, name, value, vinum, vsize, h, file_off + pos,
                         file_off + vpos, in_inode))
        pos += (16 + nlen + 3) & ~3
    return out


def xattr_hash(name, value):
    """ext4_xattr_hash_entry: the name, then the value in 32-bit words."""
    h = 0
    for c in name:
        h = ((h << 5) ^ (h >> 27) ^ c) & 0xFFFFFFFF
    value = value + bytes(-len(value) % 4)
    for (w,) in struct.iter_unpack("<I", value):
        h = ((h << 16) ^ (h >> 16) ^ w) & 0xFFFFFFFF
    return h


def xattr_block_hash(hashes):
    """h_hash of an xattr block from its entries' hashes (0 if one is 0),
    as the kernel's ext4_xattr_rehash computes it."""
    h = 0
    for e in hashes:
        if not e:
            return 0
        h = ((h << 16) ^ (h >> 16) ^ e) & 0xFFFFFFFF
    return h


# ------------------------------------------------------------------ directories
def dirent_len(name_len, with_hash=False):
    """EXT4_DIR_REC_LEN: 8 + the name rounded up to 4, + 8 for a hash pair."""
    return ((8 + name_len + 3) & ~3) + (8 if with_hash else 0)


def dirent(ino, ftype, name, hash_pair=None, rec_len=None):
    """One directory entry (the record padded with zeros to rec_len)."""
    size = dirent_len(len(name), hash_pair is not None)
    rec_len = rec_len or size
    out = bytearray(struct.pack("<IHBB", ino, rec_len, len(name), ftype) + name)
    out += bytes((size - 8 if hash_pair is not None else size) - len(out))
    if hash_pair is not None:
        out += struct.pack("<II", *hash_pair)
    return bytes(out) + bytes(rec_len - size)


def parse_dir_block(blk, filetype=True, hashes=False):
    """All records of a linear directory block (or an htree node's fake
    entry), offsets relative to the block; stops at a bad rec_len."""
    out, pos = [], 0
    while pos + 8 <= len(blk):
        ino, rec = struct.unpack_from("<IH", blk, pos)
        if rec == 0 and len(blk) == 65536:
            rec = 65536
        if rec < 8 or rec % 4 or pos + rec > len(blk):
            break
        nlen, ft = blk[pos + 6], blk[pos + 7]
        if not filetype:
            nlen, ft = nlen | ft << 8, 0
        name = bytes(blk[pos + 8:pos + 8 + nlen])
        pair = None
        if hashes and ino and name not in (b".", b"..") and \
                dirent_len(nlen, True) <= rec:
            pair = struct.unpack_from("<II", blk, pos + dirent_len(nlen))
        out.append(Dirent(pos, ino, rec, nlen, ft, name, pair))
        pos += rec
    return out


def has_dir_tail(blk):
    """The metadata_csum tail: a 12-byte fake entry with file type 0xDE."""
    return len(blk) >= 12 and blk[-12:-4] == struct.pack("<IHBB", 0, 12, 0, 0xDE)


def dir_block_csum(blk, inode_seed):
    crc = crc32c(inode_seed, blk[:-12])
    return bytes(blk[:-4]) + le32(crc)


def build_dir_blocks(entries, blocksize, csum_tail=False):
    """Linear directory blocks holding entries [(ino, ftype, name bytes
    [, (hash, minor_hash)])] in order; the last entry of each block gets
    its slack.  csum_tail: leave room for and add the metadata_csum tail
    (Image.write_dir_block fills in the checksum)."""
    end = blocksize - (12 if csum_tail else 0)
    blocks, cur = [], []

    def flush():
        data = bytearray()
        for k, e in enumerate(cur):
            size = dirent_len(len(e[2]), len(e) > 3)
            data += dirent(*e, rec_len=end - len(data) if k == len(cur) - 1 else size)
        if not cur:
            data += struct.pack("<IH", 0, end) + bytes(end - 6)
        if csum_tail:
            data += struct.pack("<IHBBI", 0, 12, 0, 0xDE, 0)
        blocks.append(bytes(data))

    used = 0
    for e in entries:
        if len(e[2]) > 255:
            raise ExtError(f"name of {len(e[2])} bytes")
        size = dirent_len(len(e[2]), len(e) > 3)
        if used + size > end:
            flush()
            cur, used = [], 0
        cur.append(e)
        used += size
    flush()
    return blocks


# ------------------------------------------------------------------ extent trees
def extent_node(depth, entries, max_entries):
    """One extent tree node (no tail): entries are (lblk, len, pblk,
    unwritten) at depth 0, (lblk, child pblk) above.  Any structure can be
    made from these, shared subtrees and deep chains included."""
    out = bytearray(struct.pack("<HHHHI", EXTENT_MAGIC, len(entries), max_entries, depth, 0))
    for e in entries:
        if depth == 0:
            lblk, n, pblk, unwritten = e
            out += struct.pack("<IHHI", lblk, n + (32768 if unwritten else 0),
                               pblk >> 32, pblk & 0xFFFFFFFF)
        else:
            lblk, child = e
            out += struct.pack("<IIHH", lblk, child & 0xFFFFFFFF, child >> 32, 0)
    return out


def extent_block_csum(blk, inode_seed):
    """A tree block with its tail (after eh_max entries) checksummed."""
    emax = struct.unpack_from("<H", blk, 4)[0]
    tail = 12 + 12 * emax
    crc = crc32c(inode_seed, blk[:tail])
    return bytes(blk[:tail]) + le32(crc) + bytes(blk[tail + 4:])


def build_extent_tree(runs, tree_blocks, blocksize, depth=0):
    """An extent tree over runs [(lblk, len, pblk, unwritten)] (sorted;
    len at most 32768, 32767 when unwritten), as shallow as fits or
    depth deep: returns (the 60 bytes of i_block, {pblk: block}) with
    the nodes below the inode in blocks taken from tree_blocks, in order.
    Install it with Image.write_extent_tree."""
    per = (blocksize - 12) // 12
    entries, d, tree, free = list(runs), 0, {}, list(tree_blocks)
    while len(entries) > 4 or d < depth:
        ptrs = []
        for k in range(0, max(len(entries), 1), per):
            chunk = entries[k:k + per]
            if not free:
                raise ExtError("not enough tree blocks")
            b = free.pop(0)
            node = extent_node(d, chunk, per)
            tree[b] = bytes(node) + bytes(blocksize - len(node))
            ptrs.append((chunk[0][0] if chunk else 0, b))
        entries, d = ptrs, d + 1
    root = extent_node(d, entries, 4)
    return bytes(root) + bytes(60 - len(root)), tree


# ------------------------------------------------------------------ debugfs
def debugfs(path, *cmds, write=False):
    """Run debugfs commands on an image; returns stdout (bytes).  An
    error message on stderr or a non-zero exit raises ExtError."""
    out = b""
    for cmd in cmds:
        r = subprocess.run(["debugfs"] + (["-w"] if write else []) + ["-R", cmd, path],
                           capture_output=True,
                           env=dict(os.environ, DEBUGFS_PAGER="__none__"))
        err = "\n".join(line for line in r.stderr.decode(errors="replace").splitlines()
                        if not line.startswith("debugfs "))
        if r.returncode or err.strip():
            raise ExtError(f"debugfs {'-w ' if write else ''}{cmd!r}: {err}")
        out += r.stdout
    return out
