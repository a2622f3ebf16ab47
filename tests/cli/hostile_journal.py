#!/usr/bin/env python3
"""Hostile ext4 images with a hand-written jbd2 journal (no checksums),
for tests/cli/undelete_hostile.sh: each MODE once broke undelete or
journal (a heap overflow, or time or memory far beyond the metadata).
usage: hostile_journal.py MODE OUT.img   MODE: deep quad bigdir sus revoke
jalias revdup revdistinct dircycle samename reserved badlink aclhigh revoked
slash
(JMB, NLEAF, NCOPY, LARGEDIR tune the sizes; BS and FSSIZE make small
images of the modes dircycle..aclhigh, as fuzz seeds: fuzz/make-seeds.sh)"""
import struct, subprocess, sys, os, re
mode, img = sys.argv[1], sys.argv[2]
BS = int(os.environ.get('BS', '4096'))
FSSIZE = os.environ.get('FSSIZE', '256M')
jsize = int(os.environ.get('JMB', {'quad': 32, 'deep': 4, 'bigdir': 4, 'revoke': 8, 'sus': 4, 'revdup': 32, 'revdistinct': 32}.get(mode, 4)))
if os.path.exists(img): os.remove(img)
subprocess.run(['mke2fs','-q','-F','-t','ext4','-O','^metadata_csum','-b',str(BS),'-I','256',
                '-J','size=%d'%jsize] + (['-N', '1100'] if FSSIZE != '256M' else []) +
               [img, FSSIZE], check=True)
def dbg(cmds):
    r = subprocess.run(['debugfs','-w','-f','-',img], input='\n'.join(cmds)+'\n',
                       capture_output=True, text=True)
    return r.stdout
def dbg_ro(cmd):
    return subprocess.run(['debugfs','-R',cmd,img], capture_output=True, text=True).stdout
def ino_of(path):
    out = dbg_ro('stat "%s"' % path)
    return int(re.search(r'Inode: (\d+)', out).group(1))
def blocks_of(spec):
    out = dbg_ro('blocks %s' % spec)
    return [int(x) for x in out.split()]

f = open(img, 'r+b')
def rd(blk):
    f.seek(blk*BS); return bytearray(f.read(BS))
def wr(blk, data):
    f.seek(blk*BS); f.write(bytes(data))

jb = blocks_of('<8>')
itable0 = int(re.search(r'Inode table at (\d+)', subprocess.run(['dumpe2fs',img],capture_output=True,text=True).stdout).group(1))
def itable_loc(ino):
    idx = ino - 1  # group 0 only (inodes per group 32768)
    return itable0 + idx*256//BS, idx*256 % BS

def dirent(ino, name, ft, rec_len):
    return struct.pack('<IHBB', ino, rec_len, len(name), ft) + name + b'\0'*(rec_len-8-len(name))

def dir_inode(buf, off, size, iblock, flags=0x80000, links=2, mode=0o40755):
    ino = bytearray(256)
    struct.pack_into('<HHIIIIIHHI', ino, 0, mode, 0, size & 0xffffffff, 0,0,0,0, 0, links, 8)
    struct.pack_into('<I', ino, 0x20, flags)
    ino[0x28:0x28+60] = iblock
    struct.pack_into('<I', ino, 0x6c, size >> 32)
    struct.pack_into('<H', ino, 0x80, 32)
    buf[off:off+256] = ino

def ext_root(extents, depth=0, max_=4):
    b = struct.pack('<HHHHI', 0xf30a, len(extents), max_, depth, 0)
    for e in extents:
        if depth == 0:
            lblk, ln, pblk = e
            b += struct.pack('<IHHI', lblk, ln, pblk >> 32, pblk & 0xffffffff)
        else:
            lblk, pblk = e
            b += struct.pack('<IIHH', lblk, pblk & 0xffffffff, pblk >> 32, 0)
    return b

# --- journal writer (no checksums, 32-bit tags of 8 bytes)
JMAGIC = 0xc03b3998
jsb = rd(jb[0])
seq0 = struct.unpack('>I', jsb[0x18:0x1c])[0]
jpos = 1
def jput(data):
    global jpos
    wr(jb[jpos], data); jpos += 1
def transaction(seq, copies):
    """copies: list of (fs_block, bytes)"""
    d = bytearray(BS)
    struct.pack_into('>III', d, 0, JMAGIC, 1, seq)
    off = 12
    for i, (blk, data) in enumerate(copies):
        flags = 0 if i == 0 else 2
        if i == len(copies) - 1: flags |= 8
        struct.pack_into('>IHH', d, off, blk, 0, flags); off += 8
        if i == 0: off += 16
    assert off <= BS
    jput(d)
    for blk, data in copies:
        assert struct.unpack('>I', data[:4])[0] != JMAGIC
        jput(data)
    c = bytearray(BS)
    struct.pack_into('>III', c, 0, JMAGIC, 2, seq)
    jput(c)

if mode == 'deep':
    dbg(['mkdir ' + '/'.join(['a']*k) for k in range(1, 63)])
    f.close(); f = open(img, 'r+b')
    deep = '/' + '/'.join(['a']*62)
    L = ino_of(deep); P = ino_of('/' + '/'.join(['a']*61))
    Lblk = blocks_of(deep)[0]
    A = 1000; B = 60000
    dblk = bytearray(dirent(L, b'.', 2, 12) + dirent(P, b'..', 2, 12) + dirent(A, b'x', 2, BS-24))
    itb, ioff = itable_loc(A)
    it = rd(itb)
    dir_inode(it, ioff, BS, ext_root([(0, 1, B)]).ljust(60, b'\0'))
    name = b'N'*253 + b'\xff\xff'
    bblk = bytearray(dirent(A, b'.', 2, 12) + dirent(L, b'..', 2, 12) + dirent(12, name, 1, BS-24))
    transaction(seq0, [(Lblk, dblk), (itb, it), (B, bblk)])
elif mode == 'quad':
    root_blk = blocks_of('<2>')[0]
    live = rd(root_blk)
    X = 5000
    itb, ioff = itable_loc(X)
    it = rd(itb)   # X unused in every copy
    T = 0
    njb = len(jb)
    while jpos + 4 < njb:
        # root block copy: ".", "..", lost+found, then ~330 distinct names -> X
        d = bytearray(dirent(2, b'.', 2, 12) + dirent(2, b'..', 2, 12))
        k = 0
        while len(d) + 12 <= BS - 12:
            d += dirent(X, b'%04x' % ((T * 400 + k) & 0xffff) if False else struct.pack('>I', T*400+k), 1, 12)
            k += 1
        d += dirent(X, b'zz', 1, BS - len(d))
        transaction(seq0 + T, [(root_blk, d), (itb, it)])
        T += 1
    print('transactions', T, 'names per copy', k)
elif mode == 'bigdir':
    if os.environ.get('LARGEDIR'):
        f.close(); subprocess.run(['tune2fs','-O','large_dir',img],check=True,capture_output=True); f = open(img,'r+b')
    root_blk = blocks_of('<2>')[0]
    A = 1000
    P = 20000                       # data pblk of every extent
    leaf0 = 40000                   # 4 leaf blocks in the live image
    NLEAF = int(os.environ.get('NLEAF', '4'))
    per = (BS - 12) // 12
    idx = []
    for li in range(NLEAF):
        base = li * per * 32768
        ex = [(base + i*32768, 32768, P) for i in range(per)]
        wr(leaf0 + li, ext_root(ex, 0, per))
        idx.append((base, leaf0 + li))
    if NLEAF <= 4:
        root = ext_root(idx, 1, 4)
    else:
        # depth 2: 1 index block of NLEAF entries
        wr(leaf0 + NLEAF, ext_root(idx, 1, per))
        root = ext_root([(0, leaf0 + NLEAF)], 2, 4)
    itb, ioff = itable_loc(A)
    it = rd(itb)
    dir_inode(it, ioff, (1 << 44) - 4096, root.ljust(60, b'\0'))
    d = bytearray(rd(root_blk))
    # replace the root block copy: ., .., lost+found, y -> A
    d = bytearray(dirent(2, b'.', 2, 12) + dirent(2, b'..', 2, 12) + dirent(11, b'lost+found', 2, 20) + dirent(A, b'y', 2, BS-44))
    ncp = int(os.environ.get('NCOPY', '200'))
    copies = [(root_blk, d), (itb, it)] + [(P + k, bytearray(b'\1' * BS)) for k in range(ncp)]
    transaction(seq0, copies)
if mode == 'sus':
    root_blk = blocks_of('<2>')[0]
    A = 1000
    PB = 65535
    leaf0 = 40000
    NLEAF = int(os.environ.get('NLEAF', '4'))
    per = (BS - 12) // 12
    idx = []
    for li in range(NLEAF):
        base = li * per * 2
        ex = [(base + 2*i, 1, PB) for i in range(per)]
        wr(leaf0 + li, ext_root(ex, 0, per))
        idx.append((base, leaf0 + li))
    wr(leaf0 + NLEAF, ext_root(idx, 1, per))
    root = ext_root([(0, leaf0 + NLEAF)], 2, 4)
    itb, ioff = itable_loc(A)
    it = rd(itb)
    dir_inode(it, ioff, NLEAF * per * 2 * BS, root.ljust(60, b'\0'), mode=0o100644, links=1)
    struct.pack_into('<I', it, ioff + 0x1c, 0xfffffff0)
    d = bytearray(dirent(2, b'.', 2, 12) + dirent(2, b'..', 2, 12) + dirent(11, b'lost+found', 2, 20) + dirent(A, b'z', 1, BS-44))
    transaction(seq0, [(root_blk, d), (itb, it)])
    f.truncate(65535 * BS)
if mode == 'revoke':
    T = 0
    while jpos < len(jb):
        r = bytearray(BS)
        struct.pack_into('>IIII', r, 0, JMAGIC, 5, seq0 + T, BS)
        for k in range(16, BS, 4):
            struct.pack_into('>I', r, k, 1000 + k)
        jput(r); T += 1
    print('revoke blocks', T)

def inode(mode_, size, iblock, flags=0x80000, links=1, blocks=0, gen=0):
    b = bytearray(256)
    struct.pack_into('<HHIIIIIHHI', b, 0, mode_, 0, size, 0, 0, 0, 0, 0, links, blocks)
    struct.pack_into('<I', b, 0x20, flags)
    b[0x28:0x28+60] = bytes(iblock).ljust(60, b'\0')
    struct.pack_into('<I', b, 0x64, gen)
    struct.pack_into('<H', b, 0x80, 32)
    return b
def dirblock(entries, parent=2, self_=None):
    """entries: (ino, name, ft); the block of a directory (self_) or the
    root (self_ None)"""
    d = bytearray(dirent(self_ or 2, b'.', 2, 12) + dirent(parent, b'..', 2, 12))
    if self_ is None:
        d += dirent(11, b'lost+found', 2, 20)
    for i, (ino, name, ft) in enumerate(entries):
        ln = (8 + len(name) + 3) & ~3
        if i == len(entries) - 1:
            ln = BS - len(d)
        d += dirent(ino, name, ft, ln)
    return d
def put_inodes(it, inodes):
    for ino, raw in inodes:
        b, o = itable_loc(ino)
        it[o:o+256] = raw
EMPTY = ext_root([])
if mode == 'jalias':
    # the journal inode's four extents all name the journal's first 1024
    # blocks: 4096 journal blocks on 1024 filesystem blocks
    b8, o8 = itable_loc(8)
    it = rd(b8)
    ext = ext_root([(i * 1024, 1024, jb[0]) for i in range(4)])
    it[o8+0x28:o8+0x28+60] = ext.ljust(60, b'\0')
    struct.pack_into('<I', it, o8 + 4, 4096 * BS)
    wr(b8, it)
    struct.pack_into('>I', jsb, 0x10, 4096)        # s_maxlen
    wr(jb[0], jsb)
    transaction(seq0, [(blocks_of('<2>')[0], rd(blocks_of('<2>')[0]))])
if mode == 'revdistinct':
    # one transaction whose revoke blocks fill the log, every record a
    # block of its own
    n = 0
    while jpos < len(jb):
        r = bytearray(BS)
        struct.pack_into('>IIII', r, 0, JMAGIC, 5, seq0, BS)
        for k in range(16, BS, 4):
            struct.pack_into('>I', r, k, 100000 + n); n += 1
        jput(r)
if mode == 'revdup':
    # one transaction whose revoke blocks fill the log, each record one
    # of 8 blocks
    while jpos < len(jb):
        r = bytearray(BS)
        struct.pack_into('>IIII', r, 0, JMAGIC, 5, seq0, BS)
        for k in range(16, BS, 4):
            struct.pack_into('>I', r, k, 1000 + (k // 4) % 8)
        jput(r)
if mode in ('dircycle', 'samename', 'reserved', 'badlink', 'aclhigh', 'revoked', 'slash'):
    root_blk = blocks_of('<2>')[0]
    A, B, FA, FB, L = 1000, 1001, 1002, 1003, 1004
    nblk = os.path.getsize(img) // BS
    PA, PB = (50000, 50001) if nblk > 60000 else (nblk - 20, nblk - 19)
    itb = itable_loc(A)[0]
    it = rd(itb)
    diri = lambda p: inode(0o40755, BS, ext_root([(0, 1, p)]), links=2, blocks=8)
    if mode == 'dircycle':
        # deleted a/ names b/ and b/ names a/: each is one directory
        put_inodes(it, [(A, diri(PA)), (B, diri(PB))])
        transaction(seq0, [(root_blk, dirblock([(A, b'a', 2), (B, b'b', 2)])), (itb, it),
                           (PA, dirblock([(B, b'b2', 2)], 2, A)),
                           (PB, dirblock([(A, b'a2', 2)], 2, B))])
    elif mode == 'samename':
        # two deleted directories named d (inodes A, then B), one file each
        put_inodes(it, [(A, diri(PA)), (B, diri(PB)),
                        (FA, inode(0o100644, 0, EMPTY)), (FB, inode(0o100644, 0, EMPTY))])
        transaction(seq0, [(root_blk, dirblock([(A, b'd', 2)])), (itb, it),
                           (PA, dirblock([(FA, b'fa', 1)], 2, A))])
        transaction(seq0 + 1, [(root_blk, dirblock([(B, b'd', 2)])),
                               (PB, dirblock([(FB, b'fb', 1)], 2, B))])
    elif mode == 'revoked':
        # a deleted block symlink (block PA): its copy in transaction 1
        # holds "old", transaction 2 revokes PA (freed, then written as
        # data: "new" in the live image), transaction 3 deletes the name.
        # Replayed as jbd2 would before the deletion, PA is the live block
        put_inodes(it, [(L, inode(0o120777, 3, ext_root([(0, 1, PA)]), blocks=BS // 512))])
        wr(PA, b'new'.ljust(BS, b'\0'))
        transaction(seq0, [(root_blk, dirblock([(L, b'l', 7)])), (itb, it),
                           (PA, b'old'.ljust(BS, b'\0'))])
        r = bytearray(BS)
        struct.pack_into('>IIII', r, 0, JMAGIC, 5, seq0 + 1, 16 + 4)
        struct.pack_into('>I', r, 16, PA)
        jput(r)
        c = bytearray(BS)
        struct.pack_into('>III', c, 0, JMAGIC, 2, seq0 + 1)
        jput(c)
        transaction(seq0 + 2, [(root_blk, dirblock([(1005, b'z', 1)]))])
    elif mode == 'slash':
        # names no directory of a mounted filesystem can hold, as a
        # hostile or damaged journal may: deleted file "a/b" in the root,
        # deleted directory "p/q" holding file "r/s"; and inode 1006
        # freed (links 0, i_dtime 1600000000 in the live table) whose
        # name no copy holds (an orphan), in use in the copy
        FO = 1006
        put_inodes(it, [(A, diri(PA)), (FA, inode(0o100644, 0, EMPTY)),
                        (FB, inode(0o100644, 0, EMPTY)),
                        (FO, inode(0o100644, 0, EMPTY, gen=7))])
        transaction(seq0, [(root_blk, dirblock([(FB, b'a/b', 1), (A, b'p/q', 2)])), (itb, it),
                           (PA, dirblock([(FA, b'r/s', 1)], 2, A))])
        live = rd(itb)
        o = itable_loc(FO)[1]
        live[o:o+256] = inode(0o100644, 0, EMPTY, links=0, gen=7)
        struct.pack_into('<I', live, o + 0x14, 1600000000)
        wr(itb, live)
    elif mode == 'aclhigh':
        # a deleted fast symlink with an xattr block whose number is all
        # in l_i_file_acl_high: i_blocks counts that block, none of data
        ino = inode(0o120777, 5, b'hello', flags=0, blocks=8)
        struct.pack_into('<H', ino, 0x76, 1)
        put_inodes(it, [(L, ino)])
        transaction(seq0, [(root_blk, dirblock([(L, b'l', 7)])), (itb, it)])
    elif mode == 'badlink':
        # a deleted fast symlink whose target is not UTF-8
        put_inodes(it, [(L, inode(0o120777, 5, b'\xff\xfeabc', flags=0))])
        transaction(seq0, [(root_blk, dirblock([(L, b'l', 7)])), (itb, it)])
    else:
        # names of the root (2), the resize inode (7), the journal (8):
        # their copies in use with another generation; and of live file
        # g (12) under its old name gone
        f.close()
        dbg(['write /etc/hostname g'])
        f = open(img, 'r+b')
        root_blk = blocks_of('<2>')[0]
        b0 = itable_loc(2)[0]
        it0 = rd(b0)
        for ino in (2, 7, 8):
            struct.pack_into('<I', it0, itable_loc(ino)[1] + 0x64, 0x5555)
        transaction(seq0, [(root_blk, dirblock([(12, b'g', 1), (2, b'r', 2), (7, b'rz', 1),
                                                (8, b'j', 1), (12, b'gone', 1)])),
                           (b0, it0)])
f.close()
print('ok', mode, img)
