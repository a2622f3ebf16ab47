#!/usr/bin/env python3
"""Check an extracted directory against the manifest written by the QEMU guest.

Usage:
  check_extract.py MANIFEST EXTRACT_DIR [--tree DIR]... [--expect-missing DIR]...
                   [--allow-extra] [--no-symlink-mtime] [-q]
  check_extract.py MANIFEST --list [--tree DIR]... [--strip-tree]

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
absent or an empty directory.

Prints one line per problem and finally "N passed, M failed" (entries);
exit status 1 if anything failed, 2 on usage or manifest errors.

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


class Entry:
    __slots__ = ("type", "tree", "path", "mode", "size", "mtime", "seed",
                 "target", "link", "extents", "lineno")


def parse_manifest(path):
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
            elif t == "key":
                pass
            elif t == "tree":
                trees[w[1]] = w[2:]
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


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check an extracted tree against an e4dump QEMU manifest.",
        usage="%(prog)s MANIFEST EXTRACT_DIR [--tree DIR]... [--expect-missing DIR]...\n"
              "       %(prog)s MANIFEST --list [--tree DIR]... [--strip-tree]")
    ap.add_argument("manifest")
    ap.add_argument("extract_dir", nargs="?")
    ap.add_argument("--tree", action="append", default=[], metavar="DIR",
                    help="check (or list) only this tree; repeatable")
    ap.add_argument("--expect-missing", action="append", default=[], metavar="DIR",
                    help="assert that this tree was not extracted; repeatable")
    ap.add_argument("--list", action="store_true",
                    help="print the expected relative paths, sorted, and exit")
    ap.add_argument("--strip-tree", action="store_true",
                    help="with --list: print paths relative to their tree dir")
    ap.add_argument("--allow-extra", action="store_true",
                    help="do not report files that are not in the manifest")
    ap.add_argument("--no-symlink-mtime", action="store_true",
                    help="do not check the mtime of symlinks")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print only problems and the summary")
    args = ap.parse_args(argv)

    try:
        trees, entries = parse_manifest(args.manifest)
    except (OSError, ManifestError, UnicodeDecodeError) as exc:
        print(f"check_extract: {exc}", file=sys.stderr)
        return 2
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
        out = sys.stdout.buffer
        try:
            for p in sorted(paths):
                out.write(p + b"\n")
            out.flush()
        except BrokenPipeError:  # e.g. piped into head
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

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
