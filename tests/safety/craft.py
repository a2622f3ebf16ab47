#!/usr/bin/python3
"""Craft the hostile images of the safety tests (tests/safety/safety.sh),
one per property of e4dump's SECURITY section, on images made by
mkfs.ext4 -d and edited with tests/lib/ext4img.py or debugfs (never
e4dump).

usage: craft.py OUTDIR NAME...      (NAME: see IMAGES below, or "all")
Each NAME.img is written to OUTDIR with NAME.txt describing it.
"""
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
sys.path.insert(0, os.path.join(here, "..", "vectors"))
import ext4img  # noqa: E402
from ext4img import Image, build_dir_blocks, build_extent_tree, debugfs, extent_node  # noqa: E402

FT_REG, FT_DIR, FT_SYMLINK = 1, 2, 7
SAMPLE = os.path.join(here, "..", "..", "testvectors", "sample")


def mkfs(out, src, size="16M", extra=()):
    """An image of the host tree src, made by mkfs.ext4 -d."""
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run(["truncate", "-s", size, out], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "root_owner=0:0",
                    *extra, "-d", src, out], check=True,
                   env=dict(os.environ, E2FSPROGS_FAKE_TIME="1700000000"))


def tree(spec):
    """A host directory from {path: bytes (file) | None (dir)}."""
    d = tempfile.mkdtemp(prefix="e4craft-")
    for p, data in spec.items():
        full = os.path.join(d, p)
        if data is None:
            os.makedirs(full, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
    return d


def describe(outdir, name, text):
    with open(os.path.join(outdir, name + ".txt"), "w") as f:
        f.write(text.strip() + "\n")


def img_relink(outdir):
    """A directory with a second name (ext4 directories have one parent)."""
    out = os.path.join(outdir, "relink.img")
    src = tree({"a/d/x": b"x\n", "a/d/y": b"y\n", "b": None})
    mkfs(out, src)
    debugfs(out, "ln a/d b/e", write=True)
    shutil.rmtree(src)
    describe(outdir, "relink", "/a/d (files x, y) is also /b/e.")


def img_loop(outdir):
    """A directory entry that leads back to an ancestor."""
    out = os.path.join(outdir, "loop.img")
    src = tree({"a/d/x": b"x\n"})
    mkfs(out, src)
    debugfs(out, "ln a a/d/back", write=True)
    shutil.rmtree(src)
    describe(outdir, "loop", "/a/d/back is /a again: a cycle.")


def img_shared(outdir):
    """A directory whose extent tree is 5 levels deep with one shared block
    per level: 4 x 340^3 x 2 paths to one leaf (libext2fs walks them all;
    the kernel's depth limit is 5)."""
    out = os.path.join(outdir, "shared.img")
    src = tree({"d/%02d" % i: b"" for i in range(20)})
    mkfs(out, src)
    im = Image(out, write=True)
    ino = im.lookup("/d")
    data = im.block_map(ino)[0].pblk
    a, b, c, d, leaf = im.alloc_blocks(5)
    per = (im.bs - 12) // 12
    blocks = {
        a: extent_node(4, [(k * 348160, b) for k in range(per)], per),
        b: extent_node(3, [(k * 1024, c) for k in range(per)], per),
        c: extent_node(2, [(k * 2, d) for k in range(per)], per),
        d: extent_node(1, [(0, leaf), (1, leaf)], per),
        leaf: extent_node(0, [(0, 1, data, False)], per),
    }
    root = extent_node(5, [(k * 118374400, a) for k in range(4)], 4)
    tree_blocks = {k: bytes(v) + bytes(im.bs - len(v)) for k, v in blocks.items()}
    im.write_extent_tree(ino, bytes(root) + bytes(60 - len(root)), tree_blocks)
    im.write_inode(ino, {"size": 1024 * im.bs})
    im.close()
    shutil.rmtree(src)
    describe(outdir, "shared", "/d: 20 entries in its block 0; its extent tree (depth 5) shares one block per level.")


def img_deep(outdir):
    """A file whose extent tree is 6 deep (ext4 allows 5)."""
    out = os.path.join(outdir, "deep6.img")
    src = tree({"f": b"hello\n"})
    mkfs(out, src)
    im = Image(out, write=True)
    ino = im.lookup("/f")
    data = im.block_map(ino)[0].pblk
    tb = im.alloc_blocks(6)
    root, blocks = build_extent_tree([(0, 1, data, False)], tb, im.bs, depth=6)
    im.write_extent_tree(ino, root, blocks)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "deep6", "/f: an extent tree of depth 6 over its one block.")


def img_bigsize(outdir):
    """i_size negative as a loff_t, and above s_maxbytes."""
    out = os.path.join(outdir, "bigsize.img")
    src = tree({"neg": b"negative\n", "huge": b"huge\n", "ok": b"fine\n"})
    mkfs(out, src)
    im = Image(out, write=True)
    im.write_inode(im.lookup("/neg"), {"size": 1 << 63})
    im.write_inode(im.lookup("/huge"), {"size": 1 << 45})
    im.close()
    shutil.rmtree(src)
    describe(outdir, "bigsize", "/neg: i_size 2^63 (negative); /huge: 2^45 (above s_maxbytes); /ok is fine.")


def img_pastsize(outdir):
    """Blocks mapped past i_size: garbage that must not be read."""
    out = os.path.join(outdir, "pastsize.img")
    src = tree({"d/x": b"x\n", "f": b"0123456789"})
    mkfs(out, src)
    im = Image(out, write=True)
    d = im.lookup("/d")
    first = im.block_map(d)[0].pblk
    junk = im.alloc_blocks(7, goal=first + 1)
    for b in junk:
        im.write_block(b, hashlib.sha512(b"junk%d" % b).digest() * (im.bs // 64))
    tb = im.alloc_blocks(1)
    runs = [(0, 1, first, False)] + [(k, 1, b, False) for k, b in enumerate(junk, 1)]
    root, blocks = build_extent_tree(runs, tb, im.bs)
    im.write_extent_tree(d, root, blocks)
    f = im.lookup("/f")
    im.write_inode(f, {"size": 10})
    root, blocks = build_extent_tree([(0, 1, im.block_map(f)[0].pblk, False),
                                      (1, 4, junk[0], False)], [], im.bs)
    im.write_extent_tree(f, root, blocks)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "pastsize", "/d: i_size one block, 8 blocks mapped (7 of random bytes); /f: 10 bytes, 5 blocks mapped.")


def img_special(outdir):
    """Device nodes, a FIFO, setuid and setgid files and directories."""
    out = os.path.join(outdir, "special.img")
    src = tree({"suid": b"#!/bin/sh\n", "sgid": b"x", "sgdir/f": b"f", "sticky": None,
                "plain": b"p"})
    mkfs(out, src)
    debugfs(out, "mknod fifo p", "mknod cdev c 1 3", "mknod bdev b 7 0",
            "sif suid mode 0104755", "sif sgid mode 0102711", "sif sgdir mode 042775",
            "sif sticky mode 041777", write=True)
    shutil.rmtree(src)
    describe(outdir, "special", "fifo, cdev (1,3), bdev (7,0); suid 04755, sgid 02711, sgdir 02775, sticky 01777.")


def img_terminal(outdir):
    """Names and symlink targets with terminal controls."""
    out = os.path.join(outdir, "terminal.img")
    names = [b"csi\xc2\x9b31mred", b"rlo\xe2\x80\xaetxt.exe", b"lri\xe2\x81\xa6x",
             b"esc\x1b]0;title\x07", b"del\x7fx", b"nel\xc2\x85line"]
    src = tempfile.mkdtemp(prefix="e4craft-")
    os.makedirs(os.path.join(src.encode(), b"d"))
    for n in names:
        with open(os.path.join(src.encode(), b"d", n), "wb") as f:
            f.write(b"x")
    os.symlink(b"\x1b]0;pwned\x07\xe2\x80\xae", os.path.join(src.encode(), b"d", b"link"))
    mkfs(out, src)
    shutil.rmtree(src)
    describe(outdir, "terminal", "/d: names with C1 CSI, RLO, LRI, an OSC sequence, DEL, NEL; /d/link's target has OSC and RLO.")


def img_nulsym(outdir):
    """A fast symlink whose target has a NUL inside i_size, and one of 60
    bytes (all of i_block, no NUL: Linux shows 59)."""
    out = os.path.join(outdir, "nulsym.img")
    src = tempfile.mkdtemp(prefix="e4craft-")
    os.symlink("abcdefgh", os.path.join(src, "s"))
    os.symlink("L" * 59, os.path.join(src, "s60"))
    mkfs(out, src)
    im = Image(out, write=True)
    ino = im.lookup("/s")
    im.write_inode(ino, {"block": b"abc\0defg" + bytes(52)})
    im.write_inode(im.lookup("/s60"), {"block": b"L" * 59 + b"X", "size": 60})
    im.close()
    shutil.rmtree(src)
    describe(outdir, "nulsym", "/s: a fast symlink of 8 bytes, \"abc\\0defg\"; /s60: a fast symlink of 60 bytes, 59 x 'L' then 'X'.")

def img_dups(outdir):
    """Two entries of one directory with one name: files and
    directories (unencrypted), and two encrypted names that decrypt alike."""
    out = os.path.join(outdir, "dups.img")
    src = tree({"p/same": b"first\n", "p/other": b"second\n", "p/dir1/a": b"a\n",
                "p/dir2/b": b"b\n"})
    mkfs(out, src)
    im = Image(out, write=True)
    p = im.lookup("/p")
    for d in im.dir_entries(p):
        if d.name == b"other":
            im.write(d.off + 8, b"same\0")      # same length: 5 vs 4 + NUL
            im.write(d.off + 6, bytes([4]))
        if d.name == b"dir2":
            im.write(d.off + 8, b"dir1")
    im.close()
    shutil.rmtree(src)
    # encrypted: the sample with 日本.txt's stored name replaced by hello.txt's
    enc = os.path.join(outdir, "dups-enc.img")
    subprocess.run(f"xz -dc '{SAMPLE}/sample.img.xz' >'{enc}'", shell=True, check=True)
    im = Image(enc, write=True)
    secret = im.lookup(b"/secret")
    ents = {d.ino: d for d in im.dir_entries(secret)}
    hello, nihon = ents[13], ents[14]
    assert hello.name_len == nihon.name_len
    im.write(nihon.off + 8, hello.name)
    im.close()
    describe(outdir, "dups", "/p: two entries \"same\" (files) and two \"dir1\" (directories). dups-enc.img: the sample with /secret/日本.txt (inode 14) stored under hello.txt's ciphertext.")


def img_wrongkey(outdir):
    """The sample's /secret policy relabelled with the descriptor of another
    key (the examiner's): names and contents are not encrypted with it."""
    out = os.path.join(outdir, "wrongkey.img")
    subprocess.run(f"xz -dc '{SAMPLE}/sample.img.xz' >'{out}'", shell=True, check=True)
    key = hashlib.sha512(b"e4dump safety: another key").digest()
    with open(os.path.join(outdir, "other.key"), "wb") as f:
        f.write(key)
    desc = hashlib.sha512(hashlib.sha512(key).digest()).digest()[:8]
    im = Image(out, write=True)
    n = 0
    for ino in range(1, im.superblock()["inodes_count"] + 1):
        x = im.find_xattr(ino, 9, b"c") if im.inode(ino).links_count else None
        if x and x.value[0] == 1:
            im.set_xattr_value(ino, x, x.value[:4] + desc + x.value[12:])
            n += 1
    im.close()
    describe(outdir, "wrongkey", f"the sample; the {n} contexts of /secret carry the e4crypt descriptor {desc.hex()} of other.key (SHA-512 of \"e4dump safety: another key\").")


def img_bigdir(outdir, count=1000000, name="bigdir"):
    """One directory of count entries (names f0000000...), all naming one
    empty file, written straight as directory blocks."""
    out = os.path.join(outdir, name + ".img")
    src = tree({"f": b"", "big": None})
    mkfs(out, src, size="128M", extra=("-N", "1024"))
    im = Image(out, write=True)
    f, big = im.lookup("/f"), im.lookup("/big")
    ents = [(f, FT_REG, b"f%07d" % i) for i in range(count)]
    blocks = build_dir_blocks(ents, im.bs, csum_tail=im.csum)
    # "." and ".." first, as the kernel's
    first = ext4img.dirent(big, FT_DIR, b".") + ext4img.dirent(2, FT_DIR, b"..",
                                                              rec_len=im.bs - 12 - (12 if im.csum else 0))
    if im.csum:
        first += struct.pack("<IHBBI", 0, 12, 0, 0xDE, 0)
    blocks.insert(0, first)
    pb = im.alloc_blocks(len(blocks) + 2)
    data, tb = pb[:len(blocks)], pb[len(blocks):]
    runs, start = [], 0
    for k in range(1, len(data) + 1):
        if k == len(data) or data[k] != data[k - 1] + 1 or k - start == 32768:
            runs.append((start, k - start, data[start], False))
            start = k
    root, tblocks = build_extent_tree(runs, tb, im.bs)
    for b, blk in zip(data, blocks):
        im.write_dir_block(big, b, blk)
    im.write_extent_tree(big, root, tblocks)
    i = im.inode(big)
    im.write_inode(big, {"size": len(blocks) * im.bs, "flags": i.flags & ~ext4img.INDEX_FL})
    im.write_inode(f, {"links_count": 1})
    im.close()
    shutil.rmtree(src)
    describe(outdir, name, f"/big: {count} entries f0000000.. naming /f (empty), in {len(blocks)} blocks.")


def img_deeptree(outdir, depth=4096):
    """depth nested directories, each named by 255 bytes."""
    out = os.path.join(outdir, "deeptree.img")
    src = tree({})
    mkfs(out, src, size="64M", extra=("-N", str(depth + 64)))
    shutil.rmtree(src)
    cmds = []
    for k in range(depth):
        n = ("%04d" % k) + "d" * 251
        cmds += [f"mkdir {n}", f"cd {n}"]
    cmds.append("write /dev/null last")
    with tempfile.NamedTemporaryFile("w", suffix=".cmds", delete=False) as f:
        f.write("\n".join(cmds) + "\n")
    r = subprocess.run(["debugfs", "-w", "-f", f.name, out], capture_output=True)
    os.unlink(f.name)
    if r.returncode:
        raise SystemExit(f"debugfs: {r.stderr.decode()[:500]}")
    describe(outdir, "deeptree", f"{depth} nested directories named NNNNddd... (255 bytes), then an empty file 'last'.")


def img_inline(outdir):
    """Inline data (in i_block and the "system.data" xattr) whose xattr
    value runs past the inode, and one whose "system.data" is in the
    xattr block (the kernel looks in the inode only)."""
    out = os.path.join(outdir, "inline.img")
    src = tree({"small": b"s" * 40, "mid": b"m" * 100, "blk": b"b" * 40, "d/x": b"x"})
    mkfs(out, src, extra=("-O", "inline_data", "-I", "256"))
    value = os.path.join(src, "value")
    with open(value, "wb") as f:
        f.write(b"Z" * 160)
    debugfs(out, "ea_rm blk system.data", f"ea_set -f {value} blk user.zzzz", "sif blk size 220",
            write=True)
    im = Image(out, write=True)
    ino = im.lookup("/mid")
    x = im.find_xattr(ino, 7, b"data")
    assert x and x.in_inode, "mid's inline data is not in the inode"
    # e_value_size (entry + 8) far past the inode's xattr area
    im.write(x.entry_off + 8, struct.pack("<I", 2000))
    im.fix_inode_csum(ino)
    x = im.find_xattr(im.lookup("/blk"), 1, b"zzzz")
    assert x and not x.in_inode, "blk's attribute is not in the xattr block"
    im.write(x.entry_off + 1, bytes([7]))      # e_name_index: system
    im.write(x.entry_off + 16, b"data")        # the name: user.zzzz -> system.data
    im.close()
    shutil.rmtree(src)
    describe(outdir, "inline", "/small: 40 bytes inline in i_block; /mid: 100 bytes, whose system.data value size is set to 2000 (past the inode); /blk: 40 bytes in i_block, i_size 220, its system.data (160 x 'Z') in the xattr block, none in the inode.")

def set_dir(im, dir_ino, entries, parent=2):
    """Replace directory dir_ino's blocks by linear blocks holding ".",
    ".." and entries [(ino, ftype, name)] (images without metadata_csum)."""
    ents = [(dir_ino, FT_DIR, b"."), (parent, FT_DIR, b"..")] + list(entries)
    blocks = build_dir_blocks(ents, im.bs)
    data = im.alloc_blocks(len(blocks), csum=False)
    runs, start = [], 0
    for k in range(1, len(data) + 1):
        if k == len(data) or data[k] != data[k - 1] + 1 or k - start == 32768:
            runs.append((start, k - start, data[start], False))
            start = k
    tb = im.alloc_blocks(len(runs) // 300 + 2, csum=False) if len(runs) > 4 else []
    iblock, tblocks = build_extent_tree(runs, tb, im.bs)
    for b, blk in zip(data, blocks):
        im.write_block(b, blk)
    im.write_extent_tree(dir_ino, iblock, tblocks, csum=False)
    flags = im.inode(dir_ino).flags & ~ext4img.INDEX_FL
    im.write_inode(dir_ino, {"size": len(blocks) * im.bs, "flags": flags,
                             "blocks": (len(blocks) + len(tblocks)) * (im.bs // 512)}, csum=False)


def block_of(data, bs):
    return bytes(data) + bytes(bs - len(data))


def img_symev(outdir):
    """A v1 symlink whose header claims fewer ciphertext bytes than i_size
    holds: only the header's bytes are evidence for a trial key."""
    out = os.path.join(outdir, "symev.img")
    subprocess.run(f"xz -dc '{SAMPLE}/sample.img.xz' >'{out}'", shell=True, check=True)
    im = Image(out, write=True)
    link = im.lookup(b"/secret")
    link = [d.ino for d in im.dir_entries(link) if d.ftype == FT_DIR and d.name not in (b".", b"..")][0]
    sym = [d.ino for d in im.dir_entries(link) if d.ftype == FT_SYMLINK][0]
    i = im.inode(sym)
    blk = bytearray(i.block)
    struct.pack_into("<H", blk, 0, 16)
    im.write_inode(sym, {"block": bytes(blk), "size": 60})
    im.close()
    describe(outdir, "symev", f"the sample; symlink inode {sym} has i_size 60 and a header claiming 16 bytes of ciphertext.")


def img_emptyname(outdir):
    """An in-use directory entry with a name of length 0."""
    out = os.path.join(outdir, "emptyname.img")
    src = tree({"d": None, "f": b"x"})
    mkfs(out, src, extra=("-O", "^metadata_csum"))
    im = Image(out, write=True)
    set_dir(im, im.lookup("/d"), [(im.lookup("/f"), FT_REG, b"")])
    im.close()
    shutil.rmtree(src)
    describe(outdir, "emptyname", "/d: one entry with name_len 0, naming /f.")


def img_aliasdir(outdir):
    """A directory of 2^32 blocks, every extent mapping the same 32768
    zero blocks (each a valid empty directory block)."""
    out = os.path.join(outdir, "aliasdir.img")
    src = tree({"d": None, "e/x": b"x"})
    mkfs(out, src, size="1G", extra=("-O", "^metadata_csum,large_dir"))
    im = Image(out, write=True)
    zero = 2 * im.bpg
    count = (1 << 32) // 32768 - 1
    per = (im.bs - 12) // 12
    leaves = im.alloc_blocks(-(-count // per), csum=False)
    index = im.alloc_blocks(2, csum=False)
    ptrs = []
    for j, tb in enumerate(leaves):
        ext = [(k * 32768, 32768, zero, False) for k in range(j * per, min(count, (j + 1) * per))]
        im.write_block(tb, block_of(extent_node(0, ext, per), im.bs))
        ptrs.append((ext[0][0], tb))
    half = (len(ptrs) + 1) // 2
    for j, tb in enumerate(index):
        im.write_block(tb, block_of(extent_node(1, ptrs[j * half:(j + 1) * half], per), im.bs))
    root = extent_node(2, [(ptrs[j * half][0], tb) for j, tb in enumerate(index)], 4)
    d = im.lookup("/d")
    im.write_inode(d, {"block": block_of(root, 60), "size": count * 32768 * im.bs,
                       "flags": (im.inode(d).flags | ext4img.EXTENTS_FL) & ~ext4img.INDEX_FL}, csum=False)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "aliasdir", "/d: i_size 16 TiB, every extent at the same 32768 zero blocks; /e/x is fine.")


def img_sharedfiles(outdir, files=2000, leaves=4):
    """files regular files sharing one extent tree (depth 2, leaves of
    one-block extents), all mapping one data block."""
    out = os.path.join(outdir, "sharedfiles.img")
    src = tree({"f%05d" % k: b"" for k in range(files)})
    mkfs(out, src, size="64M", extra=("-O", "^metadata_csum", "-N", str(files + 100)))
    im = Image(out, write=True)
    data = im.alloc_blocks(1, csum=False)[0]
    im.write_block(data, b"S" * im.bs)
    per = (im.bs - 12) // 12
    lb = im.alloc_blocks(leaves, csum=False)
    ptrs = []
    for j, tb in enumerate(lb):
        ext = [(2 * (j * per + k), 1, data, False) for k in range(per)]
        im.write_block(tb, block_of(extent_node(0, ext, per), im.bs))
        ptrs.append((ext[0][0], tb))
    idx = im.alloc_blocks(1, csum=False)[0]
    im.write_block(idx, block_of(extent_node(1, ptrs, per), im.bs))
    root = block_of(extent_node(2, [(0, idx)], 4), 60)
    for k in range(files):
        ino = im.lookup("/f%05d" % k)
        im.write_inode(ino, {"block": root, "size": 2 * leaves * per * im.bs,
                             "flags": im.inode(ino).flags | ext4img.EXTENTS_FL}, csum=False)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "sharedfiles", f"/f00000../f{files - 1:05d}: one extent tree (1 index block, {leaves} leaves, every other block mapped to one block of 'S'), shared by all.")


def img_policies(outdir, count=50000):
    """count empty encrypted directories, each with its own v1 policy."""
    out = os.path.join(outdir, "policies.img")
    src = tree({"x": b"x"})
    mkfs(out, src, size="96M", extra=("-O", "^metadata_csum,^uninit_bg", "-I", "256",
                                      "-N", str(count + 64)))
    shutil.rmtree(src)
    im = Image(out, write=True)
    first = 20
    for k in range(count):
        b = bytearray(256)
        struct.pack_into("<H", b, 0x00, 0o40755)                         # i_mode
        struct.pack_into("<H", b, 0x1A, 2)                               # i_links_count
        struct.pack_into("<I", b, 0x20, ext4img.ENCRYPT_FL | ext4img.EXTENTS_FL)
        struct.pack_into("<HHHHI", b, 0x28, 0xF30A, 0, 4, 0, 0)          # empty extent root
        struct.pack_into("<H", b, 0x80, 32)                              # i_extra_isize
        struct.pack_into("<I", b, 160, 0xEA020000)                       # in-inode xattrs
        struct.pack_into("<BBHIII", b, 164, 1, 9, 64, 0, 28, 0)          # "c", index 9
        b[180] = ord("c")
        b[228:256] = bytes([1, 1, 4, 3]) + struct.pack("<Q", 0x1000000 + k) + \
            hashlib.sha256(b"%d" % k).digest()[:16]
        im.write(im.inode_offset(first + k), bytes(b))
    set_dir(im, 2, [(first + k, FT_DIR, b"d%06d" % k) for k in range(count)])
    im.close()
    describe(outdir, "policies", f"/d000000..: {count} empty encrypted directories (inodes {first}..), each its own v1 descriptor 0x1000000+k.")


def img_dupnames(outdir, count=20000):
    """One directory of count entries all named "a"."""
    out = os.path.join(outdir, "dupnames.img")
    src = tree({"d": None, "f": b"a\n"})
    mkfs(out, src, extra=("-O", "^metadata_csum"))
    im = Image(out, write=True)
    set_dir(im, im.lookup("/d"), [(im.lookup("/f"), FT_REG, b"a")] * count)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "dupnames", f"/d: {count} entries named \"a\", all naming /f.")


def img_unused(outdir, count=80000):
    """One directory of count entries naming count distinct unused inodes."""
    out = os.path.join(outdir, "unused.img")
    src = tree({"d": None})
    mkfs(out, src, size="64M", extra=("-O", "^metadata_csum", "-N", str(count + 2000)))
    im = Image(out, write=True)
    set_dir(im, im.lookup("/d"), [(1000 + k, FT_REG, b"e%d" % k) for k in range(count)])
    im.close()
    shutil.rmtree(src)
    describe(outdir, "unused", f"/d: {count} entries e0.. naming the unused inodes 1000...")


def img_ind64k(outdir):
    """A block-mapped file of 64 KiB blocks whose triple-indirect tree maps
    a block past logical block 2^32."""
    out = os.path.join(outdir, "ind64k.img")
    src = tree({"f": b"A" * 65536})
    mkfs(out, src, size="64M", extra=("-b", "65536", "-O",
                                      "^extent,^metadata_csum,^64bit,huge_file,^resize_inode"))
    im = Image(out, write=True)
    ino = im.lookup("/f")
    ptrs = list(struct.unpack("<15I", im.inode(ino).block))
    t, d, s, b = im.alloc_blocks(4, csum=False)

    def ptr_block(at, value):
        blk = bytearray(im.bs)
        struct.pack_into("<I", blk, 4 * at, value)
        return bytes(blk)
    im.write_block(t, ptr_block(15, d))
    im.write_block(d, ptr_block(0, s))
    im.write_block(s, ptr_block(0, b))
    im.write_block(b, b"B" * im.bs)
    ptrs[14] = t
    im.write_inode(ino, {"block": struct.pack("<15I", *ptrs), "size": 1 << 49}, csum=False)
    im.close()
    shutil.rmtree(src)
    describe(outdir, "ind64k", "/f: 64 KiB blocks; block 0 of 'A', logical block 2^32+16396 of 'B' (through T[15]), i_size 2^49.")


IMAGES = {
    "inline": img_inline,
    "relink": img_relink, "loop": img_loop, "shared": img_shared,
    "deep6": img_deep, "bigsize": img_bigsize, "pastsize": img_pastsize,
    "special": img_special, "terminal": img_terminal, "nulsym": img_nulsym,
    "dups": img_dups, "wrongkey": img_wrongkey, "bigdir": img_bigdir,
    "bigdir100k": lambda o: img_bigdir(o, 100000, "bigdir100k"), "deeptree": img_deeptree,
    "symev": img_symev, "emptyname": img_emptyname, "aliasdir": img_aliasdir,
    "sharedfiles": img_sharedfiles, "policies": img_policies, "dupnames": img_dupnames,
    "unused": img_unused, "ind64k": img_ind64k,
}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    names = list(IMAGES) if sys.argv[2:] == ["all"] else sys.argv[2:]
    for n in names:
        IMAGES[n](outdir)


if __name__ == "__main__":
    main()
