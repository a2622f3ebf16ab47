#!/usr/bin/env python3
"""Check an extracted directory against the manifest written by the QEMU guest.

Usage:
  check_extract.py MANIFEST EXTRACT_DIR [--tree DIR]... [--expect-missing DIR]...
                   [--allow-extra] [--no-symlink-mtime] [--apply-removed] [-q]
  check_extract.py MANIFEST --list [--tree DIR]... [--strip-tree]
  check_extract.py MANIFEST --readdir TAG [--strip-tree]
  check_extract.py MANIFEST --records TYPE [--tag TAG]
  check_extract.py MANIFEST RECOVERY_DIR --removed-only [--allow-extra] [-q]

EXTRACT_DIR corresponds to the root of the ext4 image (the guest's /mnt): the
entry "pad4/sub/one.txt" is looked for at EXTRACT_DIR/pad4/sub/one.txt.

For every entry of the selected trees (default: every tree of the manifest
except those given with --expect-missing) it checks, without following
symlinks: existence and file type, permission bits (not for symlinks, whose
mode Linux fixes at 0777), size (not for directories), mtime in whole
seconds, the exact contents (regenerated here with an independent
implementation of the guest's generator; holes of sparse files are zeros),
the exact symlink target bytes, and for hard links that the second name has
the contents of the first (a copy or a real hard link both pass).  Anything
under a selected tree that is not in the manifest is reported as unexpected
(unless --allow-extra).  --expect-missing DIR passes when EXTRACT_DIR/DIR is
absent or an empty directory.  --apply-removed drops the entries named by
`removed` records (an `unlink-first` of the scenario deleted them), which
then must not exist.

Prints one line per problem and finally "N passed, M failed" (entries);
exit status 1 if anything failed, 2 on usage or manifest errors.

--readdir TAG prints the paths of the `n TAG` records (what the guest's
readdir returned, e.g. the kernel's no-key names), sorted bytewise, one per
line as raw bytes; with --strip-tree relative to the directory that was
listed.  --records TYPE prints the records of one kernel-probe type (lookup,
open, exists, ...; see RECORDS) in manifest order, fields separated by a tab,
hex fields decoded to raw bytes; --tag keeps those whose first field is TAG.

--removed-only checks RECOVERY_DIR (what an undelete wrote, laid out as the
image root) against the entries named by `removed` records only (those the
scenario's unlink, rmtree or unlink-first deleted): each must be there with
its type, size, contents or symlink target (not mode or mtime).  Anything
else in it that is not a directory on the way to one is reported as
unexpected (unless --allow-extra).

The manifest format and the generator are documented in vm/README.md.
Standard library only.
"""

import argparse
import os
import stat
import sys

MASK = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


def generate(seed: int, size: int) -> bytes:
    """splitmix64 stream seeded with `seed`, 8 little-endian bytes per
    output, truncated to `size`."""
    out = bytearray()
    state = seed
    n = (size + 7) // 8
    to_bytes = int.to_bytes
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out += to_bytes(z, 8, "little")
    del out[size:]
    return bytes(out)


class ManifestError(Exception):
    pass


# Kernel-probe records (vm/README.md, "Kernel probes"): type -> kinds of the
# fields after the type word: s = word, h = hex bytes (a path; printed raw by
# --records), x = hex bytes (printed as hex), i = decimal integer.
# The parser checks their shape; the entry checks ignore them.
RECORDS = {
    "remount": "s",            # OPTS or "-"
    "forget-keys": "",
    "resolved": "hh",          # PLAINPATH PATH
    "n": "sh",                 # TAG PATH
    "readdir": "shi",          # TAG DIR COUNT
    "lookup": "shii",          # TAG DIR TOTAL OK
    "lookup-fail": "shi",      # TAG PATH ERRNO
    "open": "shiii",           # TAG DIR TOTAL OK FIRST_ERRNO
    "open-fail": "shi",        # TAG PATH ERRNO
    "unlinked": "sh",          # TAG PATH
    "removed": "h",            # PATH of the manifest entry an unlink removed
    "unlink-fail": "shi",      # TAG PATH ERRNO
    "exists": "shi",           # TAG PATH 0|1
    "policy-nonempty": "si",   # DIR ERRNO
    "inherit": "sii",          # TAG TOTAL SAME
    "inherit-symlinks": "si",  # TAG N
    "inherit-diff": "shi",     # TAG PATH ERRNO (0: another policy)
    "dummy-policy": "sx",      # DIR POLICY (bytes of FS_IOC_GET_ENCRYPTION_POLICY_EX)
    "mount-try": "ssi",        # TAG OPTS ERRNO (0: mounted)
    "kmsg": "sx",              # TAG TEXT (an ext4/fscrypt kernel message)
    "policy-try": "si",        # TAG ERRNO (0: the policy was set)
    "touched": "hi",           # PATH ERRNO (touch-names)
    "nokey-op": "ssi",         # TAG OP ERRNO (nokey-ops)
    "proc": "ss",              # TAG WORD (first word of a /proc file)
    "t": "shh",                # TAG PATH TARGET (readlink during a readdir)
    "fskey-add": "iix",        # N ERRNO SPEC (descriptor or identifier)
    "fskey-add-as": "iii",     # N UID ERRNO
    "fskey-remove": "sii",     # TAG ERRNO STATUSFLAGS
    "fskey-status": "siiii",   # TAG ERRNO STATUS FLAGS USERS
    "held": "siis",            # TAG ERRNO NBYTES FNV
    "read-held": "siis",       # TAG ERRNO NBYTES FNV
    "remember": "sii",         # TAG INO ERRNO
    "recheck": "ssii",         # TAG nokey|plain ERRNO SAMENAME
    "stat-name": "sii",        # TAG INO ERRNO
    "unlink-name": "si",       # TAG ERRNO
    "ino": "shi",              # TAG PATH INO (readdir ... inodes)
    "sync": "",                # syncfs of the image (the journal committed)
    "extents": "his",          # PATH INO RUNS: LBLK:PBLK:LEN[:u],... | - | ? (unlink, rmtree)
    "churn": "siii",           # DIR COUNT SIZE WRITTEN
    "xattr-set": "shsi",       # TAG PATH NAME ERRNO (xattr-set, xattr-set-gen)
    "xattr": "shhs",           # TAG PATH NAME VALUE (hex, "-": empty) (xattr-list)
    "xattr-count": "shi",      # TAG PATH N
    "secret": "si",            # NAME NBYTES (secret: secrets/NAME next to the image)
    "run": "si",               # TAG STATUS (the exit status of a program run)
    "fscrypt-conf": "s",       # KEY=VALUE,... (what fscrypt.conf was set to)
    "fscrypt-tree": "ss",      # DIR SECRETS (each of these secrets opens DIR)
    "key-unlink": "s",         # PREFIX:DESCHEX (a logon key unlinked from the session keyring)
    "key-revoke": "s",         # PREFIX:DESCHEX (revoked, then unlinked)
    "drop-caches": "",         # syncfs + drop_caches
    "read-all": "shiiii",      # TAG DIR FILES DIRS LINKS BYTES (every file read)
    "capture": "",             # the guest waited for the host to save its RAM
}


class Record:
    __slots__ = ("type", "fields", "lineno")

    def __init__(self, rtype, fields, lineno):
        self.type, self.fields, self.lineno = rtype, fields, lineno

    def __repr__(self):
        return f"Record({self.type!r}, {self.fields!r}, line {self.lineno})"


def _decode_record(t, words):
    kinds = RECORDS[t]
    if len(words) != len(kinds):
        raise ValueError(f"{t!r} wants {len(kinds)} fields, has {len(words)}")
    out = []
    for k, w in zip(kinds, words):
        out.append(bytes.fromhex(w) if k in "hx" else int(w, 10) if k == "i" else w)
    return out


class Entry:
    __slots__ = ("type", "tree", "path", "mode", "size", "mtime", "seed",
                 "target", "link", "extents", "lineno")


def parse_manifest(path, records=None):
    """Returns (trees, entries); kernel-probe records are appended to the
    list `records` if one is given (else only checked)."""
    trees = {}      # name -> description words
    entries = []
    with open(path, "rb") as f:
        lines = f.read().decode("ascii").splitlines()
    if not lines or lines[0] != "# e4dump-manifest 1":
        raise ManifestError(f"{path}: not an e4dump manifest (bad first line)")
    ended = None
    for no, line in enumerate(lines, 1):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if ended is not None:
            raise ManifestError(f"{path}:{no}: text after the end line")
        t = w[0]
        try:
            if t == "end":
                ended = int(w[1])
            elif t in ("key", "key2"):
                pass
            elif t == "tree":
                trees[w[1]] = w[2:]
            elif t in RECORDS:
                r = Record(t, _decode_record(t, w[1:]), no)
                if records is not None:
                    records.append(r)
            elif t in ("f", "d", "l", "h", "s"):
                e = Entry()
                e.lineno = no
                e.type = t
                e.tree = w[1]
                e.path = bytes.fromhex(w[2])
                e.mode = int(w[3], 8)
                e.size = None if w[4] == "-" else int(w[4])
                e.mtime = int(w[5])
                e.seed = e.target = e.link = e.extents = None
                if t == "f":
                    e.seed = int(w[6], 16)
                elif t == "s":
                    e.seed = int(w[6], 16)
                    e.extents = [tuple(int(x) for x in ext.split(":"))
                                 for ext in w[7].split(",")]
                elif t == "h":
                    e.seed = int(w[6], 16)
                    e.link = bytes.fromhex(w[7])
                elif t == "l":
                    e.target = bytes.fromhex(w[6])
                if e.tree not in trees:
                    raise ManifestError(f"{path}:{no}: entry before its tree line")
                if e.path != e.tree.encode() and not e.path.startswith(e.tree.encode() + b"/"):
                    raise ManifestError(f"{path}:{no}: path outside of its tree")
                entries.append(e)
            else:
                raise ManifestError(f"{path}:{no}: unknown line type {t!r}")
        except (IndexError, ValueError) as exc:
            raise ManifestError(f"{path}:{no}: malformed line ({exc})") from None
    if ended is None:
        raise ManifestError(f"{path}: no end line (truncated manifest?)")
    if ended != len(entries):
        raise ManifestError(f"{path}: end line says {ended} entries, found {len(entries)}")
    return trees, entries


def read_records(path, rtype=None, tag=None):
    """The kernel-probe records of a manifest, in order; only those of type
    `rtype` and/or whose first field is `tag` if given."""
    recs = []
    parse_manifest(path, recs)
    return [r for r in recs if (rtype is None or r.type == rtype)
            and (tag is None or (r.fields and r.fields[0] == tag))]


def readdir_paths(path, tag, strip=False):
    """Sorted (bytewise) paths of the `n TAG` records; with strip, relative
    to the directory listed (from the `readdir TAG DIR COUNT` record)."""
    recs = read_records(path, tag=tag)
    paths = [r.fields[1] for r in recs if r.type == "n"]
    summ = [r for r in recs if r.type == "readdir"]
    if not summ:
        raise ManifestError(f"{path}: no 'readdir {tag}' record")
    if sum(r.fields[2] for r in summ) != len(paths):
        raise ManifestError(f"{path}: readdir {tag}: {len(paths)} n records, "
                            f"count says {sum(r.fields[2] for r in summ)}")
    if strip:
        if len(summ) != 1:
            raise ManifestError(f"{path}: --strip-tree: tag {tag} was used by "
                                f"{len(summ)} readdir commands")
        pre = summ[0].fields[1] + b"/"
        paths = [p[len(pre):] for p in paths if p.startswith(pre)]
    return sorted(paths)


def show(p: bytes) -> str:
    return p.decode("utf-8", "backslashreplace")


def expected_content(e, cache):
    key = (e.seed, e.size, tuple(e.extents) if e.extents else None)
    data = cache.get(key)
    if data is None:
        data = generate(e.seed, e.size)
        if e.extents is not None:
            buf = bytearray(e.size)
            for off, ln in e.extents:
                buf[off:off + ln] = data[off:off + ln]
            data = bytes(buf)
        cache[key] = data
    return data


def check_entry(e, root: bytes, args, cache):
    """Returns a list of problem strings (empty = pass)."""
    probs = []
    p = os.path.join(root, e.path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return ["missing"]
    except OSError as exc:
        return [f"lstat: {exc}"]
    want = {"d": stat.S_ISDIR, "l": stat.S_ISLNK}.get(e.type, stat.S_ISREG)
    if not want(st.st_mode):
        return [f"wrong type (mode {st.st_mode:o}), wanted "
                + {"d": "directory", "l": "symlink"}.get(e.type, "regular file")]
    if e.type != "l" and stat.S_IMODE(st.st_mode) != e.mode:
        probs.append(f"mode {stat.S_IMODE(st.st_mode):04o}, wanted {e.mode:04o}")
    if e.size is not None and st.st_size != e.size:
        probs.append(f"size {st.st_size}, wanted {e.size}")
    mtime = st.st_mtime_ns // 1_000_000_000
    if mtime != e.mtime and not (e.type == "l" and args.no_symlink_mtime):
        probs.append(f"mtime {mtime}, wanted {e.mtime}")
    # the manifest's seeds follow the documented rule
    if e.seed is not None:
        rule = fnv1a64(e.link if e.type == "h" else e.path)
        if rule != e.seed:
            probs.append(f"manifest seed {e.seed:016x} is not FNV-1a of the path ({rule:016x})")
    if e.type == "l":
        try:
            t = os.readlink(p)
        except OSError as exc:
            probs.append(f"readlink: {exc}")
        else:
            if t != e.target:
                probs.append(f"symlink target {show(t)!r}, wanted {show(e.target)!r}")
    elif e.type in ("f", "s", "h"):
        try:
            with open(p, "rb") as f:
                got = f.read()
        except OSError as exc:
            probs.append(f"read: {exc}")
        else:
            exp = expected_content(e, cache)
            if got != exp:
                n = min(len(got), len(exp))
                off = next((i for i in range(n) if got[i] != exp[i]), n)
                probs.append(f"contents differ (length {len(got)} vs {len(exp)}, "
                             f"first difference at byte {off})")
    return probs


def removed_entries(entries, recs):
    """The manifest entries named by `removed` records, in record order."""
    by_path = {e.path: e for e in entries}
    out = []
    for r in recs:
        if r.type != "removed":
            continue
        e = by_path.get(r.fields[0])
        if e is None:
            raise ManifestError(f"removed {show(r.fields[0])!r} (line {r.lineno}) "
                                "is not an entry of the manifest")
        out.append(e)
    return out


def check_removed(args, entries, recs):
    """--removed-only: the recovery directory holds the removed entries, with
    their type, size and bytes, and nothing else but their directories."""
    if args.extract_dir is None:
        print("check_extract: --removed-only needs RECOVERY_DIR", file=sys.stderr)
        return 2
    try:
        gone = removed_entries(entries, recs)
    except ManifestError as exc:
        print(f"check_extract: {exc}", file=sys.stderr)
        return 2
    if not gone:
        print("check_extract: --removed-only: the manifest has no 'removed' record",
              file=sys.stderr)
        return 2
    root = os.fsencode(args.extract_dir)
    if not os.path.isdir(root):
        print(f"check_extract: {args.extract_dir} is not a directory", file=sys.stderr)
        return 2
    args.no_symlink_mtime = True
    passed = failed = 0
    cache = {}
    for e in gone:
        probs = [p for p in check_entry(e, root, args, cache)
                 if not p.startswith(("mode ", "mtime "))]
        if probs:
            failed += 1
            print(f"FAIL removed {e.type} {show(e.path)}: " + "; ".join(probs))
        else:
            passed += 1
            if not args.quiet:
                print(f"ok   removed {e.type} {show(e.path)}")
    if not args.allow_extra:
        known = {e.path for e in gone}
        for e in gone:  # the directories on the way
            p = e.path
            while b"/" in p:
                p = p.rsplit(b"/", 1)[0]
                known.add(p)
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if rel not in known:
                    failed += 1
                    print(f"FAIL unexpected entry {show(rel)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def write_lines(lines):
    out = sys.stdout.buffer
    try:
        for p in lines:
            out.write(p + b"\n")
        out.flush()
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check an extracted tree against an e4dump QEMU manifest.",
        usage="%(prog)s MANIFEST EXTRACT_DIR [--tree DIR]... [--expect-missing DIR]...\n"
              "       %(prog)s MANIFEST --list [--tree DIR]... [--strip-tree]\n"
              "       %(prog)s MANIFEST --readdir TAG [--strip-tree]\n"
              "       %(prog)s MANIFEST --records TYPE [--tag TAG]")
    ap.add_argument("manifest")
    ap.add_argument("extract_dir", nargs="?")
    ap.add_argument("--tree", action="append", default=[], metavar="DIR",
                    help="check (or list) only this tree; repeatable")
    ap.add_argument("--expect-missing", action="append", default=[], metavar="DIR",
                    help="assert that this tree was not extracted; repeatable")
    ap.add_argument("--list", action="store_true",
                    help="print the expected relative paths, sorted, and exit")
    ap.add_argument("--strip-tree", action="store_true",
                    help="with --list: print paths relative to their tree dir; "
                         "with --readdir: relative to the directory listed")
    ap.add_argument("--readdir", metavar="TAG",
                    help="print the paths of the 'n TAG' records, sorted, and exit")
    ap.add_argument("--records", metavar="TYPE", choices=sorted(RECORDS),
                    help="print the records of this kernel-probe type and exit")
    ap.add_argument("--tag", metavar="TAG",
                    help="with --records: only records whose first field is TAG")
    ap.add_argument("--allow-extra", action="store_true",
                    help="do not report files that are not in the manifest")
    ap.add_argument("--no-symlink-mtime", action="store_true",
                    help="do not check the mtime of symlinks")
    ap.add_argument("--apply-removed", action="store_true",
                    help="entries of 'removed' records must be absent")
    ap.add_argument("--removed-only", action="store_true",
                    help="check only the entries of 'removed' records (an undelete's output): "
                         "type, size, contents, symlink target")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print only problems and the summary")
    args = ap.parse_args(argv)

    if args.readdir is not None or args.records is not None:
        try:
            if args.readdir is not None:
                lines = readdir_paths(args.manifest, args.readdir, args.strip_tree)
            else:
                lines = [b"\t".join(f.hex().encode() if k == "x" else
                                     f if k == "h" else str(f).encode()
                                     for k, f in zip(RECORDS[r.type], r.fields))
                         for r in read_records(args.manifest, args.records, args.tag)]
        except (OSError, ManifestError, UnicodeDecodeError) as exc:
            print(f"check_extract: {exc}", file=sys.stderr)
            return 2
        return write_lines(lines)

    try:
        recs = []
        trees, entries = parse_manifest(args.manifest, recs)
    except (OSError, ManifestError, UnicodeDecodeError) as exc:
        print(f"check_extract: {exc}", file=sys.stderr)
        return 2
    if args.removed_only:
        return check_removed(args, entries, recs)
    if args.apply_removed:
        gone = {r.fields[0] for r in recs if r.type == "removed"}
        entries = [e for e in entries if e.path not in gone]
    for t in [x.strip("/") for x in args.tree + args.expect_missing]:
        if t not in trees:
            print(f"check_extract: tree {t!r} is not in the manifest "
                  f"(trees: {' '.join(trees)})", file=sys.stderr)
            return 2
    missing = [x.strip("/") for x in args.expect_missing]
    selected = [x.strip("/") for x in args.tree] or [t for t in trees if t not in missing]
    if set(selected) & set(missing):
        print("check_extract: a tree cannot be both checked and expected missing",
              file=sys.stderr)
        return 2
    sel = [e for e in entries if e.tree in selected]

    if args.list:
        paths = []
        for e in sel:
            p = e.path
            if args.strip_tree:
                if p == e.tree.encode():
                    continue
                p = p[len(e.tree) + 1:]
            paths.append(p)
        return write_lines(sorted(paths))

    if args.extract_dir is None:
        ap.error("EXTRACT_DIR is required (unless --list)")
    root = os.fsencode(args.extract_dir)
    if not os.path.isdir(root):
        print(f"check_extract: {args.extract_dir} is not a directory", file=sys.stderr)
        return 2

    passed = failed = 0
    cache = {}
    for e in sel:
        probs = check_entry(e, root, args, cache)
        if probs:
            failed += 1
            print(f"FAIL {e.type} {show(e.path)}: " + "; ".join(probs))
        else:
            passed += 1
            if not args.quiet:
                print(f"ok   {e.type} {show(e.path)}")

    if not args.allow_extra:
        known = {e.path for e in sel}
        for t in selected:
            top = os.path.join(root, t.encode())
            if not os.path.isdir(top) or os.path.islink(top):
                continue
            for dirpath, dirnames, filenames in os.walk(top):
                for name in dirnames + filenames:
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, root)
                    if rel not in known:
                        failed += 1
                        print(f"FAIL unexpected entry {show(rel)}")

    for t in missing:
        p = os.path.join(root, t.encode())
        if not os.path.lexists(p):
            ok, why = True, ""
        elif os.path.isdir(p) and not os.path.islink(p):
            extra = sorted(os.listdir(p))
            ok = not extra
            why = f"contains {len(extra)} entries, e.g. {show(extra[0])!r}" if extra else ""
        else:
            ok, why = False, "exists and is not a directory"
        if ok:
            passed += 1
            if not args.quiet:
                print(f"ok   missing {t}")
        else:
            failed += 1
            print(f"FAIL expected {t} not to be extracted: {why}")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
