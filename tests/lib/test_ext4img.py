#!/usr/bin/python3
"""Self-test of tests/lib/ext4img.py against e2fsprogs, which shares no code
with it: images made by mkfs.ext4 -d from a host directory (files, a sparse
file, fast and slow symlinks, a 200-entry directory that e2fsck -D indexes,
a 40-deep directory, xattrs in the inode and in a block) are read with
ext4img and compared with what debugfs and dumpe2fs report (superblock,
every group descriptor, stat of every inode, blocks, ls, htree, ea_list)
and with the host files themselves.  Then edits: inode fields, xattr
values, a file given new blocks (alloc_blocks in a BLOCK_UNINIT group,
an extent tree of depth 1 and one of depth 3, a hole and an unwritten
extent), a directory rebuilt from 150 entries; debugfs must see each
edit and e2fsck -fn must find nothing wrong (checksums included).  A
second image has 1 KiB blocks, indirect block maps, 32-bit group
descriptors, 128-byte inodes and no metadata_csum; a third mkfs.ext4's
defaults (4 KiB blocks).

usage: test_ext4img.py WORKDIR
Prints each failed check and "N passed, M failed"; exit 1 on failure.
"""
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ext4img as E  # noqa: E402

os.environ["PATH"] += ":/sbin:/usr/sbin"     # mkfs.ext4, debugfs, e2fsck

results = [0, 0]


def check(ok, what):
    results[0 if ok else 1] += 1
    if not ok:
        print("FAIL:", what, flush=True)
    return ok


def run(*args, ok=(0,)):
    r = subprocess.run(args, capture_output=True, text=True, errors="replace")
    if r.returncode not in ok:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr[-500:]}")
    return r.stdout


def debugfs_batch(img, cmds):
    """Several debugfs requests in one run: {request: output}."""
    out = subprocess.run(["debugfs", "-f", "-", img], input="\n".join(cmds) + "\n",
                         capture_output=True, text=True, errors="replace",
                         env=dict(os.environ, DEBUGFS_PAGER="__none__")).stdout
    parts = re.split(r"^debugfs: (.*)\n", out, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def free_count(img, im, what):
    """The superblock's free block count against the sum of the groups'
    (e2fsck -n does not complain: the kernel does not keep it exact)."""
    groups = sum(int(n) for n in re.findall(r"^  (\d+) free blocks", run("dumpe2fs", img),
                                            re.M))
    sb = im.superblock()
    free = sb["free_blocks_count_lo"] | sb["free_blocks_count_hi"] << 32
    check(groups == free, f"{what}: free blocks {free}, the groups' sum {groups}")


def ls_l(text):
    """(inode, file type, name) of each entry debugfs `ls -l` prints."""
    return [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in re.finditer(
        r"^ *([1-9]\d*) +\d+ +\((\d+)\) +\d+ +\d+ +\d+ +\S+ \S+ (.*)$", text, re.M)]


def fsck_clean(img, what):
    r = subprocess.run(["e2fsck", "-fn", "-E", "no_optimize_extents", img],
                       capture_output=True, text=True, errors="replace")
    return check(r.returncode == 0, f"{what}: e2fsck -fn exit {r.returncode}:\n{r.stdout[-1500:]}")


# ---------------------------------------------------------------- the trees
def make_tree(src):
    os.makedirs(src + "/big")
    for k in range(200):
        with open(f"{src}/big/entry-{k:03d}-{'x' * (k % 37)}", "w") as f:
            f.write(str(k) * (k % 5))
    with open(src + "/file", "wb") as f:
        f.write(bytes(range(256)) * 41)
    with open(src + "/sparse", "wb") as f:      # data, a hole, data
        f.write(b"head" * 1000)
        f.seek(300 * 1024)
        f.write(b"tail" * 700)
    with open(src + "/large", "wb") as f:       # past 268 KiB: double indirect at 1 KiB
        for k in range(1200):
            f.write(k.to_bytes(4, "little") * 256)
    open(src + "/empty", "w").close()
    open(src + "/grow", "w").close()
    open(src + "/grow3", "w").close()
    os.makedirs(src + "/crafted")
    os.symlink("file", src + "/fast-link")
    os.symlink("f" * 59, src + "/fast-link-59")
    os.symlink("/" + "long-target/" * 16, src + "/slow-link")
    deep = src + "/deep"
    for k in range(40):
        deep += f"/level{k}"
    os.makedirs(deep)
    with open(deep + "/leaf", "w") as f:
        f.write("at the bottom\n")


def walk(im, ino=2, path=b""):
    """(path, inode) of every entry below ino, by ext4img."""
    out = [(path or b"/", ino)]
    for d in im.dir_entries(ino):
        if d.name in (b".", b".."):
            continue
        p = path + b"/" + d.name
        if d.ftype == E.FT_DIR:
            out += walk(im, d.ino, p)
        else:
            out.append((p, d.ino))
    return out


# ---------------------------------------------------------------- reading
FEATURES = {"ext_attr": ("compat", 0x8), "resize_inode": E.COMPAT_RESIZE_INODE, "filetype": E.INCOMPAT_FILETYPE,
            "extent": E.INCOMPAT_EXTENTS, "64bit": E.INCOMPAT_64BIT,
            "sparse_super": E.RO_COMPAT_SPARSE_SUPER,
            "metadata_csum": E.RO_COMPAT_METADATA_CSUM, "encrypt": E.INCOMPAT_ENCRYPT}


def check_superblock(img, im):
    st = debugfs_batch(img, ["stats -h"])["stats -h"]

    def field(name):
        m = re.search(r"^" + re.escape(name) + r":\s+(.*)$", st, re.M)
        return m.group(1).strip() if m else None
    sb = im.superblock()
    uuid = sb["uuid"].hex()
    check(field("Filesystem UUID") == "-".join((uuid[:8], uuid[8:12], uuid[12:16],
                                                 uuid[16:20], uuid[20:])), "s_uuid")
    seed = sb["hash_seed"].hex()
    check(field("Directory Hash Seed") == "-".join((seed[:8], seed[8:12], seed[12:16],
                                                     seed[16:20], seed[20:])), "s_hash_seed")
    for name, got in (("Block size", im.bs), ("Inode size", im.inode_size),
                      ("Inode count", im.inodes_count), ("Block count", im.blocks_count),
                      ("Blocks per group", im.bpg), ("Inodes per group", im.ipg),
                      ("First block", im.first_data_block)):
        check(field(name) == str(got), f"{name}: debugfs {field(name)}, ext4img {got}")
    names = field("Filesystem features").split()
    for name, feat in FEATURES.items():
        check(im.has(feat) == (name in names), f"feature {name}")
    if im.csum:
        check(field("Checksum") == f"0x{sb['checksum']:08x}", "s_checksum")


def check_groups(img, im):
    text = run("dumpe2fs", img)
    groups = re.split(r"^Group (\d+): ", text, flags=re.M)[1:]
    check(len(groups) // 2 == im.groups, f"{len(groups) // 2} groups, ext4img {im.groups}")
    for g, body in zip(groups[::2], groups[1::2]):
        d = im.group(int(g))
        want = {"block_bitmap": r"Block bitmap at (\d+)", "inode_bitmap": r"Inode bitmap at (\d+)",
                "inode_table": r"Inode table at (\d+)",
                "free_blocks_count": r"(\d+) free blocks", "free_inodes_count": r"(\d+) free inodes"}
        for name, rx in want.items():
            m = re.search(rx, body)
            check(m and int(m.group(1)) == d[name], f"group {g} {name}: {d[name]}")
        check(("BLOCK_UNINIT" in body.split("\n")[0]) == bool(d["flags"] & E.BG_BLOCK_UNINIT),
              f"group {g}: BLOCK_UNINIT")
        m = re.search(r"csum 0x([0-9a-f]+)", body)
        if im.csum:
            check(m and int(m.group(1), 16) == d["checksum"], f"group {g}: checksum")


def check_inodes(img, im, src):
    entries = walk(im)
    check(len(entries) > 250, f"walk found only {len(entries)} entries")
    cmds = []
    for path, ino in entries:
        cmds += [f"stat <{ino}>", f"blocks <{ino}>", f"ea_list <{ino}>"]
        if im.inode(ino).is_dir():
            cmds += [f"ls -l <{ino}>", f"htree <{ino}>"]
    out = debugfs_batch(img, cmds)
    ndx = 0
    for path, ino in entries:
        i = im.inode(ino)
        st = out[f"stat <{ino}>"]
        what = f"{path.decode()} (inode {ino})"
        m = re.search(r"Mode:\s+0?(\d+)\s+Flags: 0x([0-9a-f]+)", st)
        check(m and int(m.group(1), 8) == i.mode & 0o7777 and int(m.group(2), 16) == i.flags,
              f"{what}: mode/flags")
        for rx, got in ((r"Size: (\d+)", i.size), (r"Links: (\d+)", i.links_count),
                        (r"Blockcount: (\d+)", i.blocks), (r"Generation: (\d+)", i.generation),
                        (r"File ACL: (\d+)", i.file_acl),
                        (r"Size of extra inode fields: (\d+)", i.extra_isize)):
            m = re.search(rx, st)
            check((int(m.group(1)) if m else None) == got, f"{what}: {rx.split(':')[0]} {got}")
        for t in ("ctime", "atime", "mtime", "crtime"):    # (crtime: large inodes only)
            m = re.search(r"^ *" + t + r": 0x([0-9a-f]+)(?::([0-9a-f]+))? --", st, re.M)
            want = (getattr(i, t), getattr(i, t + "_extra"))
            check((int(m.group(1), 16), m.group(2) and int(m.group(2), 16)) == want if m
                  else want == (None, None), f"{what}: {t}")
        if im.csum:
            m = re.search(r"Inode checksum: 0x([0-9a-f]+)", st)
            check(m and int(m.group(1), 16) == i.checksum_lo | i.checksum_hi << 16,
                  f"{what}: checksum")
        # debugfs lists the map's own blocks too (and garbage for a fast
        # symlink, whose i_block is text)
        dbg = [int(b) for b in out[f"blocks <{ino}>"].split()]
        meta = {b for b, _ in im.tree_blocks(ino)}
        if not (i.is_symlink() and i.size < 60):
            check([b for b in dbg if b not in meta] == im.blocks(ino) and
                  meta <= set(dbg), f"{what}: blocks")
        else:
            check(im.block_map(ino) == [] and not meta, f"{what}: a fast symlink has no blocks")
        listed = sorted(re.findall(r'^  (\S+) \((\d+)\)', out[f"ea_list <{ino}>"], re.M))
        mine = sorted(({1: "user."}.get(x.index, "?") + x.name.decode(), str(x.value_size))
                      for x in im.xattrs(ino))
        check(listed == mine, f"{what}: xattrs {mine}, debugfs {listed}")
        for x in im.xattrs(ino):       # libext2fs computed these hashes
            check(x.hash in (0, E.xattr_hash(x.name, x.value)), f"{what}: hash of {x.name}")
        if i.file_acl:                 # (libext2fs leaves the block's h_hash 0)
            check(sum(not x.in_inode and x.hash != 0 for x in im.xattrs(ino)) == 2,
                  f"{what}: two hashed attributes in the block")
        host = src + path.decode()
        if i.is_dir():
            ls = ls_l(out[f"ls -l <{ino}>"])
            mine = [(d.ino, d.ftype, d.name.decode()) for d in im.dir_entries(ino)]
            check(sorted(ls) == sorted(mine), f"{what}: ls, {len(ls)} by debugfs, {len(mine)}")
            dx = im.dx_root(ino)
            if dx:
                ndx += 1
                h = out[f"htree <{ino}>"]
                m = re.search(r"Hash Version: (\d+).*Indirect levels: (\d+).*"
                              r"count\): (\d+).*limit\): (\d+)", h, re.S)
                check(m and tuple(map(int, m.groups())) ==
                      (dx.hash_version, dx.levels, dx.count, dx.limit), f"{what}: htree root")
        elif i.is_symlink():
            check(im.read_file(ino) == os.readlink(host).encode(), f"{what}: target")
        elif path != b"/lost+found":
            with open(host, "rb") as f:
                check(im.read_file(ino) == f.read(), f"{what}: contents")
    check(im.lookup(b"/deep" + b"".join(b"/level%d" % k for k in range(40)) + b"/leaf") ==
          int(re.search(r"Inode: (\d+)", debugfs_batch(img, ["stat /deep/level0"])
                        ["stat /deep/level0"]).group(1)) + 40, "lookup of the deep leaf")
    return ndx


# ---------------------------------------------------------------- editing
def edit_fields(img):
    im = E.Image(img, write=True)
    ino = im.lookup("/sparse")
    i = im.inode(ino)
    im.write_inode(ino, {"mtime": 0x12345678, "mtime_extra": 0x4, "uid_high": 1,
                         "size": 5 << 30, "flags": i.flags | 0x20})     # 0x20: append only
    st = E.debugfs(img, f"stat <{ino}>").decode()
    check("mtime: 0x12345678:00000004" in st, "edit: mtime and its extra field")
    check("Size: 5368709120" in st and "Flags: 0x80020" in st, "edit: i_size_high, flags")
    check("User: 65536" in st, "edit: uid_high")
    im.write_inode(ino, {"size": i.size, "flags": i.flags, "uid_high": 0})
    f = im.lookup("/file")
    small = [x for x in im.xattrs(f) if x.in_inode][0]
    blockx = [x for x in im.xattrs(f) if not x.in_inode][-1]
    im.set_xattr_value(f, small, b"HELLO")
    im.set_xattr_value(f, blockx, b"Z" * blockx.value_size)
    got = work_file(img, f"ea_get -f {{}} <{f}> user.small")
    check(got == b"HELLO", f"edit: in-inode xattr: {got!r}")
    got = work_file(img, f"ea_get -f {{}} <{f}> user.{blockx.name.decode()}")
    check(got == b"Z" * blockx.value_size, f"edit: xattr in a block: {got[:20]!r}")
    check(not im.check_csums([ino, f]), "edit: checksums")
    fsck_clean(img, "after inode and xattr edits")
    im.close()


def work_file(img, cmd):
    """What a debugfs command writes to the file named {} in cmd."""
    path = img + ".out"
    E.debugfs(img, cmd.format(path))
    with open(path, "rb") as f:
        return f.read()


def craft_file(img, name, depth):
    """New blocks for an empty file: 4 written, a hole, 3 unwritten, 5
    written, from a group whose bitmap is not initialised yet
    (BLOCK_UNINIT), with an extent tree of this depth."""
    im = E.Image(img, write=True)
    ino = im.lookup(name)
    uninit = [g for g in range(im.groups) if im.group(g)["flags"] & E.BG_BLOCK_UNINIT]
    if not check(uninit, f"{name}: no BLOCK_UNINIT group left"):
        return
    first = im.first_data_block + uninit[0] * im.bpg
    data = im.alloc_blocks(12, goal=first)
    tree = im.alloc_blocks(depth, goal=first)
    check(all(first <= b < first + im.bpg for b in data + tree),
          f"{name}: blocks outside group {uninit[0]}")
    check(not im.group(uninit[0])["flags"] & E.BG_BLOCK_UNINIT,
          f"{name}: BLOCK_UNINIT still set")
    runs = [(0, 4, data[0], False), (10, 3, data[4], True), (20, 5, data[7], False)]
    check(data == list(range(data[0], data[0] + 12)), f"{name}: blocks not contiguous")
    iblock, nodes = E.build_extent_tree(runs, tree, im.bs, depth=depth)
    want = bytearray(25 * im.bs)
    for lblk, n, pblk, unwritten in runs:
        for k in range(n):
            blk = bytes([(lblk + k) & 0xFF]) * im.bs
            im.write_block(pblk + k, blk)
            if not unwritten:
                want[(lblk + k) * im.bs:(lblk + k + 1) * im.bs] = blk
    im.write_extent_tree(ino, iblock, nodes)
    im.write_inode(ino, {"size": len(want), "blocks": (12 + depth) * im.bs // 512})
    check(E.debugfs(img, f"blocks <{ino}>").decode().split() == [str(b) for b in tree[::-1] + data],
          f"{name}: debugfs blocks (the tree top down, then data)")
    check(E.debugfs(img, f"cat <{ino}>") == bytes(want), f"{name}: debugfs cat")
    check(im.read_file(ino) == bytes(want), f"{name}: read_file")
    check(im.block_map(ino) == [E.Extent(lb, pb, n, u) for lb, n, pb, u in runs],
          f"{name}: block_map {im.block_map(ino)}")
    check(sorted(im.tree_blocks(ino)) == [(b, k) for k, b in enumerate(tree)],
          f"{name}: tree blocks")
    check(not im.check_csums([ino]), f"{name}: checksums")
    fsck_clean(img, f"after crafting {name} (depth {depth})")
    free_count(img, im, name)
    im.close()


def craft_dir(img):
    """/crafted rebuilt: . .. and 150 links to /file in several blocks."""
    im = E.Image(img, write=True)
    d, f = im.lookup("/crafted"), im.lookup("/file")
    ents = [(d, E.FT_DIR, b"."), (2, E.FT_DIR, b"..")] + \
        [(f, E.FT_REG, b"link-%03d-" % k + b"y" * (k % 50)) for k in range(150)]
    blocks = E.build_dir_blocks(ents, im.bs, csum_tail=im.csum)
    check(len(blocks) > 4, f"crafted: only {len(blocks)} directory blocks")
    pblks = [im.blocks(d)[0]] + im.alloc_blocks(len(blocks) - 1)
    for b, data in zip(pblks, blocks):
        im.write_dir_block(d, b, data)
    runs = [(0, 1, pblks[0], False), (1, len(pblks) - 1, pblks[1], False)]
    iblock, nodes = E.build_extent_tree(runs, [], im.bs)
    im.write_extent_tree(d, iblock, nodes)
    im.write_inode(d, {"size": len(blocks) * im.bs, "blocks": len(blocks) * im.bs // 512})
    im.write_inode(f, {"links_count": im.inode(f).links_count + 150})
    ls = ls_l(E.debugfs(img, f"ls -l <{d}>").decode())
    check(ls == [(e[0], e[1], e[2].decode()) for e in ents], f"crafted: debugfs ls: {len(ls)} names")
    check([(x.ino, x.name) for x in im.dir_entries(d)] == [(e[0], e[2]) for e in ents],
          "crafted: dir_entries")
    fsck_clean(img, "after crafting a directory")
    im.close()


def check_builders():
    pairs = [(0x12345678 + k, 0x9abc0000 + k) for k in range(3)]
    ents = [(11, E.FT_REG, b"n%d" % k * (k + 1), pairs[k]) for k in range(3)]
    blk = E.build_dir_blocks(ents, 1024)[0]
    got = E.parse_dir_block(blk, True, True)
    check([d.hash for d in got] == pairs and [d.off for d in got] == [0, 20, 40],
          f"hash pairs after the name: {got}")
    check(blk[8 + 4:8 + 8] == struct.pack("<I", pairs[0][0]), "hash at round_up(8 + len, 4)")


def craft_hostile(img):
    """On a copy: trees the reader must refuse unless told otherwise."""
    im = E.Image(img, write=True)
    ino = im.lookup("/empty")
    leaf, index, data = im.alloc_blocks(3)
    node = E.extent_node(0, [(0, 1, data, False)], (im.bs - 12) // 12)
    im.write_block(leaf, bytes(node) + bytes(im.bs - len(node)))
    shared = E.extent_node(1, [(0, leaf), (1, leaf)], 4)     # one leaf twice
    im.write_inode(ino, {"block": bytes(shared) + bytes(60 - len(shared)),
                         "flags": E.EXTENTS_FL})
    check(_raises(lambda: im.block_map(ino)), "a shared extent subtree not refused")
    check(len(im.block_map(ino, shared_ok=True)) == 2, "shared_ok")
    chain = im.alloc_blocks(6)
    iblock, nodes = E.build_extent_tree([(0, 1, data, False)], chain, im.bs, depth=6)
    im.write_extent_tree(ino, iblock, nodes)
    check(_raises(lambda: im.block_map(ino)), "an extent tree of depth 6 not refused")
    check(im.block_map(ino, max_depth=6) == [E.Extent(0, data, 1, False)] and
          len(im.tree_blocks(ino, max_depth=6)) == 6, "depth 6 with max_depth=6")
    loop = E.extent_node(1, [(0, chain[0])], (im.bs - 12) // 12)   # points to itself
    im.write_block(chain[0], bytes(loop) + bytes(im.bs - len(loop)))
    im.write_inode(ino, {"block": bytes(E.extent_node(1, [(0, chain[0])], 4)) + bytes(36)})
    check(_raises(lambda: im.block_map(ino, shared_ok=True, max_depth=99)),
          "an extent tree block that points to itself not refused")
    im.close()


def _raises(fn):
    try:
        fn()
    except E.ExtError:
        return True
    return False


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = work + "/src"
    make_tree(src)
    a, b, c = work + "/a.img", work + "/b.img", work + "/c.img"
    run("mkfs.ext4", "-q", "-F", "-b", "1024", "-N", "1024", "-d", src, a, "64M")
    big = work + "/big-value"
    with open(big, "wb") as f:
        f.write(b"B" * 400)    # two of them fill most of a 1 KiB block
    # (names of 3, 4 and 5 bytes: entries of 20 and 24 bytes)
    E.debugfs(a, "ea_set /file user.small hello", "ea_set /file user.four 4444",
              "ea_set /file user.abc x", f"ea_set -f {big} /file user.big",
              f"ea_set -f {big} /file user.a-longer-name-in-the-block", write=True)
    run("e2fsck", "-fyD", a, ok=(0, 1))       # index the big directory
    run("mkfs.ext4", "-q", "-F", "-b", "1024", "-O", "^extent,^64bit,^metadata_csum",
        "-I", "128", "-N", "1024", "-d", src, b, "32M")
    run("mkfs.ext4", "-q", "-F", "-d", src, c, "32M")     # the defaults: 4 KiB blocks
    for img in (a, b, c):
        im = E.Image(img)
        check_superblock(img, im)
        check_groups(img, im)
        ndx = check_inodes(img, im, src)
        check(ndx >= 1 or img != a, f"{img}: no htree directory")
        check(not im.csum or not im.check_csums([x for _, x in walk(im)]),
              f"{img}: checksums: {im.csum and im.check_csums([x for _, x in walk(im)])}")
        im.close()
    im = E.Image(b)
    large = im.lookup("/large")
    # (its first block is zeros: mkfs -d leaves a hole)
    check(im.inode(large).flags & E.EXTENTS_FL == 0 and len(im.blocks(large)) == 1199 and
          sorted(level for _, level in im.tree_blocks(large)) == [1] * 5 + [2],
          "b.img: /large is mapped through indirect and double indirect blocks")
    im.close()
    check_builders()
    edit_fields(a)
    craft_file(a, "/grow", 1)
    craft_file(a, "/grow3", 3)
    craft_dir(a)
    shutil.copyfile(a, work + "/hostile.img")
    craft_hostile(work + "/hostile.img")
    print(f"{results[0]} passed, {results[1]} failed")
    sys.exit(1 if results[1] else 0)


if __name__ == "__main__":
    main()
