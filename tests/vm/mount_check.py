#!/usr/bin/env python3
"""Checks of an `e4dump mount` view (tests/vm/mount.sh) that need more than
a shell: every answer is compared with the kernel's manifest (contents from
check_extract.py's own generator) or with the image as tests/lib/ext4img.py
reads it, never with e4dump's output.

  mount_check.py reads MANIFEST MNT [T]...
        reads at many offsets (unaligned, across 512/1 KiB/4 KiB and
        readahead boundaries, at and past the end) of the largest file and
        the sparse files of each tree, through dd (bs=1, bs=4096, byte
        offsets) and pread, against the generator's bytes
  mount_check.py sha MANIFEST PATH
        the sha256 of what the manifest says PATH (image-relative) holds
  mount_check.py inodes IMG DIR...
        every entry under DIR: st_ino is an inode of the image whose mode,
        links, owner, size and times (with nanoseconds, epoch bits) are the
        stat; readdir's d_ino is st_ino; a symlink's st_size is the length
        of what readlink gives
  mount_check.py context MANIFEST MNT IMG [T]... [--symlink-listxattr]
        user.e4dump.context of every entry of each tree: the tree line's
        policy (version, descriptor or identifier, modes, flags) and the
        nonce of the inode's own context (ext4img); listxattr names it; on
        an unencrypted tree ENODATA and an empty list; on a symlink
        ENODATA (Linux allows user.* attributes on regular files and
        directories only), and with --symlink-listxattr listxattr must not
        name it there either
  mount_check.py locked IMG DIR [--keep]
        every regular file under DIR (a tree no given key opens): open
        fails with EACCES, or (--keep, mounted with --keep-locked) reads
        as the image's stored bytes up to i_size; symlinks: st_size is the
        length of readlink's no-key target
  mount_check.py writes FILE DIR
        write system calls on FILE and in DIR fail with EROFS
  mount_check.py nokey-lookup MANIFEST MNT TAG
        with the key, every no-key name of the kernel's readdir TAG is
        found, and they reach exactly the inodes of the decrypted names
  mount_check.py openmany MANIFEST MNT TREE N
        N files of TREE open twice at once (more than e4dump caches), read
        interleaved through both handles, against the generator

One line per failure ("FAIL ..."), then a summary line; exit 1 on any failure.
"""
import errno
import hashlib
import os
import random
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
from check_extract import expected_content, parse_manifest, read_records  # noqa: E402
import ext4img  # noqa: E402

XATTR = "user.e4dump.context"
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL " + msg)


def show(p):
    return os.fsdecode(p) if isinstance(p, bytes) else p


def selected(trees, want):
    return [t for t in trees if not want or t in want]


# -- reads -----------------------------------------------------------------
def dd(path, *ops):
    r = subprocess.run(["dd", "if=" + os.fsdecode(path), "status=none", *ops],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        return None, r.stderr.decode(errors="replace").strip()
    return r.stdout, None


def cmd_reads(args):
    man, mnt, want = args[0], args[1].encode(), [a for a in args[2:] if a != "--tree"]
    trees, entries = parse_manifest(man)
    cache, rng, n = {}, random.Random(17), 0
    for t in selected(trees, want):
        files = [e for e in entries if e.tree == t and e.type == "f" and e.size]
        sparse = [e for e in entries if e.tree == t and e.type == "s"]
        if not files:
            continue
        for e in [max(files, key=lambda e: e.size)] + sparse:
            data = expected_content(e, cache)
            size, path = e.size, os.path.join(mnt, e.path)
            plan = [(0, 1), (511, 2), (1023, 3), (1021, 1030), (4093, 7), (4095, 4098),
                    (8191, 1), (12289, 5000), (65535, 3), (131069, 9), (size - 5, 100),
                    (size - 1, 1), (size, 10), (size + 4096, 1)]
            plan += [(rng.randrange(size), rng.randrange(1, 20000)) for _ in range(10)]
            for k, (off, cnt) in enumerate(plan):
                off = max(off, 0)
                exp = data[off:off + cnt]
                how = k % 3
                if how == 0 and cnt <= 5000:
                    got, err = dd(path, "bs=1", f"skip={off}", f"count={cnt}")
                    via = f"dd bs=1 skip={off} count={cnt}"
                elif how == 1:
                    got, err = dd(path, f"bs={cnt}", "iflag=skip_bytes,count_bytes",
                                  f"skip={off}", f"count={cnt}")
                    via = f"dd skip={off} count={cnt} (bytes)"
                else:
                    fd = os.open(path, os.O_RDONLY)
                    try:
                        got, err = os.pread(fd, cnt, off), None
                        # a read that ends short must end at the file's end
                        while got and len(got) < cnt and off + len(got) < size:
                            more = os.pread(fd, cnt - len(got), off + len(got))
                            if not more:
                                break
                            got += more
                    except OSError as exc:
                        got, err = None, str(exc)
                    finally:
                        os.close(fd)
                    via = f"pread({off}, {cnt})"
                n += 1
                if err is not None:
                    fail(f"{show(e.path)}: {via}: {err}")
                elif got != exp:
                    fail(f"{show(e.path)}: {via}: {len(got)} bytes, want {len(exp)}"
                         f"{'' if len(got) != len(exp) else ', contents differ'}")
            # whole 4 KiB blocks by dd bs=4096, among them the last (short)
            last = (size - 1) // 4096
            for blk, cnt in ((0, 1), (1, 3), (last - 1, 2), (last, 1), (last + 1, 1)):
                blk = max(blk, 0)
                got, err = dd(path, "bs=4096", f"skip={blk}", f"count={cnt}")
                exp = data[blk * 4096:(blk + cnt) * 4096]
                n += 1
                if err is not None or got != exp:
                    fail(f"{show(e.path)}: dd bs=4096 skip={blk} count={cnt}: "
                         f"{err or f'{len(got)} bytes, want {len(exp)}'}")
    if n == 0:
        fail("no file to read in the selected trees")
    print(f"reads: {n} reads at chosen and random offsets, {failures} wrong")


def cmd_sha(args):
    trees, entries = parse_manifest(args[0])
    e = next(e for e in entries if e.path == args[1].encode() and e.type in "fsh")
    print(hashlib.sha256(expected_content(e, {})).hexdigest())


# -- inodes ----------------------------------------------------------------
def walk(top):
    """(path, lstat, d_ino from readdir or None) of top and everything under it."""
    top = os.fsencode(top)
    yield top, os.lstat(top), None
    stack = [top]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for de in it:
                st = os.lstat(de.path)
                # readdir's d_type (DirEntry answers from it) is the type
                if (de.is_dir(follow_symlinks=False), de.is_symlink(),
                        de.is_file(follow_symlinks=False)) != (
                        stat.S_ISDIR(st.st_mode), stat.S_ISLNK(st.st_mode),
                        stat.S_ISREG(st.st_mode)):
                    fail(f"{show(de.path)}: readdir's d_type is not the type lstat gives")
                yield de.path, st, de.inode()
                if stat.S_ISDIR(st.st_mode):
                    stack.append(de.path)


def ext4_time(raw, extra):
    sec = raw - (1 << 32) if raw >= 1 << 31 else raw
    if extra is None:
        return sec * 10**9
    return (sec + ((extra & 3) << 32)) * 10**9 + (extra >> 2)


def cmd_inodes(args):
    im = ext4img.Image(args[0])
    n, seen = 0, {}
    for top in args[1:]:
        for p, st, d_ino in walk(top):
            n += 1
            if d_ino is not None and d_ino != st.st_ino:
                fail(f"{show(p)}: readdir d_ino {d_ino}, stat st_ino {st.st_ino}")
            i = im.inode(st.st_ino)
            uid = i.uid | ((i.uid_high or 0) << 16)
            gid = i.gid | ((i.gid_high or 0) << 16)
            probs = []
            if st.st_mode != i.mode:
                probs.append(f"mode {st.st_mode:o}, inode {i.mode:o}")
            if st.st_nlink != i.links_count:
                probs.append(f"nlink {st.st_nlink}, inode {i.links_count}")
            if (st.st_uid, st.st_gid) != (uid, gid):
                probs.append(f"owner {st.st_uid}:{st.st_gid}, inode {uid}:{gid}")
            if stat.S_ISLNK(st.st_mode):
                tl = len(os.readlink(p))
                if st.st_size != tl:
                    probs.append(f"symlink size {st.st_size}, readlink gives {tl} bytes")
            elif st.st_size != i.size:
                probs.append(f"size {st.st_size}, inode {i.size}")
            if not i.flags & 0x40000 and st.st_blocks != i.blocks:    # no HUGE_FILE_FL
                probs.append(f"st_blocks {st.st_blocks}, inode {i.blocks}")
            if st.st_blksize != im.bs:
                probs.append(f"st_blksize {st.st_blksize}, block size {im.bs}")
            for name in ("mtime", "ctime", "atime"):
                want = ext4_time(getattr(i, name), getattr(i, name + "_extra"))
                got = getattr(st, f"st_{name}_ns")
                if got != want:
                    probs.append(f"{name} {got} ns, inode {want} ns")
            if probs:
                fail(f"{show(p)} (inode {st.st_ino}): " + "; ".join(probs))
            if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and st.st_ino in seen:
                fail(f"{show(p)}: st_ino {st.st_ino} also {show(seen[st.st_ino])}")
            seen.setdefault(st.st_ino, p)
    if n < 2:
        fail("nothing walked")
    print(f"inodes: {n} entries stat'ed against the image's inodes, {failures} wrong")


# -- context ---------------------------------------------------------------
def flag_names(f):
    s = f"PAD_{4 << (f & 3)}"
    for bit, name in ((4, "DIRECT_KEY"), (8, "IV_INO_LBLK_64"), (16, "IV_INO_LBLK_32")):
        if f & bit:
            s += "|" + name
    return s


def cmd_context(args):
    strict = "--symlink-listxattr" in args
    args = [a for a in args if a != "--symlink-listxattr"]
    man, mnt, img, want = args[0], args[1], args[2], args[3:]
    symlinks_listed = [] if strict else None
    trees, _ = parse_manifest(man)
    im = ext4img.Image(img)
    n = 0
    for t in selected(trees, want):
        w = trees[t]
        kind = w[0]
        for p, st, _ in walk(os.path.join(mnt, t)):
            n += 1
            try:
                got = os.getxattr(p, XATTR, follow_symlinks=False)
            except OSError as exc:
                got = exc
            names = os.listxattr(p, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                # Linux keeps user.* attributes to regular files and
                # directories: getxattr gives ENODATA before asking e4dump
                if not (isinstance(got, OSError) and got.errno == errno.ENODATA):
                    fail(f"{show(p)}: symlink: getxattr {got!r}, want ENODATA")
                if names and symlinks_listed is not None:
                    symlinks_listed.append(p)
                continue
            if kind == "plain":
                if not (isinstance(got, OSError) and got.errno == errno.ENODATA) or names:
                    fail(f"{show(p)}: unencrypted: getxattr {got!r}, listxattr {names}")
                continue
            raw = im.context(st.st_ino)
            if raw is None or len(raw) not in (28, 40):
                fail(f"{show(p)}: inode {st.st_ino}: no context in the image ({raw!r})")
                continue
            v1 = len(raw) == 28
            nonce = raw[-16:].hex()
            kid = raw[4:12].hex() if v1 else raw[8:24].hex()
            # the tree line (what FS_IOC_GET_ENCRYPTION_POLICY read back) and
            # the inode's own context agree on the policy
            if kind in ("enc", "enc2"):
                pol = (1 if kind == "enc" else 2, w[1], int(w[2]), int(w[3]), int(w[4]))
                if pol != (1 if v1 else 2, kid, raw[1], raw[2], raw[3]):
                    fail(f"{show(p)}: image context {raw.hex()} is not tree {t}'s policy {pol}")
            want_text = (f"v{1 if v1 else 2} {'descriptor' if v1 else 'identifier'}={kid} "
                         f"contents={raw[1]} filenames={raw[2]} flags={flag_names(raw[3])} "
                         f"nonce={nonce}")
            if isinstance(got, OSError):
                fail(f"{show(p)}: getxattr {XATTR}: {got}")
            elif got.decode(errors="replace") != want_text:
                fail(f"{show(p)}: {XATTR} = {got!r}, want {want_text!r}")
            if names != [XATTR]:
                fail(f"{show(p)}: listxattr {names}, want [{XATTR!r}]")
    if symlinks_listed:
        fail(f"listxattr names {XATTR} on {len(symlinks_listed)} symlinks (e.g. "
             f"{show(symlinks_listed[0])}), where getxattr cannot read it: "
             f"getfattr -d -m - fails on them")
    if n == 0:
        fail("no entry")
    print(f"context: {n} entries, {failures} wrong")


# -- locked ----------------------------------------------------------------
def cmd_locked(args):
    im = ext4img.Image(args[0])
    keep = "--keep" in args[2:]
    nf = nl = 0
    for p, st, _ in walk(args[1]):
        if stat.S_ISLNK(st.st_mode):
            nl += 1
            t = os.readlink(p)
            if st.st_size != len(t) or not t:
                fail(f"{show(p)}: locked symlink: st_size {st.st_size}, target {t!r}")
        if not stat.S_ISREG(st.st_mode):
            continue
        nf += 1
        try:
            with open(p, "rb") as f:
                got = f.read()
        except OSError as exc:
            if keep or exc.errno != errno.EACCES:
                fail(f"{show(p)}: open: {exc}" + ("" if keep else ", want EACCES"))
            continue
        if not keep:
            fail(f"{show(p)}: a locked file opened ({len(got)} bytes read), want EACCES")
            continue
        want = im.read_file(st.st_ino)
        if got != want:
            fail(f"{show(p)}: {len(got)} bytes, the image stores {len(want)} up to i_size"
                 f"{', contents differ' if len(got) == len(want) else ''}")
    if nf == 0:
        fail("no regular file under " + args[1])
    what = "read as their stored ciphertext" if keep else "refused with EACCES"
    print(f"locked: {nf} files {what}, {nl} symlinks, {failures} wrong")


# -- writes ----------------------------------------------------------------
def cmd_writes(args):
    f, d = args[0], args[1]
    new = os.path.join(d, "e4dump-mount-new")

    def wfd(flags):
        fd = os.open(f, flags)
        os.close(fd)

    ops = [
        ("open O_WRONLY", lambda: wfd(os.O_WRONLY)),
        ("open O_RDWR", lambda: wfd(os.O_RDWR)),
        ("open O_WRONLY|O_APPEND", lambda: wfd(os.O_WRONLY | os.O_APPEND)),
        ("open O_RDONLY|O_TRUNC", lambda: wfd(os.O_RDONLY | os.O_TRUNC)),
        ("open O_CREAT new", lambda: os.close(os.open(new, os.O_CREAT | os.O_WRONLY, 0o644))),
        ("mkdir", lambda: os.mkdir(new)),
        ("mknod fifo", lambda: os.mkfifo(new)),
        ("symlink", lambda: os.symlink("x", new)),
        ("link", lambda: os.link(f, new)),
        ("rename", lambda: os.rename(f, new)),
        ("unlink", lambda: os.unlink(f)),
        ("rmdir", lambda: os.rmdir(d)),
        ("chmod", lambda: os.chmod(f, 0o600)),
        ("chown", lambda: os.chown(f, 1, 1)),
        ("utime", lambda: os.utime(f, (1, 1))),
        ("truncate", lambda: os.truncate(f, 0)),
        ("setxattr", lambda: os.setxattr(f, "user.x", b"1")),
        ("setxattr context", lambda: os.setxattr(f, XATTR, b"v1")),
        ("removexattr", lambda: os.removexattr(f, XATTR)),
    ]
    for name, op in ops:
        try:
            op()
        except OSError as exc:
            if exc.errno != errno.EROFS:
                fail(f"{name}: {exc}, want EROFS")
        else:
            fail(f"{name}: succeeded, want EROFS")
    print(f"writes: {len(ops)} write system calls, {failures} not EROFS")


# -- no-key names with the key --------------------------------------------
def cmd_nokey_lookup(args):
    man, mnt, tag = args
    recs = read_records(man, tag=tag)
    top = [r.fields[1] for r in recs if r.type == "readdir"]
    names = [r.fields[1] for r in recs if r.type == "n"]
    if len(top) != 1 or not names:
        fail(f"readdir {tag}: {len(top)} readdir records, {len(names)} names")
        return
    got = {}
    for p in names:
        try:
            got[os.lstat(os.path.join(mnt.encode(), p)).st_ino] = p
        except OSError as exc:
            fail(f"lstat by no-key name {show(p)}: {exc}")
    want = {st.st_ino for _, st, _ in walk(os.path.join(mnt.encode(), top[0]))}
    want.discard(os.lstat(os.path.join(mnt.encode(), top[0])).st_ino)
    if set(got) != want:
        fail(f"{tag}: the no-key names reach {len(got)} inodes, the decrypted "
             f"names {len(want)}; {len(set(got) ^ want)} differ")
    print(f"nokey-lookup {tag}: {len(names)} no-key names looked up with the key, "
          f"the inodes of the decrypted names, {failures} wrong")


# -- many open files at once -----------------------------------------------
def cmd_openmany(args):
    man, mnt, tree, count = args[0], args[1].encode(), args[2], int(args[3])
    _, entries = parse_manifest(man)
    files = [e for e in entries if e.tree == tree and e.type == "f" and e.size][:count]
    cache, fds = {}, []
    try:
        for e in files:
            fds.append(os.open(os.path.join(mnt, e.path), os.O_RDONLY))
        # again, each file a second time, then read them interleaved
        fds2 = [os.open(os.path.join(mnt, e.path), os.O_RDONLY) for e in files]
        for e, fd, fd2 in zip(files, fds, fds2):
            data = expected_content(e, cache)
            half = e.size // 2
            a = os.pread(fd2, e.size - half, half)
            b = os.pread(fd, half, 0)
            if b + a != data:
                fail(f"{show(e.path)}: read through one of {len(fds) * 2} open handles differs")
        for fd in fds2:
            os.close(fd)
    except OSError as exc:
        fail(f"open/read with {len(fds)} files open: {exc}")
    finally:
        for fd in fds:
            os.close(fd)
    if len(files) < count:
        fail(f"only {len(files)} files in {tree}, want {count}")
    print(f"openmany: {len(files)} files open twice at once, read interleaved, {failures} wrong")


def main():
    cmds = {"reads": cmd_reads, "sha": cmd_sha, "inodes": cmd_inodes,
            "context": cmd_context, "locked": cmd_locked, "writes": cmd_writes,
            "nokey-lookup": cmd_nokey_lookup, "openmany": cmd_openmany}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
